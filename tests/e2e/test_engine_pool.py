"""The engine pool with real processes: two csreply servers act as remote engines (their own
/v1/chat/completions, streaming the paced FastTestEngine), a third serves /v1/reply through the `openai`
backend. One engine is killed under load: no request that had not started fails, streams in flight on it
end with an `error` event, its breaker opens, and closes again once it is back. Two frontends sharing one
Redis carry a conversation between them."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import yaml

from tests.conftest import REDIS_URL, redis_available
from tests.e2e.conftest import LiveServer, start_server, stop_server

TOKENS = 40
DELAY_MS = 30  # 40 tokens at 30 ms: a stream lasts about 1.2 s, long enough to be cut mid-way
LLM_MESSAGE = "How do I check how much mobile data I have left this month?"


@dataclass
class StreamRecord:
    text: str = ""
    deltas: int = 0
    terminal: str | None = None
    data: dict = field(default_factory=dict)


def start_engine(tmp_path: Path, label: str, port: int | None = None) -> LiveServer:
    return start_server(
        tmp_path / f"engine-{label}.log",
        {"CSREPLY_GENERATOR__WARMUP": "false"},
        port=port,
        module="tests.fast_engine",
        args=["--tokens", str(TOKENS), "--delay-ms", str(DELAY_MS), "--label", label],
    )


def frontend_config(tmp_path: Path, name: str, engines: list[LiveServer], extra: dict | None = None) -> Path:
    config = {
        "generators": [
            {
                "name": "remote",
                "backend": "openai",
                "model": "fast-test-model",
                "languages": ["en"],
                "base_urls": [f"{e.url}/v1" for e in engines],
                "health_interval_s": 0.3,
                "failures_to_open": 1,
                "cooldown_s": 1.0,
                "read_timeout_s": 10,
            }
        ],
        "cache": {"backend": "off"},
        "generator": {"max_concurrent_requests": 256},
        # the generated-reply path: the question would otherwise be answered from the knowledge base
        "knowledge": {"enabled": False},
        "reply": {"reply_bank": False},
        **(extra or {}),
    }
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


async def stream_reply(client: httpx.AsyncClient, session: str, records: dict[str, StreamRecord]) -> None:
    record = records[session] = StreamRecord()
    body = {"domain": "telecom", "message": LLM_MESSAGE, "session_id": session, "stream": True}
    async with client.stream("POST", "/v1/reply", json=body) as response:
        assert response.status_code == 200, await response.aread()
        event = None
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event:
                data = json.loads(line[5:].strip())
                if event == "delta":
                    record.text += data["text"]
                    record.deltas += 1
                elif event in ("done", "error"):
                    record.terminal, record.data = event, data


def upstream_states(frontend: LiveServer) -> dict[str, str]:
    ready = httpx.get(f"{frontend.url}/ready", timeout=5).json()
    return {u["base_url"]: u["state"] for u in ready["generators"][0]["upstreams"]}


async def wait_for(predicate, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.1)
    return predicate()


async def test_killing_one_remote_engine_under_load(tmp_path: Path) -> None:
    engine_a, engine_b = start_engine(tmp_path, "a"), start_engine(tmp_path, "b")
    frontend = start_server(
        tmp_path / "frontend.log",
        args=["--config", str(frontend_config(tmp_path, "f", [engine_a, engine_b]))],
    )
    try:
        records: dict[str, StreamRecord] = {}
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(base_url=frontend.url, timeout=30, limits=limits) as client:
            before = [asyncio.create_task(stream_reply(client, f"before-{i}", records)) for i in range(16)]
            assert await wait_for(lambda: sum(r.deltas > 2 for r in records.values()) >= 12, 30)
            started_at_kill = {s for s, r in records.items() if r.deltas > 0}
            os.kill(engine_a.process.pid, signal.SIGKILL)
            engine_a.process.wait(timeout=10)
            after = [asyncio.create_task(stream_reply(client, f"after-{i}", records)) for i in range(12)]
            await asyncio.wait_for(asyncio.gather(*before, *after), 60)

        assert all(r.terminal in ("done", "error") for r in records.values()), (
            "a stream ended without done/error"
        )
        failed = {s for s, r in records.items() if r.terminal == "error"}
        assert failed, "engine a was serving some streams when it was killed"
        assert failed <= started_at_kill, f"requests that had not started failed: {failed - started_at_kill}"
        for session in failed:  # only streams that were on the killed engine, cut mid-way
            assert (
                records[session].text.startswith("a0 ")
                and records[session].data["error"]["type"] == "generation_failed"
            )
        for session in (s for s in records if s.startswith("after-")):
            record = records[session]
            assert record.terminal == "done" and record.data["finish_reason"] == "stop"
            assert record.text.split() == [f"b{i}" for i in range(TOKENS)]  # all served by the live engine
            assert record.data["variant"] == "remote"

        a_url = f"{engine_a.url}/v1"
        assert await wait_for(lambda: upstream_states(frontend)[a_url] in ("open", "half_open"), 5)
        revived = start_engine(tmp_path, "a", port=int(engine_a.url.rsplit(":", 1)[1]))
        try:
            assert await wait_for(lambda: upstream_states(frontend)[a_url] == "closed", 15), (
                "breaker never closed"
            )
            records.clear()
            async with httpx.AsyncClient(base_url=frontend.url, timeout=30) as client:
                await asyncio.gather(*(stream_reply(client, f"back-{i}", records) for i in range(6)))
            assert any(r.text.startswith("a0 ") for r in records.values()), (
                "the revived engine took no traffic"
            )
            assert all(r.terminal == "done" for r in records.values())
        finally:
            stop_server(revived)
    finally:
        for server in (frontend, engine_a, engine_b):
            if server.process.poll() is None:
                stop_server(server)


@pytest.mark.skipif(not redis_available(), reason=f"no Redis at {REDIS_URL} (.ci/run starts one)")
def test_two_frontends_on_one_redis_share_a_conversation(tmp_path: Path) -> None:
    import redis

    redis.Redis.from_url(REDIS_URL).delete("csreply:session:moving-conversation")
    engine = start_engine(tmp_path, "e")
    shared = {"sessions": {"backend": "redis", "redis_url": REDIS_URL}}
    frontends = [
        start_server(
            tmp_path / f"front-{i}.log",
            args=["--config", str(frontend_config(tmp_path, f"front-{i}", [engine], shared))],
        )
        for i in range(2)
    ]
    try:
        turns = ["My mobile internet stopped working this morning", "I already restarted it", "still nothing"]
        intents = []
        for i, message in enumerate(turns):
            front = frontends[i % 2]
            reply = httpx.post(
                f"{front.url}/v1/reply",
                timeout=30,
                json={
                    "domain": "telecom",
                    "message": message,
                    "session_id": "moving-conversation",
                    "stream": False,
                },
            )
            assert reply.status_code == 200, reply.text
            intents.append(reply.json()["intent"])
        assert intents[0]["label"] == "network_fault" and not intents[0]["uncertain"]
        for follow_up in intents[1:]:  # answered by the other process, which only knows the turns from Redis
            assert follow_up["label"] == "network_fault"
            assert follow_up["carried_over"] is True or follow_up["uncertain"] is False
        session = httpx.get(f"{frontends[1].url}/v1/sessions/moving-conversation", timeout=5).json()
        assert [t["role"] for t in session["turns"]] == ["user", "assistant"] * 3
        assert [t["content"] for t in session["turns"][::2]] == turns
    finally:
        for server in (*frontends, engine):
            stop_server(server)
