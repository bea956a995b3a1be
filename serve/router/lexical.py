"""The lexical head: a linear model over hashed character n-grams (and English words), combined with the
BERT logits. Characters carry most of the meaning in short Chinese messages, and they are what an
English-vocabulary encoder with freshly added hanzi knows least; measured on the dev split, the pair beats
either alone in both languages (docs/router.md)."""

from __future__ import annotations

import re
import time
import zlib
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from serve.router.encoding import normalize

DIM = 1 << 18
_WORD = re.compile(r"[a-z0-9']+")


# crc32 continues from a running value: crc32(data, crc32(prefix)) == crc32(prefix + data), so each
# feature's kind prefix ("c2:", "w:", ...) is hashed once here instead of formatted into every feature.
_PREFIX = {kind: zlib.crc32(kind.encode()) for kind in ("c1:", "c2:", "c3:", "c4:", "w:", "b:")}


def _is_cjk(char: str) -> bool:
    code = ord(char)  # CJK Unified Ideographs and Extension A
    return 0x3400 <= code <= 0x4DBF or 0x4E00 <= code <= 0x9FFF


def features(text: str) -> Counter[int]:
    """Hashed features: character 2-4-grams over the padded text, single CJK characters, words, word pairs."""
    t = normalize(text).lower()
    padded = f" {t} "
    grams: Counter[int] = Counter()
    get, crc = grams.get, zlib.crc32
    prefix = _PREFIX["c1:"]
    for char in padded:
        if _is_cjk(char):
            key = crc(char.encode(), prefix) % DIM
            grams[key] = get(key, 0) + 1
    for n in (2, 3, 4):
        prefix = _PREFIX[f"c{n}:"]
        for i in range(len(padded) - n + 1):
            key = crc(padded[i : i + n].encode(), prefix) % DIM
            grams[key] = get(key, 0) + 1
    words = _WORD.findall(t)
    prefix = _PREFIX["w:"]
    for w in words:
        key = crc(w.encode(), prefix) % DIM
        grams[key] = get(key, 0) + 1
    prefix = _PREFIX["b:"]
    for a, b in pairwise(words):
        key = crc(f"{a} {b}".encode(), prefix) % DIM
        grams[key] = get(key, 0) + 1
    return grams


class LexicalHead:
    def __init__(self, rows: np.ndarray, weights: np.ndarray, bias: np.ndarray) -> None:
        order = np.argsort(rows)
        self.rows = rows[order].astype(np.int64)
        self.weights = weights[order].astype(np.float32)
        self.bias = bias.astype(np.float32)

    @classmethod
    def load(cls, path: Path) -> LexicalHead:
        data = np.load(path)
        return cls(data["rows"], data["weights"], data["bias"])

    def save(self, path: Path) -> None:
        np.savez_compressed(path, rows=self.rows, weights=self.weights.astype(np.float16), bias=self.bias)

    def logits(self, texts: list[str]) -> np.ndarray:
        out = np.tile(self.bias, (len(texts), 1))
        for i, text in enumerate(texts):
            grams = features(text)
            if not grams:
                continue
            ids = np.fromiter(grams.keys(), dtype=np.int64, count=len(grams))
            counts = np.fromiter(grams.values(), dtype=np.float32, count=len(grams))
            norm = float(np.sqrt((counts**2).sum()))
            pos = np.searchsorted(self.rows, ids)
            pos = np.minimum(pos, len(self.rows) - 1)
            known = self.rows[pos] == ids
            if known.any():
                out[i] += (counts[known, None] * self.weights[pos[known]]).sum(axis=0) / norm
        return out


class LexicalRouter:
    """The lexical head alone as a router backend: the quick router a new machine serves with while the BERT
    router builds (serve/router/background.py swaps it out). No sentence vectors: retrieval is lexical."""

    name = "lexical"

    def __init__(self, head: LexicalHead, labels: tuple[str, ...], calibration: Any, thresholds: Any) -> None:
        self.head = head
        self.labels = labels
        self.calibration = calibration  # serve.router.model.Calibration (temperature only)
        self.thresholds = thresholds

    async def classify(self, texts: list[str], top_k: int = 5) -> list[Any]:
        from serve.router.base import IntentResult, decide
        from serve.router.encoding import detect_lang

        started = time.perf_counter()
        probs = self.calibration.probabilities(self.head.logits(texts), texts)
        latency = round((time.perf_counter() - started) * 1000, 3)
        out = []
        for text, row in zip(texts, probs, strict=True):
            label, confidence, ranking, uncertain, reason = decide(row, self.labels, self.thresholds, top_k)
            out.append(
                IntentResult(
                    label,
                    confidence,
                    ranking,
                    uncertain,
                    reason,
                    self.name,
                    detect_lang(normalize(text)),
                    latency_ms=latency,
                )
            )
        return out

    async def check_health(self) -> None:
        self.head.logits(["ping"])

    async def aclose(self) -> None:
        return None
