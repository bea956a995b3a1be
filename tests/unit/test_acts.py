"""Conversation acts: acknowledgements, thanks, bare references and social-media wrapping."""

from __future__ import annotations

import pytest

from serve.acts import detect_act, given_references, strip_wrapping
from serve.prompts import PromptLibrary


@pytest.mark.parametrize(
    "text",
    [
        "ok",
        "OK!",
        "okay",
        "got it",
        "yes",
        "👍",
        "👍🏻👍",
        "ok 👍",
        "嗯",
        "嗯嗯",
        "好的",
        "好的。",
        "对的",
        "收到",
        "行",
        "明白了",
    ],
)
def test_acknowledgements(text: str) -> None:
    act = detect_act(text)
    assert act is not None and act.kind == "acknowledgement"


@pytest.mark.parametrize(
    "text", ["thanks", "Thank you so much!", "thx", "ok thanks", "谢谢", "好的，谢谢", "辛苦了", "thanks 🙏"]
)
def test_thanks(text: str) -> None:
    act = detect_act(text)
    assert act is not None and act.kind == "thanks"


@pytest.mark.parametrize(
    ("text", "reference", "kind"),
    [
        ("5388123", "5388123", "order"),
        ("Order # 113-4002806-4843420", "113-4002806-4843420", "order"),
        ("订单号：2010123019433", "2010123019433", "order"),
        ("#A1234567", "A1234567", "order"),
        ("tracking number 1Z999AA10123456784", "1Z999AA10123456784", "tracking"),
        ("运单号 SF1234567890", "SF1234567890", "tracking"),
        ("9025288580 is my number", "9025288580", "phone"),
        ("13812345678", "13812345678", "phone"),
        ("my order is 778899", "778899", "order"),
        ("对@示例商城客服 说：订单号：2010123019433", "2010123019433", "order"),
    ],
)
def test_bare_references(text: str, reference: str, kind: str) -> None:
    act = detect_act(text)
    assert act is not None and act.kind == "reference"
    assert (act.reference, act.reference_kind) == (reference, kind)


@pytest.mark.parametrize(
    "text",
    [
        "where is order 5388",
        "ok but where is my parcel",
        "对的，就是那个订单还没到",
        "你啥意思",
        "no",
        "😡",
        "!!!",
        "thanks for nothing, still no refund",
        "123",
        "@115850 worst service",
    ],
)
def test_messages_with_a_topic_or_a_complaint_are_not_acts(text: str) -> None:
    assert detect_act(text) is None


@pytest.mark.parametrize(
    "text", ["@O2 ", "@115850", "@AmazonHelp https://t.co/5siVgYCfW6", "@1936 @idea_cares @116329"]
)
def test_a_message_of_mentions_and_links_alone_is_a_greeting(text: str) -> None:
    act = detect_act(text)
    assert act is not None and act.kind == "greeting"


@pytest.mark.parametrize(
    "text", ["@ExampleMobile Good day", "gud day!", "Hello there", "您好！", "@示例商城 你好"]
)
def test_a_greeting_alone_is_a_greeting(text: str) -> None:
    act = detect_act(text)
    assert act is not None and act.kind == "greeting"


@pytest.mark.parametrize(
    "text", ["您好,光纤也得装电话吧", "hello, my router is down", "其实跟没说一样,无法解决问题"]
)
def test_a_greeting_with_a_question_or_a_complaint_is_not_an_act(text: str) -> None:
    assert detect_act(text) is None


def test_wrapping_is_stripped_but_the_words_stay() -> None:
    assert strip_wrapping("@sainsburys This true? https://t.co/nvqo2WoxL1") == "This true?"
    assert strip_wrapping("对@趣玩网客服 说：优惠券还没到 我在:北京") == "优惠券还没到"


@pytest.mark.parametrize(
    "text",
    [
        "问题已解决,客户很满意",
        "好了，谢谢",
        "It's working now, thanks!",
        "all sorted now",
        "@O2 problem solved",
        "宽带恢复正常了",
    ],
)
def test_a_short_message_saying_it_is_solved_is_resolved(text: str) -> None:
    act = detect_act(text)
    assert act is not None and act.kind == "resolved"


@pytest.mark.parametrize(
    "text",
    [
        "希望改改吧",
        "电商时代,希望联通能重视用户的网购体验.谢谢",
        "Great service today from the Leeds store, thank you",
    ],
)
def test_a_short_remark_ending_in_thanks_or_a_wish_is_feedback(text: str) -> None:
    act = detect_act(text)
    assert act is not None and act.kind == "feedback"


