"""The fact lead: a generated reply opens with the customer facts that answer its intent (from the prompt
library), and the engine continues after them. The real router and prompt library; a scripted fake engine
stands in for the model, which cannot be told what to write."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from serve.config import ReplySettings
from serve.generation.base import FinishReason, GenerationChunk, GenerationRequest
from serve.generation.loop_guard import LOOP, LoopGuard
from serve.prompts import PromptLibrary
from tests.api.test_reply import events_of, make_settings, open_client
from tests.fakes import ScriptedFakeGenerator

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data/eval/replies_llm.jsonl"
USAGE = {
    "domain": "telecom",
    "message": "how much data have i got left this month?",
    "context": {"plan": "Flex 5GB", "data_left": "1.4 GB"},
}
LEAD = "You're on the Flex 5GB plan and have 1.4 GB of data left this month."
MORE = "You can add a data pack in the app under My plan > Add-ons."


def words(text: str, reason: FinishReason = "stop") -> list[GenerationChunk]:
    parts = text.split(" ")
    return [
        *(GenerationChunk(w + " ") for w in parts[:-1]),
        GenerationChunk(parts[-1], reason, prompt_tokens=40, completion_tokens=len(parts)),
    ]


def continues(request: GenerationRequest) -> list[GenerationChunk]:
    return words(" " + MORE)  # an engine continuing a prefix writes the space itself


def instructed(request: GenerationRequest) -> list[GenerationChunk]:
    return words(MORE)  # a server told about the lead in words starts a fresh sentence


def repeats_the_lead(request: GenerationRequest) -> list[GenerationChunk]:
    return words(" " + MORE + " " + LEAD + " Anything else?")


async def client_for(
    tmp_path: Path, engine: ScriptedFakeGenerator, **reply: object
) -> AsyncIterator[httpx.AsyncClient]:
    async for c in open_client(
        make_settings(tmp_path, reply=ReplySettings(**{"reply_bank": False, **reply})), engine
    ):
        yield c


async def reply(client: httpx.AsyncClient, body: dict) -> tuple[list[str], dict]:
    response = await client.post("/v1/reply", json=body)
    assert response.status_code == 200, response.text
    events = events_of(response.text)
    return [d["text"] for n, d in events if n == "delta"], events[-1][1]


@pytest.mark.parametrize("script", [continues, instructed])
async def test_the_reply_opens_with_the_facts_and_the_engine_continues_after_them(
    tmp_path: Path, script
) -> None:
    engine = ScriptedFakeGenerator(script=script)
    async for client in client_for(tmp_path, engine):
        deltas, done = await reply(client, USAGE)
        assert deltas[0] == LEAD  # sent before the engine's first token
        assert "".join(deltas) == f"{LEAD} {MORE}"
        t = done["timings"]
        assert done["finish_reason"] == "stop" and t["ttft_ms"] <= t["total_ms"]
        assert engine.requests[0].prefix == LEAD


async def test_a_model_repeating_the_lead_is_stopped_as_a_loop(tmp_path: Path) -> None:
    engine = ScriptedFakeGenerator(script=repeats_the_lead)
    async for client in client_for(tmp_path, engine):
        deltas, done = await reply(client, USAGE)
        assert "".join(deltas) == f"{LEAD} {MORE}" and done["finish_reason"] == LOOP


async def test_no_lead_without_the_facts_or_when_switched_off(tmp_path: Path) -> None:
    engine = ScriptedFakeGenerator(script=instructed)
    async for client in client_for(tmp_path, engine):
        deltas, _ = await reply(client, {**USAGE, "context": {"name": "Priya"}})
        assert "".join(deltas) == MORE and engine.requests[-1].prefix == ""
    engine = ScriptedFakeGenerator(script=instructed)
    async for client in client_for(tmp_path, engine, fact_lead=False):
        deltas, _ = await reply(client, USAGE)
        assert "".join(deltas) == MORE and engine.requests[-1].prefix == ""


async def test_suggestions_open_with_the_lead_too(tmp_path: Path) -> None:
    engine = ScriptedFakeGenerator(script=instructed)
    async for client in client_for(tmp_path, engine):
        response = await client.post("/v1/suggest", json={**USAGE, "n": 2})
        assert [s["text"] for s in response.json()["suggestions"]] == [f"{LEAD} {MORE}"]


def test_the_guard_counts_the_lead_towards_the_sentence_limit() -> None:
    guard = LoopGuard("en", max_sentences=2)
    guard.seed(LEAD)
    assert guard.push(" " + MORE + " One more. ") == " " + MORE
    assert guard.tripped == "sentence_limit"


def test_every_asked_fact_of_the_reply_set_is_in_its_lead() -> None:
    """Each team-written case whose context holds the asked fact (its must_include) gets that fact from
    the lead, in both languages; a lead renders to nothing without context."""
    library = PromptLibrary.load()
    cases = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    facts = [c for c in cases if c.get("source") == "context_fact"]
    assert len(facts) >= 60 and {c["lang"] for c in facts} == {"en", "zh"}
    missing = []
    for case in facts:
        lead = library.lead(case["domain"], case["lang"], case["intent"], case["context"])
        missing += [(case["intent"], fact) for fact in case["must_include"] if fact not in lead]
        assert library.lead(case["domain"], case["lang"], case["intent"], {}) == ""
    assert not missing


async def test_a_follow_up_does_not_hear_the_same_facts_again(tmp_path: Path) -> None:
    engine = ScriptedFakeGenerator(script=instructed)
    async for client in client_for(tmp_path, engine):
        first, _ = await reply(client, {**USAGE, "session_id": "lead-once"})
        again, _ = await reply(
            client, {**USAGE, "session_id": "lead-once", "message": "and how much data is that?"}
        )
        assert first[0] == LEAD and "".join(again) == MORE  # the session's earlier reply already said it
        assert engine.requests[-1].prefix == ""
        other, _ = await reply(
            client,
            {
                **USAGE,
                "session_id": "lead-once",
                "context": {"plan": "Flex 5GB", "data_left": "0.9 GB"},
                "message": "how much data have i got left now?",
            },
        )
        assert other[0].startswith("You're on the Flex 5GB plan and have 0.9 GB")  # new facts: said again
