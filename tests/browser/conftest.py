"""Chromium (Debian's, headless) driven by Playwright against real uvicorn servers and the real models.

Servers: `web_server` is `csreply run` with CORS for one static origin; `harness_server` is the same app
with generator.max_concurrent_requests=1 (a held request makes the next one 429) behind the test
doubles of harness.py. `other_origin` / `foreign_origin` are plain static file servers on other ports
(the first allowed by server.cors_origins, the second not). Screenshots go to tests/browser/artifacts/.
"""

from __future__ import annotations

import functools
import http.server
import importlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import httpx
import pytest

from serve.config import SMOLLM2_DIRNAME, default_cache_dir
from tests.conftest import REPO, default_router_dir
from tests.e2e.conftest import (
    GENERATED_ONLY_ENV,
    STARTUP_DEADLINE_S,
    LiveServer,
    free_port,
    start_server,
    stop_server,
)

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
# Short replies keep generation to seconds on a shared 2-core CPU; no cache, so a reply always streams.
SERVER_ENV = {"CSREPLY_CACHE__BACKEND": "off", "CSREPLY_GENERATOR__WARMUP": "false", **GENERATED_ONLY_ENV}


@dataclass
class StaticSite:
    url: str
    root: Path


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


def _static_site(root: Path) -> Iterator[StaticSite]:
    port = free_port()
    handler = functools.partial(_QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield StaticSite(f"http://127.0.0.1:{port}", root)
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="session")
def other_origin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StaticSite]:
    yield from _static_site(tmp_path_factory.mktemp("other-origin"))


@pytest.fixture(scope="session")
def foreign_origin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StaticSite]:
    yield from _static_site(tmp_path_factory.mktemp("foreign-origin"))


@pytest.fixture(scope="session")
def web_server(tmp_path_factory: pytest.TempPathFactory, other_origin: StaticSite) -> Iterator[LiveServer]:
    default_router_dir()
    env = {**SERVER_ENV, "CSREPLY_SERVER__CORS_ORIGINS": json.dumps([other_origin.url])}
    server = start_server(tmp_path_factory.mktemp("web-server") / "server.log", env)
    try:
        yield server
    finally:
        stop_server(server)


@dataclass
class HarnessServer(LiveServer):
    def set_state(self, **state: object) -> None:
        httpx.post(f"{self.url}/__double__/state", json=state, timeout=10).raise_for_status()


@pytest.fixture(scope="session")
def harness_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HarnessServer]:
    default_router_dir()
    port = free_port()
    log = tmp_path_factory.mktemp("harness-server") / "server.log"
    # The base SmolLM2 without the loop guard: its replies run to max_tokens, so a request can hold the one
    # generation slot (429) or stream long enough to lose its connection mid-way.
    env = {
        **os.environ,
        **SERVER_ENV,
        "CSREPLY_LOGGING__JSON_FORMAT": "false",
        "CSREPLY_GENERATOR__MAX_CONCURRENT_REQUESTS": "1",
        "CSREPLY_ADMISSION__MAX_QUEUE": "0",  # full: 429
        "CSREPLY_REPLY__LOOP_GUARD": "false",
        "CSREPLY_GENERATOR__MODEL_DIR": str(default_cache_dir() / "models" / SMOLLM2_DIRNAME),
    }
    with open(log, "wb") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.browser.harness", str(port)],
            cwd=REPO,
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
        )
    server = HarnessServer(f"http://127.0.0.1:{port}", process, log)
    deadline = time.monotonic() + STARTUP_DEADLINE_S
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"harness exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{server.url}/ready", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            stop_server(server)
            raise RuntimeError(f"harness not ready after {STARTUP_DEADLINE_S}s:\n{log.read_text()[-3000:]}")
        time.sleep(0.25)  # waiting for a subprocess to listen; no test asserts on time here
    try:
        yield server
    finally:
        stop_server(server)


def browser_or_skip() -> ModuleType:
    """Playwright's sync API, once Debian's chromium and Playwright are there. Without them the browser tests
    skip, or fail with CSREPLY_REQUIRE_BROWSER set (.ci/run sets it), so CI cannot pass by skipping them."""
    if not CHROMIUM.is_file():
        _browser_missing(
            f"Debian's chromium is not installed at {CHROMIUM} (apt-get install chromium; .ci/run does)"
        )
    try:
        return importlib.import_module("playwright.sync_api")
    except ImportError as exc:
        _browser_missing(f"Playwright cannot be imported ({exc}; it is in the dev extra)")


def _browser_missing(what: str) -> NoReturn:
    if os.environ.get("CSREPLY_REQUIRE_BROWSER"):
        pytest.fail(f"{what}; CSREPLY_REQUIRE_BROWSER is set, so the browser tests must run")
    pytest.skip(what)


# Module scope, not session: while sync_playwright is open its event loop runs in this thread, and the
# async tests collected after the browser tests (pytest-asyncio) could not start theirs.
@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    playwright_sync = browser_or_skip()
    with playwright_sync.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture
def page(browser, request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """A fresh context per test (its own sessionStorage), console errors printed when a test fails."""
    context = browser.new_context(viewport={"width": 1200, "height": 900}, locale="en-US")
    context.set_default_timeout(60_000)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: console.append(f"pageerror: {error}"))
    yield page
    if console:
        print(f"browser console of {request.node.name}:\n  " + "\n  ".join(console))
    context.close()


@pytest.fixture
def shot(request: pytest.FixtureRequest) -> Callable[..., Path]:
    """shot(page, "label") saves tests/browser/artifacts/<test>-<label>.png and prints where."""
    ARTIFACTS.mkdir(exist_ok=True)

    def take(page, label: str, full_page: bool = True) -> Path:  # type: ignore[no-untyped-def]
        path = ARTIFACTS / f"{request.node.name}-{label}.png".replace("/", "_")
        page.screenshot(path=str(path), full_page=full_page)
        print(f"screenshot: {path}")
        return path

    return take


def write_page(site: StaticSite, name: str, html: str) -> str:
    (site.root / name).write_text(html, encoding="utf-8")
    return f"{site.url}/{name}"
