"""Shared logic of the model backends (onnx, tensorrt): encode, run logits, calibrate, decide, micro-batch."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from serve.router.base import IntentResult, Thresholds, decide, ensemble_scores, softmax
from serve.router.batching import MicroBatcher
from serve.router.encoding import TextEncoder, detect_lang, normalize
from serve.router.lexical import LexicalHead


class RouterSession(Protocol):
    def run(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Logits, and the L2-normalised sentence vectors where the model has them (else None)."""
        ...


@dataclass(frozen=True, slots=True)
class Calibration:
    """How logits become probabilities: BERT softmax temperature, optionally the lexical ensemble, and the
    out-of-scope bias the build chose on dev (added to the out_of_scope score before the softmax, so that
    out-of-scope recall reaches its target; 0 leaves the scores as they are)."""

    temperature: float = 1.0
    lexical: LexicalHead | None = None
    lexical_weight: float = 0.0
    combined_temperature: float = 1.0
    oos_index: int | None = None
    oos_bias: float = 0.0

    def scores(self, logits: np.ndarray, texts: list[str]) -> np.ndarray:
        """Temperature-scaled log-scores without the out-of-scope bias (their softmax: calibrated probs)."""
        if self.lexical is None or self.lexical_weight == 0:
            return logits.astype(np.float64) / self.temperature
        combined = ensemble_scores(logits, self.temperature, self.lexical.logits(texts), self.lexical_weight)
        return combined / self.combined_temperature

    def probabilities(self, logits: np.ndarray, texts: list[str]) -> np.ndarray:
        return softmax(with_oos_bias(self.scores(logits, texts), self.oos_index, self.oos_bias))


def with_oos_bias(scores: np.ndarray, oos_index: int | None, bias: float) -> np.ndarray:
    """`scores` with `bias` added to the out-of-scope column (a copy; the build and serving both use this)."""
    if oos_index is None or bias == 0:
        return scores
    shifted = scores.astype(np.float64, copy=True)
    shifted[..., oos_index] += bias
    return shifted


@dataclass(frozen=True, slots=True)
class Scored:
    probs: np.ndarray
    truncated: bool
    tokens: int
    embedding: np.ndarray | None = None


class ModelRouter:
    def __init__(
        self,
        name: str,
        session: RouterSession,
        encoder: TextEncoder,
        labels: tuple[str, ...],
        calibration: Calibration,
        thresholds: Thresholds,
        max_batch_size: int = 32,
        max_wait_ms: float = 1.0,
        space: str | None = None,
    ) -> None:
        self.name = name
        self.space = space  # names the vector space of `embed` (the model file's digest): caches key on it
        self.labels = labels
        self.session = session
        self.encoder = encoder
        self.calibration = calibration
        self.thresholds = thresholds
        self.batcher: MicroBatcher[Scored] = MicroBatcher(self.score, max_batch_size, max_wait_ms)

    def score(self, texts: list[str]) -> list[Scored]:
        """Synchronous: calibrated probabilities for a batch of texts."""
        batch = self.encoder.encode(texts)
        logits, vectors = self.session.run(batch.input_ids, batch.attention_mask)
        probs = self.calibration.probabilities(logits, texts)
        return [
            Scored(probs[i], batch.truncated[i], batch.lengths[i], None if vectors is None else vectors[i])
            for i in range(len(texts))
        ]

    def embed(self, texts: list[str], batch_size: int = 64) -> np.ndarray | None:
        """Sentence vectors of many texts (indexing the knowledge base and reply bank), in batches of similar
        length; None when the model has no vector output."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: np.ndarray | None = None
        for start in range(0, len(texts), batch_size):
            idx = order[start : start + batch_size]
            batch = self.encoder.encode([texts[i] for i in idx])
            _, vectors = self.session.run(batch.input_ids, batch.attention_mask)
            if vectors is None:
                return None
            if out is None:
                out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
            out[idx] = vectors
        return out

    async def classify(self, texts: list[str], top_k: int = 5) -> list[IntentResult]:
        started = time.perf_counter()
        scored = await self.batcher.submit(texts)
        latency = (time.perf_counter() - started) * 1000
        results = []
        for text, s in zip(texts, scored, strict=True):
            label, confidence, ranking, uncertain, reason = decide(
                s.probs, self.labels, self.thresholds, top_k
            )
            results.append(
                IntentResult(
                    label,
                    confidence,
                    ranking,
                    uncertain,
                    reason,
                    self.name,
                    detect_lang(normalize(text)),
                    s.truncated,
                    s.tokens,
                    round(latency, 3),
                    s.embedding,
                )
            )
        return results

    async def check_health(self) -> None:
        # scoring blocks (ONNX session run; with TensorRT a CUDA stream sync): on a worker thread, like the
        # micro-batcher's batches, so the event loop keeps serving while /ready checks the router
        await asyncio.to_thread(self.score, ["ping"])

    async def aclose(self) -> None:
        await self.batcher.aclose()
