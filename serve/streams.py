"""Per-request deadlines and shutdown for the generating endpoints.

Each admitted request gets a `StreamGuard`: the time by which it must end (the config default, or the
request's `x-csreply-timeout` header up to the configured cap). Every wait on the engine runs under
`asyncio.timeout_at` of that time, one wait at a time (never across a `yield`, where a timeout would
cancel the HTTP layer's send instead of the engine wait). The drain at shutdown moves the deadline of every
open stream to "now" with reason `shutdown`, so the streams end the same way: engine aborted, terminal
event sent.

A stream waits on its engine once per chunk, so `next` does not build an `asyncio.Timeout` (an object, a
timer in the loop's heap and its cancellation) per chunk: one timer per stream, armed at the first wait,
cancels the task only while it waits in `next`, which turns that cancellation into TimeoutError as
`asyncio.timeout` does. Once the deadline has passed, `next` takes the plain `asyncio.timeout_at` path.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Literal, TypeVar

from serve.errors import InvalidRequest

logger = logging.getLogger(__name__)

T = TypeVar("T")
StopReason = Literal["timeout", "shutdown"]
TIMEOUT_HEADER = "x-csreply-timeout"


class StreamGuard:
    __slots__ = ("registry", "deadline", "reason", "_timeout", "_timer", "_waiting", "_expired", "_fired")

    def __init__(self, registry: StreamRegistry, deadline: float) -> None:
        self.registry = registry
        self.deadline = deadline
        self.reason: StopReason | None = None
        self._timeout: asyncio.Timeout | None = None
        self._timer: asyncio.TimerHandle | asyncio.Handle | None = None  # the stream's deadline, for `next`
        self._waiting: asyncio.Task[object] | None = None  # the task waiting in `next`, if one is
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
        if self._timeout is not None and not self._timeout.expired():
            self._timeout.reschedule(self.deadline)
        if self._timer is not None and not self._expired:
            self._timer.cancel()
            self._timer = loop.call_soon(self._on_deadline)

    def stop_reason(self) -> StopReason:
        return self.reason or "timeout"

    async def next(self, events: AsyncIterator[T]) -> T:
        """The next event, or TimeoutError when the deadline passes (or the drain stops the stream)."""
        if self._expired:
            return await self._next_under_timeout(events)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_at(self.deadline, self._on_deadline)
        task = asyncio.current_task()
        assert task is not None
        cancelling = task.cancelling()
        self._waiting = task
        try:
            return await anext(events)
        except asyncio.CancelledError:
            fired, self._fired = self._fired, False
            if fired and task.uncancel() <= cancelling:
                raise TimeoutError from None
            raise
        finally:
            self._waiting = None
            if self._fired:  # the timer cancelled the task, but the wait ended otherwise: take it back
                self._fired = False
                task.uncancel()

    def _on_deadline(self) -> None:
        self._expired = True
        if self._waiting is not None:
            self._fired = True
            self._waiting.cancel()

    async def _next_under_timeout(self, events: AsyncIterator[T]) -> T:
        async with asyncio.timeout_at(self.deadline) as timeout:
            self._timeout = timeout
            try:
                return await anext(events)
            finally:
                self._timeout = None

    async def run(self, awaitable: asyncio.Future[T] | asyncio.Task[T] | object) -> T:
        """Await something under the deadline (the first event, before the stream starts)."""
        async with asyncio.timeout_at(self.deadline) as timeout:
            self._timeout = timeout
            try:
                return await awaitable  # type: ignore[misc]
            finally:
                self._timeout = None

    def done(self) -> None:
        self.registry.active.discard(self)
        if self._timer is not None:
            self._timer.cancel()


class StreamRegistry:
    """The open guards of one app: the drain stops them; the deadline settings bound new ones."""

    def __init__(self, default_s: float, max_s: float) -> None:
        self.default_s = default_s
        self.max_s = max_s
        self.active: set[StreamGuard] = set()

    def seconds(self, header: str | None) -> float:
        """The request's deadline in seconds: the header's value (capped), else the default."""
        if header is None:
            return self.default_s
        try:
            value = float(header)
        except ValueError:
            raise InvalidRequest(f"{TIMEOUT_HEADER} must be a number of seconds, got {header[:40]!r}",
                                 param=TIMEOUT_HEADER) from None
        if not value > 0 or value != value:
            raise InvalidRequest(f"{TIMEOUT_HEADER} must be above 0 seconds", param=TIMEOUT_HEADER)
        return min(value, self.max_s)

    def open(self, header: str | None) -> StreamGuard:
        guard = StreamGuard(self, asyncio.get_running_loop().time() + self.seconds(header))
        self.active.add(guard)
        return guard

    def stop_all(self, reason: StopReason = "shutdown") -> int:
        guards = list(self.active)
        for guard in guards:
            guard.stop(reason)
        if guards:
            logger.warning("server.drain_abort streams=%d reason=%s", len(guards), reason)
        return len(guards)
