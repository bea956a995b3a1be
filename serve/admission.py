"""Bounded admission per endpoint: at most `limit` engine requests in flight, then a FIFO queue of at most
`max_queue` waiters who wait up to `max_wait_s`; past either bound, 429 with Retry-After (before any
stream starts). While draining for shutdown, nothing new is admitted (503).

A waiter that goes away (client disconnect cancels its handler) leaves the queue at once; a slot granted
to a waiter that was cancelled in the same instant is handed back, so no slot leaks.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import TYPE_CHECKING

from serve.errors import BackendUnavailable, Overloaded

if TYPE_CHECKING:
    from serve.metrics import Metrics


class Slot:
    """Held while a request streams; `release` is idempotent."""

    __slots__ = ("_gate", "_count", "queued_s")

    def __init__(self, gate: Gate, count: int, queued_s: float = 0.0) -> None:
        self._gate = gate
        self._count = count
        self.queued_s = queued_s

    def release(self) -> None:
        if self._count:
            count, self._count = self._count, 0
            self._gate._release(count)


class Gate:
    """One endpoint's limit and queue."""

    def __init__(
        self,
        name: str,
        limit: int,
        max_queue: int,
        max_wait_s: float,
        retry_after_s: float,
        metrics: Metrics | None = None,
    ) -> None:
        self.name = name
        self.limit = limit
        self.max_queue = max_queue
        self.max_wait_s = max_wait_s
        self.retry_after_s = retry_after_s
        self.in_flight = 0
        self.draining = False
        self._waiters: deque[tuple[int, asyncio.Future[None]]] = deque()
        self._running = metrics.running.labels(name) if metrics else None
        self._waiting = metrics.waiting.labels(name) if metrics else None
        self._rejections = metrics.rejections if metrics else None

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    def _reject(self, reason: str, message: str) -> Overloaded:
        if self._rejections is not None:
            self._rejections.labels(self.name, reason).inc()
        return Overloaded(message, retry_after=self.retry_after_s)

    async def acquire(self, count: int = 1, max_wait_s: float | None = None) -> Slot:
        if self.draining:
            if self._rejections is not None:
                self._rejections.labels(self.name, "draining").inc()
            raise BackendUnavailable("the server is shutting down; retry on another instance")
        if count > self.limit:
            raise self._reject(
                "too_large",
                f"the request needs {count} concurrent generations; this server runs at most {self.limit}",
            )
        if not self._waiters and self.in_flight + count <= self.limit:
            self._grant(count)
            return Slot(self, count)
        if len(self._waiters) >= self.max_queue:
            raise self._reject(
                "queue_full",
                f"server is at its limit of {self.limit} concurrent generations "
                f"and {self.max_queue} queued requests; retry shortly",
            )
        started = time.perf_counter()
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (count, future)
        self._waiters.append(entry)
        self._gauge()
        wait = self.max_wait_s if max_wait_s is None else min(self.max_wait_s, max_wait_s)
        try:
            await asyncio.wait_for(asyncio.shield(future), timeout=max(0.0, wait))
        except BaseException as exc:
            if future.done() and not future.cancelled() and future.exception() is None:
                self._release(count)  # granted in the same instant it was given up
            else:
                future.cancel()
                try:
                    self._waiters.remove(entry)
                except ValueError:
                    pass
                self._wake()  # a large waiter leaving may let smaller ones behind it in
            self._gauge()
            if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):  # distinct classes on Python 3.10
                raise self._reject(
                    "queue_timeout",
                    f"waited {wait:.1f}s in the queue for a free generation slot; retry shortly",
                ) from None
            raise
        self._gauge()
        return Slot(self, count, time.perf_counter() - started)

    def _grant(self, count: int) -> None:
        self.in_flight += count
        self._gauge()

    def _release(self, count: int) -> None:
        self.in_flight -= count
        self._wake()
        self._gauge()

    def _wake(self) -> None:
        while self._waiters and self.in_flight + self._waiters[0][0] <= self.limit:
            count, future = self._waiters.popleft()
            if future.done():
                continue
            self.in_flight += count
            future.set_result(None)

    def _gauge(self) -> None:
        if self._running is not None and self._waiting is not None:
            self._running.set(self.in_flight)
            self._waiting.set(len(self._waiters))


class Admission:
    """The gates of the generating endpoints (`chat` for /v1/chat/completions; `reply` for /v1/reply and
    /v1/suggest), each with the same bounds."""

    ENDPOINTS = ("chat", "reply")

    def __init__(
        self,
        limit: int,
        max_queue: int = 0,
        max_wait_s: float = 30.0,
        retry_after_s: float = 1.0,
        metrics: Metrics | None = None,
    ) -> None:
        self.limit = limit
        self.gates = {
            name: Gate(name, limit, max_queue, max_wait_s, retry_after_s, metrics) for name in self.ENDPOINTS
        }

    @property
    def in_flight(self) -> int:
        return sum(g.in_flight for g in self.gates.values())

    @property
    def waiting(self) -> int:
        return sum(g.waiting for g in self.gates.values())

    async def acquire(self, count: int = 1, endpoint: str = "chat", max_wait_s: float | None = None) -> Slot:
        return await self.gates[endpoint].acquire(count, max_wait_s)

    def drain(self) -> None:
        """Stop admitting; queued waiters are refused (they have sent nothing yet, so a 503 is clean)."""
        for gate in self.gates.values():
            gate.draining = True
            while gate._waiters:
                _, future = gate._waiters.popleft()
                if not future.done():
                    future.set_exception(
                        BackendUnavailable("the server is shutting down; retry on another instance")
                    )
            gate._gauge()
