"""The loop guard and the response cache through /v1/reply and /v1/suggest: the real router and prompt
library, a scripted fake engine standing in for the model (which cannot loop on cue)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from serve.config import ReplySettings
from serve.generation.base import FinishReason, GenerationChunk, GenerationRequest
from tests.api.test_reply import events_of, make_settings, open_client
from tests.fakes import ScriptedFakeGenerator

URL = "/v1/reply"
ROAMING = {"domain": "telecom", "message": "How do I turn on roaming for my trip?"}
GOOD = "Open the app and go to My plan > Roaming. Switch roaming on before you travel."
LOOP_SENTENCE = " You can also check the data allowance in the app's home screen or dialing *100#."


def words(text: str, reason: FinishReason) -> list[GenerationChunk]:
    parts = text.split(" ")
    chunks = [GenerationChunk(w + " ") for w in parts[:-1]]
    return [*chunks, GenerationChunk(parts[-1], reason, prompt_tokens=40, completion_tokens=len(parts))]


def looping(request: GenerationRequest) -> list[GenerationChunk]:
    return words(GOOD + LOOP_SENTENCE * 5, "length")


def complete(request: GenerationRequest) -> list[GenerationChunk]:
    return words(GOOD, "stop")


def truncated(request: GenerationRequest) -> list[GenerationChunk]:
    return words(GOOD + " Roaming charges depend on the coun", "length")


async def client_for(
    tmp_path: Path, engine: ScriptedFakeGenerator, **reply: object
) -> AsyncIterator[httpx.AsyncClient]:
    async for c in open_client(
        make_settings(tmp_path, reply=ReplySettings(**{"reply_bank": False, **reply})), engine
    ):
        yield c


async def reply(client: httpx.AsyncClient, **extra: object) -> tuple[str, dict]:
    response = await client.post(URL, json={**ROAMING, **extra})
    assert response.status_code == 200, response.text
    events = events_of(response.text)
    return "".join(d["text"] for n, d in events if n == "delta"), events[-1][1]


@pytest.mark.parametrize("script", [looping])
async def test_a_looping_reply_ends_before_the_repeat_and_the_engine_is_stopped(
    tmp_path: Path, script
) -> None:
    engine = ScriptedFakeGenerator(script=script)
    async for client in client_for(tmp_path, engine):
        text, done = await reply(client)
        assert done["finish_reason"] == "loop"
        assert text.count("*100#") == 1 and text.endswith("*100#.")
        assert engine.aborted == engine.started  # the guard closed the stream, so the engine stopped early


async def test_a_reply_cut_by_length_ends_on_its_last_full_sentence(tmp_path: Path) -> None:
    engine = ScriptedFakeGenerator(script=truncated)
    budget = len(truncated(engine.requests[0] if engine.requests else None))  # type: ignore[arg-type]
    async for client in client_for(tmp_path, engine):
        text, done = await reply(client, max_tokens=budget)  # the engine stops for length at the budget
        assert done["finish_reason"] == "length" and text == GOOD


async def test_sentence_limit_and_route_default_lengths(tmp_path: Path) -> None:
    engine = ScriptedFakeGenerator(script=complete)
    async for client in client_for(tmp_path, engine, max_sentences=1, max_tokens=96, suggest_max_tokens=48):
        text, done = await reply(client)
        assert done["finish_reason"] == "sentence_limit" and text == GOOD.split(". ")[0] + "."
        response = await client.post("/v1/suggest", json={**ROAMING, "n": 2})
        assert response.status_code == 200, response.text
        assert [r.max_new_tokens for r in engine.requests] == [96, 48, 48]
        assert all(s["text"] == GOOD.split(". ")[0] + "." for s in response.json()["suggestions"])


async def test_suggestions_end_at_a_sentence_boundary(tmp_path: Path) -> None:
    engine = ScriptedFakeGenerator(script=truncated)
    async for client in client_for(tmp_path, engine):
        response = await client.post("/v1/suggest", json={**ROAMING, "n": 2})
        assert [s["text"] for s in response.json()["suggestions"]] == [GOOD]


async def test_only_complete_replies_are_cached_and_max_tokens_is_part_of_the_key(tmp_path: Path) -> None:
    for script, cached_second in ((truncated, False), (looping, False), (complete, True)):
        engine = ScriptedFakeGenerator(script=script)
        async for client in client_for(tmp_path, engine):
            _, first = await reply(client)
            _, second = await reply(client)
            assert (first["cached"], second["cached"]) == (False, cached_second), script.__name__
            if cached_second:
                _, other_length = await reply(client, max_tokens=10)
                assert other_length["cached"] is False  # a 10-token request never gets the 96-token reply
                assert [r.max_new_tokens for r in engine.requests] == [96, 10]
