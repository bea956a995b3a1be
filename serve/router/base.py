"""The router seam: every intent backend (onnx, tensorrt, rules) implements `IntentClassifier`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np


@dataclass(frozen=True, slots=True)
class Thresholds:
    min_confidence: float = 0.5
    min_margin: float = 0.1


@dataclass(frozen=True, slots=True)
class Ranked:
    label: str
    confidence: float


@dataclass(frozen=True, slots=True)
class IntentResult:
    label: str
    confidence: float
    ranking: tuple[Ranked, ...]
    uncertain: bool
    uncertain_reason: str | None  # "low_confidence" | "small_margin" | None
    backend: str
    lang: str
    truncated: bool = False
    tokens: int = 0
    latency_ms: float = 0.0
    # the message's sentence vector from the same pass (model backends only), for knowledge and reply search
    embedding: np.ndarray | None = field(default=None, compare=False, repr=False)


class IntentClassifier(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def labels(self) -> tuple[str, ...]: ...

    async def classify(self, texts: list[str], top_k: int = 5) -> list[IntentResult]:
        """One result per text, in order."""
        ...

    async def check_health(self) -> None: ...

    async def aclose(self) -> None: ...


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    scaled = logits.astype(np.float64) / temperature
    scaled -= scaled.max(axis=-1, keepdims=True)
    exp = np.exp(scaled)
    return exp / exp.sum(axis=-1, keepdims=True)


def log_softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    return np.log(softmax(logits, temperature) + 1e-12)


def ensemble_scores(
    bert_logits: np.ndarray, bert_temperature: float, lexical_logits: np.ndarray, weight: float
) -> np.ndarray:
    """The router's ensemble: calibrated BERT log-probabilities plus `weight` times the lexical ones. The
    build chooses `weight` with this function and serving applies it, so the two cannot drift apart."""
    return log_softmax(bert_logits, bert_temperature) + weight * log_softmax(lexical_logits)


def decide(
    probs: np.ndarray, labels: tuple[str, ...], thresholds: Thresholds, top_k: int
) -> tuple[str, float, tuple[Ranked, ...], bool, str | None]:
    """Top label, its confidence, the top-k ranking, and whether it is too unsure to act on."""
    order = np.argsort(-probs)
    ranking = tuple(Ranked(labels[i], round(float(probs[i]), 6)) for i in order[: max(1, top_k)])
    top1 = float(probs[order[0]])
    top2 = float(probs[order[1]]) if len(order) > 1 else 0.0
    reason = None
    if top1 < thresholds.min_confidence:
        reason = "low_confidence"
    elif top1 - top2 < thresholds.min_margin:
        reason = "small_margin"
    return labels[order[0]], round(top1, 6), ranking, reason is not None, reason
