"""StreamGuard.next: the deadline ends a wait on the engine with TimeoutError (and only a wait: never the
work between two waits), the drain ends the current wait at once, a cancellation from elsewhere stays a
cancellation, and a deadline that passed between two waits ends the next wait that has to wait."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import pytest

from serve.streams import StreamRegistry


class Engine:
    """Events 0, 1, 2, ... as fast as asked, or held until `release` is set; records whether it was closed."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.release.set()
        self.closed = False

    async def events(self) -> AsyncGenerator[int, None]:
        try:
            i = 0
            while True:
                await self.release.wait()
                yield i
                i += 1
        finally:
            self.closed = True


async def test_a_wait_past_the_deadline_raises_timeout_and_closes_the_engine_stream() -> None:
    registry = StreamRegistry(default_s=0.05, max_s=1.0)
    guard, engine = registry.open(None), Engine()
    events = engine.events()
    assert [await guard.next(events) for _ in range(100)] == list(range(100))  # many waits, one deadline
    engine.release.clear()
    with pytest.raises(TimeoutError):
        await guard.next(events)
    assert engine.closed and guard.stop_reason() == "timeout"
    guard.done()


async def test_the_deadline_never_cancels_work_between_two_waits() -> None:
    guard, engine = StreamRegistry(default_s=0.02, max_s=1.0).open(None), Engine()
    events = engine.events()
    assert await guard.next(events) == 0
    await asyncio.sleep(0.05)  # the deadline passes here, outside any wait: nothing is cancelled
    engine.release.clear()
    with pytest.raises(TimeoutError):  # the next wait that has to wait ends at once
        await asyncio.wait_for(guard.next(events), 1.0)
    guard.done()


async def test_the_drain_ends_the_current_wait_with_reason_shutdown() -> None:
    registry = StreamRegistry(default_s=60.0, max_s=60.0)
    guard, engine = registry.open(None), Engine()
    events = engine.events()
    assert await guard.next(events) == 0
    engine.release.clear()
    waiting = asyncio.ensure_future(guard.next(events))
    await asyncio.sleep(0.01)
    assert registry.stop_all() == 1
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(waiting, 1.0)
    assert guard.stop_reason() == "shutdown"
    guard.done()


async def test_a_cancellation_from_elsewhere_is_not_turned_into_a_timeout() -> None:
    guard, engine = StreamRegistry(default_s=60.0, max_s=60.0).open(None), Engine()
    events = engine.events()
    engine.release.clear()
    waiting = asyncio.ensure_future(guard.next(events))
    await asyncio.sleep(0.01)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    guard.done()


async def test_the_drain_wait_ends_when_the_last_stream_ends_not_at_its_timeout() -> None:
    registry = StreamRegistry(default_s=60.0, max_s=60.0)
    assert await asyncio.wait_for(registry.wait_closed(60.0), 1.0)  # nothing open: at once
    first, second = registry.open(None), registry.open(None)
    assert not await registry.wait_closed(0.01)  # still open when the time is up
    loop = asyncio.get_running_loop()
    loop.call_later(0.01, first.done)
    loop.call_later(0.02, second.done)
    started = loop.time()
    assert await registry.wait_closed(60.0)
    assert loop.time() - started < 1.0 and not registry.active
