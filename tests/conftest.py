from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager

from serve.app import create_app
from serve.config import AdmissionSettings, GeneratorSettings, KnowledgeSettings, ReplySettings, Settings
from tests.fakes import ScriptedFakeGenerator

REPO = Path(__file__).resolve().parents[1]
REDIS_URL = os.environ.get("CSREPLY_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def redis_available() -> bool:
    """A Redis for the tests that need one; with CSREPLY_REQUIRE_REDIS set (.ci/run) its absence fails."""
    try:
        import redis

        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
        return True
    except Exception:  # noqa: BLE001
        if os.environ.get("CSREPLY_REQUIRE_REDIS"):
            raise
        return False


def lifespan(app: Any) -> LifespanManager:
    """Runs an app's startup and shutdown with time to spare on slow machines. The library's default of
    5 s was tight on a GPU host, where the api tests took about 2 s each and one app start in 270
    errored without a report we could read."""
    return LifespanManager(app, startup_timeout=60, shutdown_timeout=30)


@pytest.fixture(scope="session", autouse=True)
def retrieval_vectors() -> None:
    """The sentence vectors of the knowledge base and the reply bank, read once per test session from the
    cache `csreply prepare` filled (computed there if it did not): every test server's start-up then finds
    them in memory, although each test has its own cache_dir."""
    from serve.config import default_cache_dir
    from serve.knowledge.cli import build_indexes

    if (default_cache_dir() / "router" / "default" / "router.json").is_file():
        build_indexes(Settings(cache_dir=default_cache_dir()))


def default_router_dir() -> Path:
    """The router `csreply prepare` builds; the tests that need it fail (not skip) when it is missing."""
    from serve.config import default_cache_dir

    path = default_cache_dir() / "router" / "default"
    if not (path / "router.json").is_file():
        pytest.fail(f"{path} has no router: run `csreply prepare` (make test does) before the tests")
    return path


def parse_sse(text: str) -> list[str]:
    """The `data:` payloads of an SSE body, in order (comments and pings skipped)."""
    events: list[str] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].lstrip() for line in block.split("\n") if line.startswith("data:")]
        if data:
            events.append("\n".join(data))
    return events


def sse_json(text: str) -> tuple[list[dict[str, Any]], bool]:
    """Parsed JSON events and whether the stream ended with [DONE]."""
    payloads = parse_sse(text)
    done = bool(payloads) and payloads[-1] == "[DONE]"
    return [json.loads(p) for p in payloads if p != "[DONE]"], done


# Settings sections for tests of the per-intent routes and the generated-reply path (canned, template,
# clarify; streaming, admission, deadlines, the engine pool): no knowledge-base answers and no reply-bank
# selections, so a plain question reaches the route its intent has (tests/api/test_reply_routes.py and
# test_knowledge_reload.py cover the knowledge and bank routes).
GENERATED_ONLY: dict[str, Any] = {
    "knowledge": KnowledgeSettings(enabled=False),
    "reply": ReplySettings(reply_bank=False),
}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        cache_dir=tmp_path,
        generator=GeneratorSettings(max_concurrent_requests=8, warmup=False),
        admission=AdmissionSettings(max_queue=0),  # no queue: a request past the limit is refused at once
        **GENERATED_ONLY,
    )


@pytest.fixture
def fake_generator() -> ScriptedFakeGenerator:
    return ScriptedFakeGenerator()


@pytest.fixture
async def client(
    settings: Settings, fake_generator: ScriptedFakeGenerator
) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, generator=fake_generator)
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            yield c
