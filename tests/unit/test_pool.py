"""The engine pool with scripted test engines: A/B split and stickiness, failover before the first token,
no failover after it, breakers opening and closing, pinned variants, and the template last resort."""

from __future__ import annotations

import uuid
from contextlib import aclosing

import httpx
import pytest

from serve.app import create_app
from serve.breaker import Breaker
from serve.errors import BackendUnavailable, GenerationFailed, InvalidRequest
from serve.generation.base import ChatMessage, GenerationChunk, GenerationRequest
from serve.generation.pool import GeneratorPool, PoolMember, assign
from tests.conftest import lifespan, sse_json
from tests.fakes import ScriptedFakeGenerator


def member(
    name: str,
    weight: float,
    engine: ScriptedFakeGenerator | None = None,
    failures: int = 2,
    cooldown_s: float = 60.0,
) -> PoolMember:
    return PoolMember(name, engine or ScriptedFakeGenerator(name=name), weight, Breaker(failures, cooldown_s))


def request(affinity: str | None = None, variant: str | None = None) -> GenerationRequest:
    return GenerationRequest(
        f"r-{uuid.uuid4().hex[:8]}",
        (ChatMessage("user", "one two three"),),
        8,
        affinity=affinity,
        variant=variant,
    )


async def run(pool: GeneratorPool, req: GenerationRequest) -> list[GenerationChunk]:
    async with aclosing(pool.generate(req)) as chunks:
        return [c async for c in chunks]


def failing(error: Exception):
    def script(_: GenerationRequest) -> list:
        return [error]

    return script


@pytest.mark.parametrize("weights", [(50, 50), (70, 30), (90, 10)])
def test_the_split_over_1000_sessions_is_within_3_points_of_the_weights(weights) -> None:
    members = [member("a", weights[0]), member("b", weights[1])]
    sessions = [f"session-{i}" for i in range(1000)]
    share_a = sum(assign(s, members).name == "a" for s in sessions) / len(sessions)
    assert abs(share_a - weights[0] / sum(weights)) <= 0.03


async def test_assignment_is_sticky_per_session_and_recorded_on_the_final_chunk() -> None:
    pool = GeneratorPool([member("a", 1), member("b", 1)])
    for session in ("alice", "bob", "carol", "dave"):
        served = {(await run(pool, request(affinity=session)))[-1].served_by for _ in range(5)}
        assert served == {pool.variant_for(session)}


async def test_a_member_that_fails_before_its_first_token_hands_the_request_on() -> None:
    broken = ScriptedFakeGenerator(name="a", script=failing(BackendUnavailable("engine down")))
    pool = GeneratorPool([member("a", 1, broken, failures=2), member("b", 0)])
    chunks = await run(pool, request(affinity="x"))
    assert chunks[-1].served_by == "b" and chunks[-1].finish_reason == "stop"
    assert pool.members[0].failovers == 1 and not pool.members[0].breaker.is_open
    await run(pool, request(affinity="y"))
    assert pool.members[0].breaker.is_open  # the second failure opens it
    await run(pool, request(affinity="z"))
    assert len(broken.started) == 2  # open: skipped without a call


async def test_a_failure_after_the_first_token_ends_the_stream_and_is_not_retried() -> None:
    def late(_: GenerationRequest) -> list:
        return [GenerationChunk("partial "), GenerationFailed("died mid-stream")]

    a = ScriptedFakeGenerator(name="a", script=late)
    b = ScriptedFakeGenerator(name="b")
    pool = GeneratorPool([member("a", 1, a), member("b", 0, b)])
    with pytest.raises(GenerationFailed, match="died mid-stream"):
        await run(pool, request())
    assert b.started == []


async def test_closing_the_pool_stream_mid_reply_aborts_the_member_request() -> None:
    a = ScriptedFakeGenerator(name="a")
    pool = GeneratorPool([member("a", 1, a)])
    req = request()
    async with aclosing(pool.generate(req)) as chunks:
        first = await anext(chunks)
    assert first.text and first.finish_reason is None
    assert a.aborted == [req.request_id] and a.finished == []


