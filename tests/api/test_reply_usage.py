"""/v1/reply counts tokens, not chunks, however the reply ends (its end, the length limit, the loop guard, the
deadline, the client leaving), in the `done` usage and in the metrics; a reply stopped at its deadline is
remembered in the session with what was streamed. A test engine whose chunks carry several tokens each (as
remote and TensorRT-LLM engines send them when the reader is behind)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from serve.app import create_app
from serve.config import ReplySettings
from serve.generation.base import FinishReason, GenerationChunk, GenerationRequest
from tests.api.test_reply import events_of, make_settings
from tests.api.test_reply_guards import GOOD, LOOP_SENTENCE
from tests.api.test_suggest import call_and_leave, metrics, sample
from tests.conftest import lifespan
from tests.fakes import ScriptedFakeGenerator
from tests.waiting import until

ROAMING = {"domain": "telecom", "message": "How do I turn on roaming for my trip?"}
TOKENS_PER_CHUNK = 3


def multi_token(text: str, reason: FinishReason) -> list[GenerationChunk]:
    """One chunk per word, each carrying 3 tokens; the final chunk has the engine's own total."""
    parts = text.split(" ")
    chunks = [GenerationChunk(w + " ", tokens=TOKENS_PER_CHUNK) for w in parts[:-1]]
    return [
        *chunks,
        GenerationChunk(
            parts[-1], reason, prompt_tokens=40, completion_tokens=len(parts) * 3, tokens=TOKENS_PER_CHUNK
        ),
    ]


def looping(_: GenerationRequest) -> list[GenerationChunk]:
    return multi_token(GOOD + LOOP_SENTENCE * 5, "length")


def complete(_: GenerationRequest) -> list[GenerationChunk]:
    return multi_token(GOOD, "stop")


def cut(_: GenerationRequest) -> list[GenerationChunk]:
    return multi_token(GOOD + " Roaming charges depend on the coun", "length")


@dataclass
class CountingTestEngine(ScriptedFakeGenerator):
    """Test double: the scripted engine, keeping the chunks it has handed out."""

    handed_chunks: list[GenerationChunk] = field(default_factory=list)

    async def generate(self, request: GenerationRequest) -> AsyncGenerator[GenerationChunk, None]:
        async for chunk in super().generate(request):
            self.handed_chunks.append(chunk)
            yield chunk

    @property
    def handed(self) -> int:
        """The tokens of the chunks handed out."""
        return sum(c.tokens or 0 for c in self.handed_chunks)


@pytest.fixture
def engine() -> CountingTestEngine:
    return CountingTestEngine(script=complete)


@pytest.fixture
async def app(tmp_path: Path, engine: CountingTestEngine) -> AsyncIterator[FastAPI]:
    app = create_app(make_settings(tmp_path, reply=ReplySettings(reply_bank=False)), generator=engine)
    async with lifespan(app):
        yield app


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


@pytest.mark.parametrize(("script", "finish"), [(looping, "loop"), (complete, "stop"), (cut, "length")])
async def test_usage_and_metrics_count_the_tokens_of_every_chunk(client, engine, script, finish) -> None:
    engine.script = script
    response = await client.post("/v1/reply", json=ROAMING)
    done = events_of(response.text)[-1][1]
    assert done["finish_reason"] == finish
    assert done["usage"]["completion_tokens"] == engine.handed > 0  # tokens, not chunks
    if finish == "loop":  # stopped by the loop guard: no final chunk, the prompt is counted here
        assert engine.aborted == engine.started
        assert 0 < done["usage"]["prompt_tokens"] != 40
    text = await metrics(client)
    assert sample(text, "csreply_generation_tokens_total", endpoint="reply") == engine.handed
    assert sample(text, "csreply_prompt_tokens_total", endpoint="reply") == done["usage"]["prompt_tokens"]


def held(tokens: int | None) -> list[GenerationChunk]:
    """A first chunk of one sentence and the next word (`tokens` tokens, or not said: counted as one), then
    the rest; the tests hold the engine after the first chunk."""
    return [
        GenerationChunk("Open the app and go to My plan. Then ", tokens=tokens)
        if tokens
        else GenerationChunk("Open the app and go to My plan. Then "),
        GenerationChunk("switch roaming on.", "stop", 40, 14),
    ]


@pytest.mark.parametrize("tokens", [None, 10])
async def test_a_client_that_leaves_mid_reply_still_counts_its_tokens(app, client, engine, tokens) -> None:
    engine.script = lambda _: held(tokens)
    engine.gate = asyncio.Event()  # the engine holds after its first chunk
    leave = asyncio.Event()
    task = asyncio.create_task(call_and_leave(app, "/v1/reply", ROAMING, leave))
    await until(lambda: len(engine.started) == 1)
    await asyncio.sleep(0.05)  # the pipeline has taken the first chunk and waits for the next
    leave.set()
    await asyncio.wait_for(task, timeout=5)
    assert engine.aborted == engine.started
    text = await metrics(client)
    assert sample(text, "csreply_request_aborts_total", endpoint="reply", reason="client_disconnect") == 1
    assert sample(text, "csreply_generation_tokens_total", endpoint="reply") == (tokens or 1)
    assert sample(text, "csreply_prompt_tokens_total", endpoint="reply") > 0


@pytest.mark.parametrize("tokens", [None, 10])
async def test_a_reply_stopped_at_its_deadline_is_saved_to_the_session_with_what_was_streamed(
    client, engine, tokens
) -> None:
    engine.script = lambda _: held(tokens)
    engine.gate = asyncio.Event()  # never set: the engine hangs after its first chunk
    response = await asyncio.wait_for(
        client.post(
            "/v1/reply", json={**ROAMING, "session_id": "late-1"}, headers={"x-csreply-timeout": "0.5"}
        ),
        timeout=5,
    )
    events = events_of(response.text)
    done = events[-1][1]
    assert events[-1][0] == "done" and done["finish_reason"] == "timeout"
    assert done["session_id"] == "late-1" and done["variant"] == "default"
    assert done["usage"]["completion_tokens"] == (tokens or 1) and done["usage"]["prompt_tokens"] > 0
    streamed = "".join(d["text"] for name, d in events if name == "delta")
    assert streamed == "Open the app and go to My plan."  # the whole sentence the guard had released
    session = await client.get("/v1/sessions/late-1")
    assert session.status_code == 200, session.text
    turns = [(t["role"], t["content"], t["route"]) for t in session.json()["turns"]]
    assert turns == [("user", ROAMING["message"], "llm"), ("assistant", streamed, "llm")]
    text = await metrics(client)
    assert sample(text, "csreply_request_timeouts_total", endpoint="reply") == 1
    assert sample(text, "csreply_generation_tokens_total", endpoint="reply") == (tokens or 1)
