"""A circuit breaker: opens after N consecutive failures (or when told), lets one probe through after a
cooldown (half-open), and closes on the first success. Used by the router chain and the generator pool.

`allows` only says whether the cooldown has passed. A caller that sends requests concurrently claims the
right to send with `admit`: while closed every request is admitted; half-open, exactly one (the probe) until
it ends. The probe's owner records its success or failure, and calls `end_probe` in every case, so a probe
that is cut short (cancelled, or closed before it showed either) frees the slot for the next one."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

BreakerState = Literal["closed", "open", "half_open"]


@dataclass
class Breaker:
    failures_to_open: int
    cooldown_s: float
    failures: int = 0
    opened_at: float | None = None
    trips: int = field(default=0)
    last_error: str | None = None
    probing: bool = False  # half-open: the one probe is in flight

    def allows(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        return self.opened_at is None or now - self.opened_at >= self.cooldown_s  # half-open after cooldown

    def admit(self, now: float | None = None) -> bool:
        """Claim the right to send one request: always while closed; never while open; half-open, only when no
        probe is in flight (this request becomes the probe, and its owner must call `end_probe`)."""
        if self.opened_at is None:
            return True
        if self.probing or not self.allows(now):
            return False
        self.probing = True
        return True

    def end_probe(self) -> None:
        """The probe ended (after its success or failure was recorded, or cut short with neither)."""
        self.probing = False

    def record_success(self) -> None:
        self.failures, self.opened_at, self.last_error = 0, None, None

    def record_failure(self, now: float | None = None, error: str | None = None) -> None:
        self.failures += 1
        self.last_error = error
        if self.failures >= self.failures_to_open:
            self.trip(now, error)

    def trip(self, now: float | None = None, error: str | None = None) -> None:
        """Open now (a failed health check needs no N failures); a half-open breaker re-opens."""
        if self.opened_at is None:
            self.trips += 1
        self.opened_at = time.monotonic() if now is None else now
        self.failures = max(self.failures, self.failures_to_open)
        if error is not None:
            self.last_error = error

    @property
    def is_open(self) -> bool:
        return self.opened_at is not None

    def state(self, now: float | None = None) -> BreakerState:
        if self.opened_at is None:
            return "closed"
        return "half_open" if self.allows(now) else "open"
