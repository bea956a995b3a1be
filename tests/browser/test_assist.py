"""The agent-assist panel in Chromium against the real server: intent ranking, suggestions, inserting one."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import has_cjk, server_intent

pytestmark = pytest.mark.browser

ROAMING = "How do I activate roaming before travelling to Spain next week?"


def ask(
    page, message: str, history: str = "", n: int = 3, max_tokens: int | None = None, domain: str = "telecom"
) -> None:
    page.get_by_label("Domain").select_option(domain)
    page.get_by_label("Earlier messages (optional)").fill(history)
    page.get_by_label("Suggestions", exact=True).fill(str(n))
    page.get_by_label("Max tokens").fill("" if max_tokens is None else str(max_tokens))
    page.get_by_label("Customer's latest message").fill(message)
    expect(page.get_by_role("button", name="Suggest replies")).to_be_enabled()


def test_generated_suggestions_insert_by_click_and_by_shortcut(page, web_server, shot) -> None:
    page.goto(f"{web_server.url}/assist")
    ask(page, ROAMING, n=2, max_tokens=8)
    page.get_by_role("button", name="Suggest replies").click()
    items = page.locator("ol.suggestions li.suggestion")
    items.first.wait_for(timeout=180_000)
    count = items.count()
    assert 1 <= count <= 2
    texts = [t.strip() for t in items.locator(".suggestion-text").all_text_contents()]
    assert all(texts)
    assert items.locator(".source").first.get_attribute("data-source") == "llm"
    assert "generated" in items.locator(".source").first.text_content()

    expected = server_intent(web_server.url, ROAMING)
    assert page.locator("#intent .intent-label").text_content() == expected["label"]
    ranking = page.locator("ol.ranking li")
    assert ranking.count() == len(expected["ranking"])
    assert page.locator("#intent .route").get_attribute("data-route") == "llm"

    reply = page.get_by_label("Reply to the customer")
    page.get_by_role("button", name="Insert suggestion 1 into your reply").click()
    assert reply.input_value() == texts[0]
    assert page.evaluate("document.activeElement.id") == "reply"  # focus moves to the reply box for editing

    reply.press("End")
    page.keyboard.insert_text(" / ")
    page.keyboard.press(f"Alt+{count}")
    assert reply.input_value() == f"{texts[0]} / {texts[count - 1]}"
    shot(page, "inserted")


def test_canned_reply_is_marked_and_handoff_reason_shown(page, web_server, shot) -> None:
    page.goto(f"{web_server.url}/assist")
    ask(page, "I want to cancel my contract")
    page.get_by_label("Customer's latest message").press("Control+Enter")  # keyboard submit
    source = page.locator("ol.suggestions li.suggestion .source")
    expect(source).to_have_attribute("data-source", "canned")
    assert "send as written" in source.text_content()
    assert page.locator(".handoff-reason").count() == 0

    ask(
        page,
        "I want to talk to a human agent",
        history="customer: my internet keeps dropping\nagent: since when?",
    )
    page.get_by_role("button", name="Suggest replies").click()
    reason = page.locator("#intent .handoff-reason")
    expect(reason).to_have_attribute("data-reason", "customer_requested_human")
    assert "customer requested human" in reason.text_content()
    assert page.locator("#intent .route").get_attribute("data-route") == "handoff"
    shot(page, "handoff")


def test_chinese_message_and_history(page, web_server, shot) -> None:
    page.goto(f"{web_server.url}/assist")
    ask(
        page,
        "我的快递到哪了？",
        domain="ecommerce",
        history="客户：我上周买了一台手机\n客服：好的，请问有什么可以帮您？",
    )
    page.get_by_role("button", name="Suggest replies").click()
    text = page.locator("ol.suggestions li.suggestion .suggestion-text").first
    text.wait_for()
    assert has_cjk(text.text_content()) and "\ufffd" not in text.text_content()
    page.keyboard.press("Alt+1")
    assert page.get_by_label("Reply to the customer").input_value() == text.text_content()
    shot(page, "zh")
