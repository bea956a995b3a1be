"""Small Playwright helpers shared by the browser tests (CSS locators pierce the widget's shadow root)."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import expect

# Records the reply's text length at every DOM mutation of the widget, with the reply's state then.
GROWTH_RECORDER = """() => {
  const host = [...document.querySelectorAll('*')].find(e => e.csreplyWidget);
  const log = host.shadowRoot.querySelector('ol');
  window.__growth = [];
  new MutationObserver(() => {
    const items = log.querySelectorAll('li.bot');
    const last = items[items.length - 1];
    if (last) window.__growth.push({len: last.querySelector('.cw-text').textContent.length,
                                    state: last.dataset.state});
  }).observe(log, {subtree: true, childList: true, characterData: true, attributes: true});
}"""

SESSION_ID = """() => Object.entries(sessionStorage)
  .filter(([k]) => k.startsWith('csreply.session.')).map(([, v]) => v)"""


def wait_ready(page: Any) -> None:
    page.locator(".status[data-state=ready]").wait_for()


def wait_state(reply: Any, state: str, timeout_s: float = 120) -> None:
    """Until the reply's data-state is `state` (streaming, waiting, done, error, incomplete)."""
    expect(reply).to_have_attribute("data-state", state, timeout=timeout_s * 1000)


def send(page: Any, text: str, label: str = "Your message") -> None:
    box = page.get_by_label(label)
    box.fill(text)
    box.press("Enter")


def last_reply(page: Any) -> Any:
    return page.locator("li.bot").last


def session_ids(page: Any) -> list[str]:
    return list(page.evaluate(SESSION_ID))


def server_intent(url: str, text: str) -> dict[str, Any]:
    response = httpx.post(f"{url}/v1/intent", json={"text": text}, timeout=30)
    response.raise_for_status()
    return dict(response.json())


def has_cjk(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)
