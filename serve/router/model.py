"""Shared logic of the model backends (onnx, tensorrt): encode, run logits, calibrate, decide, micro-batch."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from serve.router.base import IntentResult, Thresholds, decide, ensemble_scores, softmax
from serve.router.batching import MicroBatcher
from serve.router.encoding import TextEncoder, detect_lang, normalize
from serve.router.lexical import LexicalHead


class LogitsSession(Protocol):
    def logits(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True, slots=True)
class Calibration:
    """How logits become probabilities: BERT softmax temperature, and optionally the lexical ensemble."""

    temperature: float = 1.0
    lexical: LexicalHead | None = None
    lexical_weight: float = 0.0
    combined_temperature: float = 1.0

    def probabilities(self, logits: np.ndarray, texts: list[str]) -> np.ndarray:
        if self.lexical is None or self.lexical_weight == 0:
            return softmax(logits, self.temperature)
        scores = ensemble_scores(logits, self.temperature, self.lexical.logits(texts), self.lexical_weight)
        return softmax(scores, self.combined_temperature)


@dataclass(frozen=True, slots=True)
class Scored:
    probs: np.ndarray
    truncated: bool
    tokens: int


class ModelRouter:
    def __init__(
        self,
        name: str,
        session: LogitsSession,
        encoder: TextEncoder,
        labels: tuple[str, ...],
        calibration: Calibration,
        thresholds: Thresholds,
        max_batch_size: int = 32,
        max_wait_ms: float = 1.0,
    ) -> None:
        self.name = name
        self.labels = labels
        self.session = session
        self.encoder = encoder
        self.calibration = calibration
        self.thresholds = thresholds
        self.batcher: MicroBatcher[Scored] = MicroBatcher(self.score, max_batch_size, max_wait_ms)

    def score(self, texts: list[str]) -> list[Scored]:
        """Synchronous: calibrated probabilities for a batch of texts."""
        batch = self.encoder.encode(texts)
        logits = self.session.logits(batch.input_ids, batch.attention_mask)
        probs = self.calibration.probabilities(logits, texts)
        return [Scored(probs[i], batch.truncated[i], batch.lengths[i]) for i in range(len(texts))]

    async def classify(self, texts: list[str], top_k: int = 5) -> list[IntentResult]:
        started = time.perf_counter()
        scored = await self.batcher.submit(texts)
        latency = (time.perf_counter() - started) * 1000
        results = []
        for text, s in zip(texts, scored):
            label, confidence, ranking, uncertain, reason = decide(s.probs, self.labels, self.thresholds, top_k)
            results.append(IntentResult(
                label, confidence, ranking, uncertain, reason, self.name, detect_lang(normalize(text)),
                s.truncated, s.tokens, round(latency, 3),
            ))
        return results

    async def check_health(self) -> None:
        self.score(["ping"])

    async def aclose(self) -> None:
        await self.batcher.aclose()
