"""The chat widget on the demo page and embedded on other origins, in Chromium against the real server."""

from __future__ import annotations

import httpx
import pytest

from tests.browser.conftest import write_page
from tests.browser.helpers import (
    GROWTH_RECORDER,
    has_cjk,
    last_reply,
    send,
    server_intent,
    session_ids,
    wait_ready,
    wait_state,
)

pytestmark = pytest.mark.browser

ROAMING = "How do I activate roaming before travelling to Spain next week?"
HUMAN = "I want to talk to a human agent"


def test_reply_streams_into_the_page_with_intent_badge_and_latency(page, web_server, shot) -> None:
    page.goto(f"{web_server.url}/?max_tokens=16")
    wait_ready(page)
    page.evaluate(GROWTH_RECORDER)
    send(page, ROAMING)
    reply = last_reply(page)
    wait_state(reply, "done")
    shot(page, "done")

    growth = page.evaluate("window.__growth")
    streaming_lengths = sorted({g["len"] for g in growth if g["state"] == "streaming" and g["len"] > 0})
    assert len(streaming_lengths) >= 3, growth  # the text grew over several DOM updates before completion
    text = reply.locator(".cw-text").text_content()
    assert len(text) > streaming_lengths[0]

    expected = server_intent(web_server.url, ROAMING)
    badge = reply.locator(".cw-badge")
    assert badge.get_attribute("data-label") == expected["label"]
    assert f"{round(float(badge.get_attribute('data-confidence')) * 100)}%" in badge.text_content()
    assert reply.locator(".cw-route").get_attribute("data-route") == "llm"
    latency = reply.locator(".cw-latency")
    assert "first token" in latency.text_content()
    assert 0 < int(latency.get_attribute("data-ttft-ms")) <= int(latency.get_attribute("data-total-ms"))
    assert page.locator("ol[aria-live=polite]").get_attribute("aria-busy") == "false"

    # What the page shows is what the server stored for this tab's session.
    (session_id,) = session_ids(page)
    turns = httpx.get(f"{web_server.url}/v1/sessions/{session_id}", timeout=10).json()["turns"]
    assert [t["content"] for t in turns] == [ROAMING, text]


def test_session_id_is_kept_per_tab(page, web_server) -> None:
    page.goto(f"{web_server.url}/")
    wait_ready(page)
    send(page, "I want to cancel my contract")
    wait_state(last_reply(page), "done")
    (first,) = session_ids(page)
    page.reload()
    wait_ready(page)
    send(page, "I want to cancel my contract")
    wait_state(last_reply(page), "done")
    assert session_ids(page) == [first]  # a reload keeps the conversation of this tab
    turns = httpx.get(f"{web_server.url}/v1/sessions/{first}", timeout=10).json()["turns"]
    assert len(turns) == 4

    other_tab = page.context.new_page()
    other_tab.goto(f"{web_server.url}/")
    wait_ready(other_tab)
    send(other_tab, "I want to cancel my contract")
    wait_state(last_reply(other_tab), "done")
    (second,) = session_ids(other_tab)
    assert second != first


def test_handoff_shows_a_banner_with_the_reason(page, web_server, shot) -> None:
    page.goto(f"{web_server.url}/")
    wait_ready(page)
    send(page, HUMAN)
    reply = last_reply(page)
    wait_state(reply, "done")
    banner = reply.locator(".cw-handoff")
    assert banner.is_visible()
    assert banner.get_attribute("role") == "status"
    assert banner.get_attribute("data-reason") == "customer_requested_human"
    assert reply.locator(".cw-route").get_attribute("data-route") == "handoff"
    assert reply.locator(".cw-text").text_content().strip()
    shot(page, "handoff")


def test_chinese_round_trip_has_no_replacement_characters(page, web_server, shot) -> None:
    message = "我的快递到哪了？能帮我查一下吗"
    page.goto(f"{web_server.url}/?domain=ecommerce&lang=zh")
    wait_ready(page)
    send(page, message, label="您的消息")  # the widget's own strings follow data-lang
    reply = last_reply(page)
    wait_state(reply, "done")
    shot(page, "zh")
    shown = page.locator("li.user .cw-user-text").text_content()
    text = reply.locator(".cw-text").text_content()
    assert shown == message
    assert "\ufffd" not in text and has_cjk(text)
    (session_id,) = session_ids(page)
    turns = httpx.get(f"{web_server.url}/v1/sessions/{session_id}", timeout=10).json()["turns"]
    assert [t["content"] for t in turns] == [message, text]
    assert reply.locator(".cw-latency").text_content().startswith("首字")


