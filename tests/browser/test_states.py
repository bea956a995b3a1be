"""How the pages degrade, in Chromium: not ready, 429 with Retry-After, an error or a lost connection
mid-stream. The server is the real app with generator.max_concurrent_requests=1 (so one held request
makes the next one a real 429) behind the test doubles of harness.py for the other states."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import HarnessServer
from tests.browser.helpers import last_reply, send, wait_ready, wait_state

pytestmark = pytest.mark.browser

ROAMING = "How do I activate roaming before travelling to Spain next week?"
CANCEL = "I want to cancel my contract"  # canned: no generation, no admission slot


@pytest.fixture
def harness(harness_server: HarnessServer) -> Iterator[HarnessServer]:
    harness_server.set_state(ready=True, fail_stream_after=None, drop_stream_after=None)
    yield harness_server
    harness_server.set_state(ready=True, fail_stream_after=None, drop_stream_after=None)


def test_not_ready_shows_why_and_recovers_on_retry(page, harness, shot) -> None:
    harness.set_state(ready=False)
    page.goto(f"{harness.url}/")
    notice = page.get_by_role("alert").filter(has_text="not ready")
    notice.wait_for()
    assert "the model is still loading" in notice.text_content() and "Retrying in" in notice.text_content()
    assert page.locator("button.cw-send").is_disabled()
    send(page, CANCEL)  # Enter while not ready keeps the text and sends nothing
    assert page.locator("li.user").count() == 0
    assert page.get_by_label("Your message").input_value() == CANCEL
    shot(page, "widget-not-ready")

    assist = page.context.new_page()
    assist.goto(f"{harness.url}/assist")
    expect(assist.locator("#notice")).to_contain_text("not ready")
    assert assist.get_by_role("button", name="Suggest replies").is_disabled()
    shot(assist, "assist-not-ready")

    harness.set_state(ready=True)
    page.get_by_role("button", name="Retry now").click()
    wait_ready(page)
    assert page.locator(".notice").is_hidden()
    page.get_by_label("Your message").press("Enter")
    wait_state(last_reply(page), "done")
    assert last_reply(page).locator(".cw-route").get_attribute("data-route") == "canned"


def test_429_waits_retry_after_then_sends_again(page, harness, shot) -> None:
    statuses: list[tuple[int, str | None]] = []
    page.on(
        "response",
        lambda r: statuses.append((r.status, r.headers.get("retry-after")))
        if r.url.endswith("/v1/reply")
        else None,
    )
    page.goto(f"{harness.url}/?max_tokens=8")
    wait_ready(page)
    # Hold the only generation slot with a long reply that is not read until the test lets it go.
    with httpx.stream(
        "POST",
        f"{harness.url}/v1/reply",
        timeout=120,
        json={"domain": "telecom", "message": ROAMING, "max_tokens": 1000},
    ) as held:
        assert held.status_code == 200
        lines = held.iter_lines()
        assert next(line for line in lines if line.startswith("event:")) == "event: intent"
        send(page, ROAMING)
        busy = last_reply(page).locator(".cw-busy")
        busy.wait_for()
        assert "busy" in busy.text_content() and "1 s" in busy.text_content()
        assert busy.get_attribute("role") == "alert"
        assert (429, "1") in statuses
        shot(page, "busy")

        assist = page.context.new_page()
        assist.goto(f"{harness.url}/assist")
        assist.get_by_label("Customer's latest message").fill(ROAMING)
        assist.get_by_label("Suggestions", exact=True).fill("1")
        assist.get_by_label("Max tokens").fill("8")
        assist.get_by_role("button", name="Suggest replies").click()
        expect(assist.locator("#notice")).to_contain_text("busy")
        shot(assist, "assist-busy")
    # The held stream is closed: the server frees the slot and the widget's next retry goes through.
    wait_state(last_reply(page), "done")
    assert last_reply(page).locator(".cw-text").text_content().strip()
    assert statuses[-1] == (200, None)
    expect(assist.locator("ol.suggestions li.suggestion")).to_have_count(1, timeout=120_000)


def test_stream_error_keeps_the_partial_reply_and_offers_retry(page, harness, shot) -> None:
    page.goto(f"{harness.url}/?max_tokens=12")
    wait_ready(page)
    harness.set_state(fail_stream_after=3)
    send(page, ROAMING)
    failed = page.locator("li.bot").first  # a locator is lazy: .last would move to the retried reply
    wait_state(failed, "incomplete")
    partial = failed.locator(".cw-text").text_content()
    assert partial.strip()
    error = failed.locator(".cw-error")
    assert "stopped early" in error.text_content() and "injected by the test double" in error.text_content()
    shot(page, "stream-error")

    error.get_by_role("button", name="Retry").click()
    wait_state(last_reply(page), "done")
    assert page.locator("li.bot").count() == 2
    assert failed.locator(".cw-text").text_content() == partial  # the partial reply is kept


def test_connection_lost_mid_stream_keeps_the_partial_reply(page, harness, shot) -> None:
    page.goto(f"{harness.url}/?max_tokens=12")
    wait_ready(page)
    harness.set_state(drop_stream_after=3)
    send(page, ROAMING)
    failed = page.locator("li.bot").first  # a locator is lazy: .last would move to the retried reply
    wait_state(failed, "incomplete")
    assert failed.locator(".cw-text").text_content().strip()
    assert "connection was lost" in failed.locator(".cw-error").text_content()
    shot(page, "connection-lost")
    failed.get_by_role("button", name="Retry").click()
    wait_state(last_reply(page), "done")
