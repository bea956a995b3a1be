"""Per-request deadlines and shutdown for the generating endpoints.

Each admitted request gets a `StreamGuard`: the time by which it must end (the config default, or the
request's `x-csreply-timeout` header up to the configured cap). Every wait on the engine (`run` for the
opening, `next` for each event) runs under that time, one wait at a time (never across a `yield`, where a
timeout would cancel the HTTP layer's send instead of the engine wait). The drain at shutdown moves the
deadline of every open stream to "now" with reason `shutdown`, so the streams end the same way: engine
aborted, terminal event sent.

A stream waits on its engine once per chunk, so a wait does not build a timeout object (an object, a timer
in the loop's heap and its cancellation) per chunk: one timer per stream, armed at the first wait, cancels
the task only while it waits, and the wait turns that cancellation into TimeoutError as `asyncio.timeout`
does. Once the deadline has passed, each wait that has to wait is cancelled at the loop's next turn.

Python 3.10 has no cancel count (`Task.cancelling`/`uncancel`, 3.11): there a cancellation from elsewhere
that lands in the same wait as the deadline's becomes TimeoutError too (the stream ends as on a timeout;
anyio's cancel scopes cancel again at the next wait).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, Literal, TypeVar

from serve.errors import InvalidRequest

logger = logging.getLogger(__name__)

T = TypeVar("T")
StopReason = Literal["timeout", "shutdown"]
TIMEOUT_HEADER = "x-csreply-timeout"


def _no_cancel_count(task: asyncio.Task[Any]) -> int:
    return 0


# Task.cancelling and Task.uncancel (3.11), called once per chunk: the methods themselves, no Python frame
_cancelling: Callable[[asyncio.Task[Any]], int] = _no_cancel_count
_uncancel: Callable[[asyncio.Task[Any]], int] = _no_cancel_count
if sys.version_info >= (3, 11):
    _cancelling, _uncancel = asyncio.Task.cancelling, asyncio.Task.uncancel


class StreamGuard:
    __slots__ = ("registry", "deadline", "reason", "_timer", "_waiting", "_expired", "_fired")

    def __init__(self, registry: StreamRegistry, deadline: float) -> None:
        self.registry = registry
        self.deadline = deadline
        self.reason: StopReason | None = None
        self._timer: asyncio.TimerHandle | asyncio.Handle | None = None  # the stream's deadline
        self._waiting: asyncio.Task[Any] | None = None  # the task waiting in `run` or `next`, if one is
        self._expired = False  # the deadline timer ran
        self._fired = False  # ... and cancelled the waiting task

    def remaining(self) -> float:
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    def stop(self, reason: StopReason) -> None:
        """End the stream at its next (or current) engine wait."""
        if self.reason is None:
            self.reason = reason
        loop = asyncio.get_running_loop()
        self.deadline = loop.time()
        if self._timer is not None and not self._expired:
            self._timer.cancel()
            self._timer = loop.call_soon(self._on_deadline)

    def stop_reason(self) -> StopReason:
        return self.reason or "timeout"

    def next(self, events: AsyncIterator[T]) -> Coroutine[Any, Any, T]:
        """The next event, or TimeoutError when the deadline passes (or the drain stops the stream)."""
        return self._wait(anext(events))  # no coroutine of its own: this runs once per chunk

    def run(self, awaitable: Awaitable[T]) -> Coroutine[Any, Any, T]:
        """Await something under the deadline (the first event, before the stream starts)."""
        return self._wait(awaitable)

    async def _wait(self, awaitable: Awaitable[T]) -> T:
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_at(self.deadline, self._on_deadline)
        elif self._expired:  # past the deadline: this wait ends at the loop's next turn if it has to wait
            self._timer.cancel()
            self._timer = asyncio.get_running_loop().call_soon(self._on_deadline)
        task = asyncio.current_task()
        assert task is not None
        cancelling = _cancelling(task)
        self._waiting = task
        try:
            return await awaitable
        except asyncio.CancelledError:
            fired, self._fired = self._fired, False
            if fired and _uncancel(task) <= cancelling:
                raise TimeoutError from None
            raise
        finally:
            self._waiting = None
            if self._fired:  # the timer cancelled the task, but the wait ended otherwise: take it back
                self._fired = False
                _uncancel(task)

    def _on_deadline(self) -> None:
        self._expired = True
        if self._waiting is not None:
            self._fired = True
            self._waiting.cancel()

    def done(self) -> None:
        self.registry.close(self)
        if self._timer is not None:
            self._timer.cancel()


class StreamRegistry:
    """The open guards of one app: the drain stops them; the deadline settings bound new ones."""

    def __init__(self, default_s: float, max_s: float) -> None:
        self.default_s = default_s
        self.max_s = max_s
        self.active: set[StreamGuard] = set()
        # set while no stream is open, so that the drain wakes when the last one ends instead of polling
        self._none_open = asyncio.Event()
        self._none_open.set()

    def seconds(self, header: str | None) -> float:
        """The request's deadline in seconds: the header's value (capped), else the default."""
        if header is None:
            return self.default_s
        try:
            value = float(header)
        except ValueError:
            raise InvalidRequest(
                f"{TIMEOUT_HEADER} must be a number of seconds, got {header[:40]!r}", param=TIMEOUT_HEADER
            ) from None
        if not value > 0 or value != value:
            raise InvalidRequest(f"{TIMEOUT_HEADER} must be above 0 seconds", param=TIMEOUT_HEADER)
        return min(value, self.max_s)

    def open(self, header: str | None) -> StreamGuard:
        guard = StreamGuard(self, asyncio.get_running_loop().time() + self.seconds(header))
        self.active.add(guard)
        self._none_open.clear()
        return guard

    def close(self, guard: StreamGuard) -> None:
        self.active.discard(guard)
        if not self.active:
            self._none_open.set()

    async def wait_closed(self, timeout_s: float) -> bool:
        """Wait up to `timeout_s` for every open stream to end; whether they all did."""
        try:
            await asyncio.wait_for(self._none_open.wait(), timeout_s)
        except asyncio.TimeoutError:  # not the builtin TimeoutError on 3.10
            pass
        return not self.active

    def stop_all(self, reason: StopReason = "shutdown") -> int:
        guards = list(self.active)
        for guard in guards:
            guard.stop(reason)
        if guards:
            logger.warning("server.drain_abort streams=%d reason=%s", len(guards), reason)
        return len(guards)
