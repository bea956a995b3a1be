"""Bounded admission: at most `limit` engine requests in flight; beyond that, 429 with Retry-After."""

from __future__ import annotations

from serve.errors import Overloaded


class Slot:
    """Held while a request streams; `release` is idempotent."""

    def __init__(self, admission: Admission, count: int) -> None:
        self._admission = admission
        self._count = count

    def release(self) -> None:
        if self._count:
            self._admission._in_flight -= self._count
            self._count = 0


class Admission:
    def __init__(self, limit: int, retry_after_seconds: float = 1.0) -> None:
        self.limit = limit
        self.retry_after_seconds = retry_after_seconds
        self._in_flight = 0

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def acquire(self, count: int = 1) -> Slot:
        if self._in_flight + count > self.limit:
            raise Overloaded(
                f"server is at its limit of {self.limit} concurrent generations; retry shortly",
                retry_after=self.retry_after_seconds,
            )
        self._in_flight += count
        return Slot(self, count)
