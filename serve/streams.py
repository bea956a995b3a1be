"""Per-request deadlines and shutdown for the generating endpoints.

Each admitted request gets a `StreamGuard`: the time by which it must end (the config default, or the
request's `x-csreply-timeout` header up to the configured cap). Every wait on the engine runs under
`asyncio.timeout_at` of that time, one wait at a time (never across a `yield`, where a timeout would
cancel the HTTP layer's send instead of the engine wait). The drain at shutdown moves the deadline of every
open stream to "now" with reason `shutdown`, so the streams end the same way: engine aborted, terminal
event sent.
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
    __slots__ = ("registry", "deadline", "reason", "_timeout")

    def __init__(self, registry: StreamRegistry, deadline: float) -> None:
        self.registry = registry
        self.deadline = deadline
        self.reason: StopReason | None = None
        self._timeout: asyncio.Timeout | None = None

    def remaining(self) -> float:
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    def stop(self, reason: StopReason) -> None:
        """End the stream at its next (or current) engine wait."""
        if self.reason is None:
            self.reason = reason
        self.deadline = asyncio.get_running_loop().time()
        if self._timeout is not None and not self._timeout.expired():
            self._timeout.reschedule(self.deadline)

    def stop_reason(self) -> StopReason:
        return self.reason or "timeout"

    async def next(self, events: AsyncIterator[T]) -> T:
        """The next event, or TimeoutError when the deadline passes (or the drain stops the stream)."""
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
