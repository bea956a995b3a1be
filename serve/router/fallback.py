"""The router fallback chain (tensorrt -> onnx -> rules) with a circuit breaker per backend."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import numpy as np

from serve.breaker import Breaker
from serve.errors import BackendUnavailable
from serve.router.base import IntentClassifier, IntentResult
from serve.router.model import ModelRouter

logger = logging.getLogger(__name__)


class FallbackRouter:
    """Tries each backend in order; a failing one is skipped while its breaker is open."""

    def __init__(
        self, chain: list[IntentClassifier], failures_to_open: int = 3, cooldown_s: float = 30.0
    ) -> None:
        if not chain:
            raise ValueError("the router chain is empty")
        # chain and breakers change together (a hot swap), so they are one tuple read once per call
        self._members = (chain, [Breaker(failures_to_open, cooldown_s) for _ in chain])
        self.labels = chain[0].labels

    @property
    def chain(self) -> list[IntentClassifier]:
        return self._members[0]

    @property
    def breakers(self) -> list[Breaker]:
        return self._members[1]

    def adopt(self, other: FallbackRouter) -> list[IntentClassifier]:
        """Serve with `other`'s backends from the next call on (a hot swap: calls in flight finish on the old
        ones); returns the old backends for the caller to close."""
        old = self.chain
        self._members = other._members
        self.labels = other.labels
        return old

    @property
    def name(self) -> str:
        return self.chain[0].name

    @property
    def degraded(self) -> list[str]:
        return [
            f"router:{b.name} circuit open"
            for b, br in zip(self.chain, self.breakers, strict=True)
            if br.is_open
        ]

    async def classify(self, texts: list[str], top_k: int = 5) -> list[IntentResult]:
        last_error: Exception | None = None
        chain, breakers = self._members
        for backend, breaker in zip(chain, breakers, strict=True):
            now = time.monotonic()
            probe = breaker.is_open
            if not breaker.admit(now):  # open, or half-open with its one probe in flight: the next backend
                continue
            try:
                results = await backend.classify(texts, top_k)
            except Exception as exc:  # noqa: BLE001 - any backend failure moves on down the chain
                breaker.record_failure(now)
                logger.warning("router.backend_failed backend=%s error=%s", backend.name, exc)
                last_error = exc
                continue
            finally:
                if probe:
                    breaker.end_probe()
            breaker.record_success()
            return results
        raise BackendUnavailable(f"the intent router is unavailable: every backend failed ({last_error})")

    def vector_model(self) -> tuple[Callable[[list[str]], np.ndarray | None], str] | None:
        """The first backend that gives sentence vectors, as (embed, space), for the retrieval indexes; the
        query vectors come from the same backend whenever it classifies."""
        for backend in self.chain:
            if isinstance(backend, ModelRouter) and backend.space is not None:
                return backend.embed, backend.space
        return None

    async def check_health(self) -> None:
        await self.chain[0].check_health()

    async def aclose(self) -> None:
        for backend in self.chain:
            await backend.aclose()
