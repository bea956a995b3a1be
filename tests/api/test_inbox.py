"""The feedback inbox wired into the app (the real default router, in process): off by default it writes
nothing; on with the Redis backend, a conversation's clarify and handoff rows reach a real Redis, redacted."""

from __future__ import annotations

import json
import uuid

import pytest

from serve.config import FeedbackInboxSettings, SessionSettings
from tests.api.test_reply import fixed_reply, make_settings, open_client
from tests.conftest import REDIS_URL, redis_available
from tests.fakes import ScriptedFakeGenerator

UNSURE = ["about the thing, 11010519491231002X", "and also li.wei@example.com"]


async def send(client, message: str, session: str) -> dict:
    response = await client.post("/v1/reply", json={"domain": "telecom", "message": message, "session_id": session,
                                                    "stream": False})
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
    settings = make_settings(tmp_path, sessions=SessionSettings(backend="redis", redis_url=REDIS_URL),
                             feedback_inbox=FeedbackInboxSettings(enabled=True, backend="redis", key=key, max_rows=2))
    assert settings.inbox_redis_url == REDIS_URL  # the sessions' Redis, as none is given for the inbox
    messages = [*UNSURE, "I want to talk to a real person, call me on +86 138 1234 5678"]
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
        ("handoff", "repeated_uncertain_intent"), ("handoff", "customer_requested_human")]  # capped at the newest 2
    raw = json.dumps(stored, ensure_ascii=False)
    assert "li.wei" not in raw and "138 1234 5678" not in raw and "<email>" in raw and "<phone>" in raw
    assert f"s-{key}" not in raw  # the session id is stored as a hash only
