"""Follow-ups that only make sense in their conversation keep its intent and language (real default
router)."""

from __future__ import annotations

import httpx
import pytest

from serve.app import create_app
from serve.followup import is_followup, is_nudge, script_lang
from tests.api.test_reply import fixed_reply, make_settings, open_client
from tests.conftest import lifespan
from tests.fakes import ScriptedFakeGenerator, ScriptedTestRouter


@pytest.mark.parametrize(
    "text,expected",
    [
        ("I already restarted it", True),
        ("still nothing", True),
        ("which one?", True),
        ("那怎么办", True),
        ("那是什么意思", True),
        ("SF1234567890", True),
        ("#A1234567", True),
        ("ok", True),
        ("How do I turn on roaming before my trip to Japan next week?", False),
        ("我想查一下这个月的流量还剩多少", False),
        ("我已经重启过了还是不行", True),
        ("这个套餐多少钱一个月呀", False),
    ],
)
def test_followup_detection(text: str, expected: bool) -> None:
    assert is_followup(text) is expected


def test_language_neutral_messages_show_no_language() -> None:
    assert script_lang("SF1234567890") is None and script_lang("12345 ?") is None
    assert script_lang("我的订单") == "zh" and script_lang("where is my order") == "en"


async def turn(client, session: str, message: str, domain: str = "telecom") -> dict:
    response = await client.post(
        "/v1/reply", json={"domain": domain, "message": message, "session_id": session, "stream": False}
    )
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.trained_router
async def test_a_follow_up_keeps_the_conversations_intent(tmp_path) -> None:
    engine = ScriptedFakeGenerator(script=fixed_reply)
    async for client in open_client(make_settings(tmp_path), engine):
        first = await turn(client, "net-1", "My mobile internet stopped working this morning")
        assert first["intent"]["label"] == "network_fault"
        for follow_up in ("I already restarted it", "still nothing"):
            reply = await turn(client, "net-1", follow_up)
            assert reply["intent"]["label"] == "network_fault", follow_up
            assert reply["intent"]["route"] != "clarify"


@pytest.mark.trained_router
async def test_a_bare_order_number_in_a_chinese_chat_gets_a_chinese_reply(tmp_path) -> None:
    engine = ScriptedFakeGenerator(script=fixed_reply, languages=("en",))
    async for client in open_client(make_settings(tmp_path), engine):
        first = await turn(client, "zh-1", "我的快递到哪了？三天了还没更新", domain="ecommerce")
        assert first["intent"]["lang"] == "zh"
        bare = await turn(client, "zh-1", "SF1234567890", domain="ecommerce")
    assert bare["intent"]["lang"] == "zh"
    assert bare["intent"]["label"] == first["intent"]["label"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in bare["reply"])  # answered in Chinese (template route)


async def test_without_a_conversation_a_bare_number_is_not_given_an_intent(tmp_path) -> None:
    engine = ScriptedFakeGenerator(script=fixed_reply)
    async for client in open_client(make_settings(tmp_path), engine):
        alone = await turn(client, "fresh", "SF1234567890", domain="ecommerce")
    assert alone["intent"]["carried_over"] is False


@pytest.mark.parametrize("confidence,expected", [(0.45, "network_fault"), (0.95, "return_exchange")])
async def test_a_fairly_sure_follow_up_is_checked_against_the_conversation(
    tmp_path, confidence: float, expected: str
) -> None:
    first, follow = "My internet has been down since this morning", "I have already restarted the router"
    router = ScriptedTestRouter(
        {
            first: ("network_fault", 0.99),
            follow: ("return_exchange", confidence),
            f"{first}\n{follow}": ("network_fault", 0.97),
        }
    )
    app = create_app(
        make_settings(tmp_path), generator=ScriptedFakeGenerator(script=fixed_reply), router=router
    )
    async with lifespan(app):
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as client:
            await turn(client, "recheck", first)
            reply = await turn(client, "recheck", follow)
    assert reply["intent"]["label"] == expected
    assert reply["intent"]["carried_over"] is (expected == "network_fault")
    assert (f"{first}\n{follow}" in router.asked) is (confidence < 0.9)  # a sure reading is left alone


@pytest.mark.parametrize(
    "text,expected",
    [
        ("any update?", True),
        ("Any updates??", True),
        ("I'm still waiting...", True),
        ("还在吗？", True),
        ("结果呢", True),
        ("有消息了嗎", True),
        ("so?", True),
        ("where is my order", False),
        ("update on my refund please", False),
        ("hello", False),
        ("我的退款呢", False),
    ],
)
def test_nudge_detection(text: str, expected: bool) -> None:
    assert is_nudge(text) is expected


async def test_a_nudge_asks_about_the_conversations_topic_however_sure_the_router_is_alone(tmp_path) -> None:
    first = "I was charged twice for order 5521"
    router = ScriptedTestRouter(
        {
            first: ("billing_dispute", 0.98),
            "any update?": ("order_tracking", 0.99),
            "where is my order?": ("order_tracking", 0.99),
        }
    )
    app = create_app(
        make_settings(tmp_path), generator=ScriptedFakeGenerator(script=fixed_reply), router=router
    )
    async with lifespan(app):
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as client:
            alone = await turn(client, "fresh", "any update?", domain="ecommerce")
            await turn(client, "charge", first, domain="ecommerce")
            nudge = await turn(client, "charge", "any update?", domain="ecommerce")
            switch = await turn(client, "charge", "where is my order?", domain="ecommerce")
    assert alone["intent"]["label"] == "order_tracking" and alone["intent"]["carried_over"] is False
    assert nudge["intent"]["label"] == "billing_dispute" and nudge["intent"]["carried_over"] is True
    assert switch["intent"]["label"] == "order_tracking"  # a message with its own topic changes the topic