@pytest.mark.parametrize(
    "text",
    [
        "still not fixed, thanks",
        "网络还是不行，谢谢",
        "没解决，谢谢",
        "is it fixed now? thanks",
        "问题解决了吗？",
        "Thanks for nothing",
    ],
)
def test_a_problem_that_goes_on_or_a_question_is_not_a_closing(text: str) -> None:
    assert detect_act(text) is None


def test_given_references_find_what_the_customer_already_wrote() -> None:
    assert given_references(["订单编号： 130319131684 银行卡是广州农商银行"]) == {"order_id": "130319131684"}
    assert (
        given_references(["QT2011081529836,QT2011022152080 这两个订单号的东西早就收到了"])["order_id"]
        == "QT2011022152080"
    )
    assert given_references(["call me on 13812345678 please"]) == {"phone": "13812345678"}
    assert given_references(["已经发到你私信了"]) == {"private": "yes"}
    assert given_references(["I've sent you a DM"]) == {"private": "yes"}
    assert given_references(["my parcel is late", "order 5388123456 please"]) == {"order_id": "5388123456"}
    assert given_references(["the box on channel 313 froze", "postcode 02885"]) == {
        "postcode": "02885"
    }  # short numbers are not order references, and a bare channel number is nothing


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("the oat milk is always out at Kingsford High Street Store.", "Kingsford High Street"),
        ("people begging for cash outside, customers in North Wembley are scared", "North Wembley"),
        ("@ExampleShop trolleys everywhere at @ExampleShop Hillbury. Sort it out", "Hillbury"),
        ("rude staff at the Riverside branch today", "Riverside"),
        ("Eleweran area of Abeokuta, Ogun State has had no signal all week", "Abeokuta"),
    ],
)
def test_a_named_place_is_given(text: str, place: str) -> None:
    assert given_references([text]).get("place") == place


@pytest.mark.parametrize(
    "text", ["bought it in December at the shop", "rude staff in your store. I want a refund"]
)
def test_months_and_plain_store_words_are_not_places(text: str) -> None:
    assert "place" not in given_references([text])


def test_a_store_reply_does_not_ask_which_store_when_the_customer_named_it() -> None:
    library = PromptLibrary.load()
    reply = next(r for r in library.bank("ecommerce", "en") if r.id == "store-security")
    text = "men hassling customers for cash outside your store in North Wembley"
    named = library.bank_reply("ecommerce", "en", reply, {}, given_references([text]))
    assert "which store" not in named and "North Wembley" in named
    assert "which store" in library.bank_reply(
        "ecommerce", "en", reply, {}, given_references(["men outside"])
    )


@pytest.mark.parametrize(
    ("text", "postcode"),
    [
        ("any update on restoring cable/internet to Warren RI? 02885", "02885"),
        ("no signal at SW1A 1AA since monday", "SW1A 1AA"),
        ("my postcode is ls1 4ap", "LS1 4AP"),
        ("zip code: 10001, still no internet", "10001"),
    ],
)
def test_a_postcode_is_given(text: str, postcode: str) -> None:
    given = given_references([text])
    assert given.get("postcode") == postcode
    assert "place" not in given or not any(ch.isdigit() for ch in given["place"])


@pytest.mark.parametrize("text", ["ordered 12345 items", "CALL ME 12345 TIMES", "channel 313 froze at 10"])
def test_a_bare_short_number_is_not_a_postcode(text: str) -> None:
    assert "postcode" not in given_references([text])


def test_a_bank_reply_uses_the_postcode_and_the_order_number_the_customer_gave() -> None:
    library = PromptLibrary.load()
    outage = next(r for r in library.bank("telecom", "en") if r.id == "broadband-area-outage")
    given = library.bank_reply(
        "telecom", "en", outage, {}, given_references(["internet down in Warren RI 02885"])
    )
    assert "02885" in given and "postcode" not in given
    assert "Send me your postcode" in library.bank_reply("telecom", "en", outage, {}, {})
    refund = next(r for r in library.bank("ecommerce", "en") if r.id == "refund-not-received")
    text = "still no refund. order i407-6768178-8573154"
    typed = library.bank_reply("ecommerce", "en", refund, {}, given_references([text]))
    assert "i407-6768178-8573154" in typed and "send me the order number" not in typed
    # the account's own number, when the request carries one, wins over what the customer typed
    own = library.bank_reply("ecommerce", "en", refund, {"order_id": "A1000001"}, given_references([text]))
    assert "A1000001" in own and "i407" not in own
