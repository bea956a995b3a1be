"""/v1/suggest under the same guard as /v1/reply: the deadline (504, engine work aborted, slot freed), the
client leaving (generations cancelled), the drain (503), one failing generation (the others cancelled, the
error mapped, nothing left running), and the metrics observer. The real router and prompt library, a test
engine that holds its generations open on cue."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from prometheus_client.parser import text_string_to_metric_families
from starlette.types import Message

from serve.app import create_app
from serve.errors import GenerationFailed
from serve.generation.base import GenerationChunk, GenerationRequest
from tests.api.test_reply import make_settings
from tests.conftest import lifespan
from tests.fakes import ScriptedFakeGenerator
from tests.waiting import until

SUGGEST = {"domain": "telecom", "message": "How do I turn on roaming for my trip?", "n": 3}


@dataclass
class HeldTestEngine(ScriptedFakeGenerator):
    """Test double: every generation sends one chunk, then waits for `release` before it ends (5 tokens in
    all, by its final count); with `fail_first`, the first generation to start fails mid-stream once the
    others are running. Its chunks do not say how many tokens they carry (counted as one each)."""

    release: asyncio.Event = field(default_factory=asyncio.Event)
    fail_first: bool = False

    async def generate(self, request: GenerationRequest) -> AsyncGenerator[GenerationChunk, None]:
        index = len(self.started)
        self.started.append(request.request_id)
        self.requests.append(request)
        done = False
        try:
            yield GenerationChunk("Open My plan ")
            if self.fail_first and index == 0:
                await until(lambda: len(self.started) >= 3)
                raise GenerationFailed("engine died mid-stream")
            await self.release.wait()
            yield GenerationChunk("> Roaming.", "stop", prompt_tokens=20, completion_tokens=5)
            done = True
            self.finished.append(request.request_id)
        finally:
            if not done:
                self.aborted.append(request.request_id)


@pytest.fixture
def engine() -> HeldTestEngine:
    return HeldTestEngine()


@pytest.fixture
async def app(tmp_path: Path, engine: HeldTestEngine) -> AsyncIterator[FastAPI]:
    app = create_app(make_settings(tmp_path), generator=engine)
    async with lifespan(app):
        yield app


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


def sample(text: str, name: str, **labels: str) -> float:
    """The sum of a metric's samples whose labels include `labels`."""
    total = 0.0
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                total += s.value
    return total


async def metrics(client: httpx.AsyncClient) -> str:
    return (await client.get("/metrics")).text


async def nothing_left_running(client: httpx.AsyncClient, engine: HeldTestEngine) -> None:
    ready = (await client.get("/ready")).json()
    assert ready["in_flight"] == 0 and ready["waiting"] == 0  # the admission slot came back
    assert engine.stats().active_requests == 0  # no generation leaked
    assert sorted(engine.aborted) == sorted(engine.started)


async def test_the_deadline_cancels_the_generations_and_answers_504(client, engine) -> None:
    before = await metrics(client)
    response = await asyncio.wait_for(
        client.post("/v1/suggest", json=SUGGEST, headers={"x-csreply-timeout": "0.3"}), timeout=5
    )
    assert response.status_code == 504, response.text
    assert response.json()["error"]["type"] == "timeout"
    assert len(engine.started) == 3
    await nothing_left_running(client, engine)
    after = await metrics(client)
    assert (
        sample(after, "csreply_request_timeouts_total", endpoint="reply")
        == sample(before, "csreply_request_timeouts_total", endpoint="reply") + 1
    )
    assert sample(after, "csreply_requests_total", endpoint="reply", route="llm", status="timeout") == 1
    assert sample(after, "csreply_generation_tokens_total", endpoint="reply") == 3  # one chunk each


async def test_the_drain_stops_a_suggest_with_503(app, client, engine) -> None:
    task = asyncio.create_task(client.post("/v1/suggest", json=SUGGEST))
    await until(lambda: len(engine.started) == 3)
    app.state.ops.streams.stop_all("shutdown")
    response = await asyncio.wait_for(task, timeout=5)
    assert response.status_code == 503 and "shutting down" in response.json()["error"]["message"]
    await nothing_left_running(client, engine)
    assert (
        sample(await metrics(client), "csreply_request_aborts_total", endpoint="reply", reason="shutdown")
        == 1
    )


async def call_and_leave(
    app: FastAPI, path: str, payload: dict[str, Any], leave: asyncio.Event
) -> list[Message]:
    """One request through the whole ASGI stack (middleware included) from a client that disconnects when
    `leave` is set."""
    body = json.dumps(payload).encode()
    sent: list[Message] = []
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await leave.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"test"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("test", 80),
    }
    await app(scope, receive, send)
    return sent


async def test_a_client_that_leaves_cancels_every_generation(app, client, engine) -> None:
    leave = asyncio.Event()
    task = asyncio.create_task(call_and_leave(app, "/v1/suggest", SUGGEST, leave))
    await until(lambda: len(engine.started) == 3)
    leave.set()
    sent = await asyncio.wait_for(task, timeout=5)
    assert not any(m["type"] == "http.response.start" for m in sent)  # nothing is answered to a client gone
    await nothing_left_running(client, engine)
    text = await metrics(client)
    assert sample(text, "csreply_request_aborts_total", endpoint="reply", reason="client_disconnect") == 1
    assert sample(text, "csreply_requests_total", endpoint="reply", route="llm", status="aborted") == 1


async def test_one_failing_generation_cancels_the_others_and_is_the_answer(client, engine) -> None:
    engine.fail_first = True
    response = await asyncio.wait_for(client.post("/v1/suggest", json=SUGGEST), timeout=5)
    assert response.status_code == 500, response.text
    assert response.json()["error"] == {
        "type": "generation_failed",
        "message": "engine died mid-stream",
        "param": None,
    }
    assert len(engine.started) == 3 and engine.finished == []
    await nothing_left_running(client, engine)  # the two others were cancelled, not left waiting
    text = await metrics(client)
    assert sample(text, "csreply_requests_total", endpoint="reply", route="llm", status="error") == 1


async def test_a_suggest_is_observed_with_its_route_and_tokens(client, engine) -> None:
    engine.release.set()
    response = await client.post("/v1/suggest", json=SUGGEST)
    assert response.status_code == 200, response.text
    assert [s["text"] for s in response.json()["suggestions"]] == [
        "Open My plan > Roaming."
    ]  # duplicates merged
    text = await metrics(client)
    assert (
        sample(
            text,
            "csreply_requests_total",
            endpoint="reply",
            intent="roaming_international",
            route="llm",
            status="ok",
        )
        == 1
    )
    assert (
        sample(text, "csreply_generation_tokens_total", endpoint="reply") == 15
    )  # 3 suggestions of 5 tokens
    assert sample(text, "csreply_prompt_tokens_total", endpoint="reply") == 20  # one prompt, as for n choices
    assert sample(text, "csreply_router_latency_seconds_count") == 1