def test_enter_during_ime_composition_does_not_send(page, web_server, shot) -> None:
    page.goto(f"{web_server.url}/?domain=ecommerce")
    wait_ready(page)
    box = page.get_by_label("Your message")
    box.focus()
    # A real composition through Chromium's IME path: keydown Enter arrives with isComposing / 229.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.imeSetComposition", {"text": "wo", "selectionStart": 2, "selectionEnd": 2})
    cdp.send(
        "Input.dispatchKeyEvent",
        {
            "type": "rawKeyDown",
            "key": "Enter",
            "code": "Enter",
            "windowsVirtualKeyCode": 229,
            "nativeVirtualKeyCode": 13,
        },
    )
    cdp.send(
        "Input.dispatchKeyEvent",
        {"type": "keyUp", "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13},
    )
    cdp.send("Input.insertText", {"text": "我"})  # the candidate is committed
    assert box.input_value() == "我"
    assert page.locator("li.user").count() == 0

    # Engines that report neither flag inside a composition (the compositionstart flag covers them),
    # and Safari's keyCode 229 Enter right after compositionend.
    key_codes = page.locator("textarea").evaluate("""(box) => {
      const enter = (init) => {
        const e = new KeyboardEvent('keydown', {key: 'Enter', bubbles: true, cancelable: true, ...init});
        box.dispatchEvent(e);
        return e.keyCode;
      };
      box.dispatchEvent(new CompositionEvent('compositionstart', {data: ''}));
      const a = enter({});
      box.dispatchEvent(new CompositionEvent('compositionend', {data: '我'}));
      const b = enter({keyCode: 229});
      return [a, b];
    }""")
    assert key_codes == [0, 229]
    assert page.locator("li.user").count() == 0

    box.press("End")
    page.keyboard.insert_text("的快递到哪了")
    box.press("Enter")
    wait_state(last_reply(page), "done")
    assert page.locator("li.user").count() == 1
    assert page.locator("li.user .cw-user-text").text_content() == "我的快递到哪了"
    shot(page, "after-ime")


def _embed_html(server_url: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Example shop</title><link rel="icon" href="data:,"></head>
<body style="font-family: sans-serif; margin: 40px">
<h1>Example shop</h1><p>A page on another origin that embeds the widget with one script tag.</p>
<script src="{server_url}/static/widget.js" data-domain="ecommerce" data-lang="auto" data-max-tokens="12"
        data-title="Shop help"></script>
</body></html>"""


def test_widget_embedded_on_another_origin_works_through_cors(page, web_server, other_origin, shot) -> None:
    url = write_page(other_origin, "shop.html", _embed_html(web_server.url))
    responses = []
    page.on("response", lambda r: responses.append(r) if r.url.endswith("/v1/reply") else None)
    page.goto(url)
    page.get_by_role("button", name="Chat with us").click()
    launcher = page.locator("button.launcher")
    assert launcher.get_attribute("aria-expanded") == "true"
    assert launcher.text_content() == "Close chat"
    wait_ready(page)
    message = "Can I change the delivery address of my order?"
    send(page, message)
    reply = last_reply(page)
    wait_state(reply, "done")
    shot(page, "embedded")

    assert page.evaluate("location.origin") == other_origin.url != web_server.url
    (response,) = responses
    assert response.status == 200
    assert response.headers["access-control-allow-origin"] == other_origin.url
    assert reply.locator(".cw-text").text_content().strip()
    expected = server_intent(web_server.url, message)
    assert reply.locator(".cw-badge").get_attribute("data-label") == expected["label"]


def test_widget_on_an_origin_not_in_cors_origins_says_it_cannot_connect(
    page, web_server, foreign_origin, shot
) -> None:
    html = _embed_html(web_server.url).replace("<script ", '<script data-open="true" ')
    url = write_page(foreign_origin, "shop.html", html)
    page.goto(url)
    notice = page.get_by_role("alert").filter(has_text="Cannot reach the assistant")
    notice.wait_for()
    assert page.locator("button.cw-send").is_disabled()
    shot(page, "blocked")
