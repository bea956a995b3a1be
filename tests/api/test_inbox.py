"""The feedback inbox wired into the app (in process): off by default it writes nothing; on with the Redis
backend, a conversation's clarify and handoff rows reach a real Redis, redacted. The router is a scripted
test double here, so the rows do not depend on one router build (tests/e2e/test_inbox_live.py runs the
real one)."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest

from serve.app import create_app
from serve.config import FeedbackInboxSettings, SessionSettings
from tests.api.test_reply import fixed_reply, make_settings
from tests.conftest import REDIS_URL, lifespan, redis_available
from tests.fakes import ScriptedFakeGenerator, ScriptedTestRouter

UNSURE = ["about the thing, 11010519491231002X", "and also li.wei@example.com"]
HUMAN = "I want to talk to a real person, call me on +86 138 1234 5678"
ANSWERS = {
    UNSURE[0]: ("order_tracking", 0.3),
    UNSURE[1]: ("out_of_scope", 0.4),
    HUMAN: ("contact_human", 0.99),
}


async def open_client(settings, generator):
    app = create_app(settings, generator=generator, router=ScriptedTestRouter(ANSWERS))
    async with lifespan(app):
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as client:
            yield client


async def send(client, message: str, session: str) -> dict:
    response = await client.post(
        "/v1/reply", json={"domain": "telecom", "message": message, "session_id": session, "stream": False}
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_off_by_default_nothing_is_written(tmp_path) -> None:
    settings = make_settings(tmp_path)
    assert settings.feedback_inbox.enabled is False
    async for client in open_client(settings, ScriptedFakeGenerator(script=fixed_reply)):
        routes = [(await send(client, m, "s-off"))["intent"]["route"] for m in UNSURE]
    assert routes == ["clarify", "handoff"]
    assert not (tmp_path / "inbox").exists()
    assert not any(p.suffix == ".jsonl" for p in tmp_path.rglob("*"))


@pytest.mark.skipif(not redis_available(), reason="needs a Redis at CSREPLY_TEST_REDIS_URL")
async def test_redis_backend_receives_the_conversation_redacted_and_capped(tmp_path) -> None:
    import redis

    key = f"csreply:test:inbox:{uuid.uuid4().hex}"
    settings = make_settings(
        tmp_path,
        sessions=SessionSettings(backend="redis", redis_url=REDIS_URL),
        feedback_inbox=FeedbackInboxSettings(enabled=True, backend="redis", key=key, max_rows=2),
    )
    assert settings.inbox_redis_url == REDIS_URL  # the sessions' Redis, as none is given for the inbox
    messages = [*UNSURE, HUMAN]
    async for client in open_client(settings, ScriptedFakeGenerator(script=fixed_reply)):
        routes = [(await send(client, m, f"s-{key}"))["intent"]["route"] for m in messages]
    assert routes == ["clarify", "handoff", "handoff"]
    client_ = redis.Redis.from_url(REDIS_URL)
    try:
        stored = [json.loads(raw) for raw in client_.lrange(key, 0, -1)]
    finally:
        client_.delete(key)
        client_.close()
    assert [(r["reason"], r["handoff_reason"]) for r in stored] == [
        ("handoff", "repeated_uncertain_intent"),
        ("handoff", "customer_requested_human"),
    ]  # capped at the newest 2
    raw = json.dumps(stored, ensure_ascii=False)
    assert "li.wei" not in raw and "138 1234 5678" not in raw and "<email>" in raw and "<phone>" in raw
    assert f"s-{key}" not in raw  # the session id is stored as a hash only
