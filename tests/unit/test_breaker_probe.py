"""The half-open breaker lets exactly one probe through: a burst after the cooldown sends one request to the
recovering engine (the others fail over) until that probe succeeds; a probe that fails re-opens the breaker;
a probe cut short (cancelled) frees the probe slot, so the breaker is not stuck."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass, field

import pytest

from serve.breaker import Breaker
from serve.errors import BackendUnavailable
from serve.generation.base import ChatMessage, GenerationChunk, GenerationRequest
from serve.generation.pool import GeneratorPool, PoolMember
from serve.router.fallback import FallbackRouter
from tests.fakes import ScriptedFakeGenerator, ScriptedTestRouter
from tests.waiting import until

COOLDOWN_S = 0.05


@dataclass
class RecoveringTestEngine(ScriptedFakeGenerator):
    """Test double: while `down`, fails before its first token; otherwise waits for `ready` (a recovering
    engine that is slow to answer) and then streams the echo reply."""

    down: bool = True
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    async def generate(self, request: GenerationRequest) -> AsyncGenerator[GenerationChunk, None]:
        self.started.append(request.request_id)
        if self.down:
            raise BackendUnavailable("engine down")
        await self.ready.wait()
        async for chunk in super().generate(request):
            yield chunk


def request(session: str) -> GenerationRequest:
    return GenerationRequest(
        f"r-{uuid.uuid4().hex[:8]}", (ChatMessage("user", "one two three"),), 8, affinity=session
    )


async def run(pool: GeneratorPool, req: GenerationRequest) -> str | None:
    async with aclosing(pool.generate(req)) as chunks:
        return [c async for c in chunks][-1].served_by


@pytest.fixture
async def half_open() -> tuple[GeneratorPool, RecoveringTestEngine]:
    """A pool whose member `a` (all the traffic) has just gone half-open; `b` takes failovers."""
    engine = RecoveringTestEngine(name="a")
    pool = GeneratorPool(
        [
            PoolMember("a", engine, 1, Breaker(1, COOLDOWN_S)),
            PoolMember("b", ScriptedFakeGenerator(name="b"), 0, Breaker(1, COOLDOWN_S)),
        ]
    )
    assert await run(pool, request("s")) == "b"  # a fails: its breaker opens, b answers
    await asyncio.sleep(COOLDOWN_S * 1.5)
    assert pool.members[0].breaker.state() == "half_open"
    engine.started.clear()
    engine.down = False
    return pool, engine


async def test_a_burst_after_the_cooldown_sends_one_probe_until_it_succeeds(half_open) -> None:
    pool, engine = half_open
    probe = asyncio.create_task(run(pool, request("s0")))
    await until(lambda: len(engine.started) == 1)
    burst = await asyncio.wait_for(asyncio.gather(*(run(pool, request(f"s{i}")) for i in range(1, 9))), 2)
    assert burst == ["b"] * 8 and len(engine.started) == 1  # only the probe reached the recovering engine
    engine.ready.set()
    assert await probe == "a"
    assert pool.members[0].breaker.state() == "closed"
    assert await asyncio.gather(*(run(pool, request(f"t{i}")) for i in range(4))) == ["a"] * 4


async def test_a_failed_probe_reopens_and_the_next_one_waits_for_the_cooldown(half_open) -> None:
    pool, engine = half_open
    engine.down = True
    assert await run(pool, request("s0")) == "b"
    breaker = pool.members[0].breaker
    assert breaker.state() == "open"
    assert await run(pool, request("s1")) == "b" and len(engine.started) == 1  # open again: no call
    await asyncio.sleep(COOLDOWN_S * 1.5)
    engine.down = False
    engine.ready.set()
    assert await run(pool, request("s2")) == "a" and breaker.state() == "closed"


async def test_a_cancelled_probe_frees_the_probe_slot(half_open) -> None:
    pool, engine = half_open
    probe = asyncio.create_task(run(pool, request("s0")))
    await until(lambda: len(engine.started) == 1)
    probe.cancel()
    with pytest.raises(asyncio.CancelledError):
        await probe
    breaker = pool.members[0].breaker
    assert breaker.state() == "half_open"  # neither success nor failure: the next request probes
    second = asyncio.create_task(run(pool, request("s1")))
    await until(lambda: len(engine.started) == 2)
    assert (
        await asyncio.wait_for(asyncio.gather(*(run(pool, request(f"s{i}")) for i in range(2, 6))), 2)
        == ["b"] * 4
    )
    assert len(engine.started) == 2  # again exactly one probe in flight
    engine.ready.set()
    assert await second == "a" and breaker.state() == "closed" and not breaker.probing


def test_admit_claims_the_single_probe_and_end_probe_frees_it() -> None:
    breaker = Breaker(failures_to_open=2, cooldown_s=10.0)
    assert breaker.admit(now=0.0) and breaker.admit(now=0.0)  # closed: everyone
    breaker.record_failure(now=0.0)
    breaker.record_failure(now=0.0)
    assert not breaker.admit(now=5.0)  # open
    assert breaker.admit(now=10.0) and not breaker.admit(now=10.0)  # half-open: one probe, then none
    assert breaker.allows(now=10.0)  # `allows` only says the cooldown has passed
    breaker.end_probe()
    assert breaker.admit(now=11.0)
    breaker.record_success()
    breaker.end_probe()
    assert breaker.state() == "closed" and breaker.admit(now=12.0)


class RecoveringTestRouter(ScriptedTestRouter):
    """Test double: a router backend that fails while `down`, then answers only once `ready` is set."""

    name = "recovering-test"

    def __init__(self) -> None:
        super().__init__({"hello": ("greeting_chitchat", 0.99)})
        self.down = True
        self.ready = asyncio.Event()
        self.calls = 0

    async def classify(self, texts: list[str], top_k: int = 5):  # type: ignore[override]
        self.calls += 1
        if self.down:
            raise RuntimeError("backend down")
        await self.ready.wait()
        return await super().classify(texts, top_k)


async def test_a_half_open_router_backend_gets_one_probe_and_the_burst_falls_back() -> None:
    first, second = RecoveringTestRouter(), ScriptedTestRouter({"hello": ("greeting_chitchat", 0.99)})
    chain = FallbackRouter([first, second], failures_to_open=1, cooldown_s=COOLDOWN_S)
    assert (await chain.classify(["hello"]))[0].backend == "scripted-test"  # the first fails: opened
    first.down = False
    await asyncio.sleep(COOLDOWN_S * 2)  # half-open
    probe = asyncio.create_task(chain.classify(["hello"]))
    await until(lambda: first.calls == 2)
    # without the one-probe rule the burst waits on the recovering backend (bounded: the test fails, no hang)
    burst = await asyncio.wait_for(asyncio.gather(*(chain.classify(["hello"]) for _ in range(8))), 2)
    assert first.calls == 2 and all(
        r[0].backend == "scripted-test" for r in burst
    )  # only the probe went first
    first.ready.set()
    assert (await probe)[0].backend == "recovering-test"
    assert (await chain.classify(["hello"]))[0].backend == "recovering-test"  # closed again


async def test_a_cancelled_router_probe_frees_the_slot() -> None:
    first, second = RecoveringTestRouter(), ScriptedTestRouter({"hello": ("greeting_chitchat", 0.99)})
    chain = FallbackRouter([first, second], failures_to_open=1, cooldown_s=COOLDOWN_S)
    await chain.classify(["hello"])
    first.down = False
    await asyncio.sleep(COOLDOWN_S * 2)
    probe = asyncio.create_task(chain.classify(["hello"]))
    await until(lambda: first.calls == 2)
    probe.cancel()
    with pytest.raises(asyncio.CancelledError):
        await probe
    first.ready.set()
    assert (await chain.classify(["hello"]))[0].backend == "recovering-test"  # a new probe went through