async def test_a_bad_request_is_not_retried_on_another_member() -> None:
    a = ScriptedFakeGenerator(name="a", script=failing(InvalidRequest("prompt too long", param="messages")))
    b = ScriptedFakeGenerator(name="b")
    pool = GeneratorPool([member("a", 1, a), member("b", 1, b)])
    with pytest.raises(InvalidRequest):
        await run(pool, request(variant="a"))
    assert b.started == [] and not pool.members[0].breaker.is_open


async def test_breaker_half_opens_after_the_cooldown_and_closes_on_success() -> None:
    engine = ScriptedFakeGenerator(name="a", script=failing(BackendUnavailable("down")))
    pool = GeneratorPool([member("a", 1, engine, failures=1, cooldown_s=0.0), member("b", 0)])
    await run(pool, request())
    breaker = pool.members[0].breaker
    assert breaker.is_open and breaker.state() == "half_open"  # cooldown 0: the next request probes
    engine.script = ScriptedFakeGenerator().script
    chunks = await run(pool, request(variant="a"))
    assert chunks[-1].served_by == "a" and breaker.state() == "closed"


async def test_health_checks_open_and_close_breakers() -> None:
    engine = ScriptedFakeGenerator(name="a")
    pool = GeneratorPool([member("a", 1, engine), member("b", 1)])
    engine.healthy = False
    await pool.check_members()
    assert pool.members[0].breaker.state() == "open"
    assert pool.describe()[0]["state"] == "open" and "generator:a circuit open" in pool.degraded
    engine.healthy = True
    await pool.check_members()
    assert pool.members[0].breaker.state() == "closed"


async def test_every_member_down_raises_backend_unavailable_naming_each() -> None:
    pool = GeneratorPool(
        [
            member("a", 1, ScriptedFakeGenerator(name="a", script=failing(BackendUnavailable("x")))),
            member("b", 1, ScriptedFakeGenerator(name="b", script=failing(BackendUnavailable("y")))),
        ]
    )
    with pytest.raises(BackendUnavailable) as error:
        await run(pool, request())
    assert "a: x" in error.value.message and "b: y" in error.value.message  # in assignment order


def test_languages_are_those_every_member_declares() -> None:
    pool = GeneratorPool(
        [
            member("a", 1, ScriptedFakeGenerator(name="a", languages=("en", "zh"))),
            member("b", 1, ScriptedFakeGenerator(name="b", languages=("en",))),
        ]
    )
    assert pool.languages == ("en",)


# ------------------------------------------------------------------------------------------ through the API
LLM = {"domain": "telecom", "message": "How do I check how much mobile data I have left this month?"}


async def open_app(settings, pool):
    app = create_app(settings, generator=pool)
    async with lifespan(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            yield client


async def test_reply_records_the_variant_in_done_and_session_and_honours_a_pinned_variant(settings) -> None:
    pool = GeneratorPool([member("a", 1), member("b", 1)])
    async for client in open_app(settings, pool):
        done = (await client.post("/v1/reply", json={**LLM, "session_id": "s-1", "stream": False})).json()
        assert done["variant"] == pool.variant_for("s-1")
        session = (await client.get("/v1/sessions/s-1")).json()
        assert session["variant"] == done["variant"]
        other = "b" if done["variant"] == "a" else "a"
        pinned = (
            await client.post(
                "/v1/reply", json={**LLM, "stream": False}, headers={"x-csreply-variant": other}
            )
        ).json()
        assert pinned["variant"] == other
        unknown = await client.post("/v1/reply", json=LLM, headers={"x-csreply-variant": "nope"})
        assert unknown.status_code == 400 and "nope" in unknown.json()["error"]["message"]
        ready = (await client.get("/ready")).json()
        assert [m["name"] for m in ready["generators"]] == ["a", "b"]


async def test_with_every_generator_down_the_reply_is_the_intent_template(settings) -> None:
    down = ScriptedFakeGenerator(name="a", script=failing(BackendUnavailable("engine unreachable")))
    pool = GeneratorPool([member("a", 1, down)])
    async for client in open_app(settings, pool):
        response = await client.post("/v1/reply", json={**LLM, "stream": True})
    events, _ = sse_json(response.text)
    intent, done = events[0], events[-1]
    assert intent["route"] == "llm"
    assert done["fallback"] == "template:generator_unavailable" and done["finish_reason"] == "stop"
    assert "".join(e["text"] for e in events if "text" in e).strip()
