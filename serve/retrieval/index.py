"""A hybrid index over items that each have several short texts ("views"): a knowledge entry's title and
example questions (its *keys*) and its answer text (its *body*); a bank reply's situation and example
messages (keys) and the reply (body).

An item's score is a weighted mean of signals that each lie in [0, 1], so one threshold means the same for
every query (BM25 alone ranks well, but its scale depends on the query):
- `bm25`: BM25 (the `bm25s` library) of the item's best key and of its body, each divided by the best such
  score over all items for this query (a relative ranking signal);
- `covered`: how much of the best view's idf weight the query contains (a long message that contains a whole
  example question covers it fully), for keys and body;
- `query_covered`: how much of the query's idf weight the best view contains, for keys and body;
- `dense`: the best cosine between the query's sentence vector and a view's (the router's encoder), raw and
  through the index's fitted projection (serve/retrieval/projection.py), where the router gives vectors;
- `semantic`: the best cosine with the English search encoder's vectors (serve/retrieval/semantic.py), where
  the index has them (English);
- `prior`: the router's probability for the item's intents, when the caller gives it.
The weights were chosen on a development split of the team's labelled knowledge questions (docs/knowledge.md
has the figures); the held-out split was only measured.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from serve.retrieval.bm25 import load_bm25s
from serve.retrieval.projection import project
from serve.retrieval.terms import terms

Kind = Literal["key", "body"]
SIGNALS = (
    "bm25_key",
    "bm25_body",
    "covered_key",
    "covered_body",
    "query_covered_key",
    "query_covered_body",
    "dense",
    "dense_fitted",
    "semantic",
    "prior",
)


@dataclass(frozen=True, slots=True)
class Weights:
    bm25_key: float = 4.2
    bm25_body: float = 2.6
    covered_key: float = 3.1
    covered_body: float = 1.1
    query_covered_key: float = 3.7
    query_covered_body: float = 2.0
    dense: float = 3.0
    dense_fitted: float = 3.9
    semantic: float = 10.0
    prior: float = 1.7

    def vector(self, dense: bool, prior: bool, semantic: bool = False) -> np.ndarray:
        """The weights in SIGNALS order, without the signals this query lacks, summing to 1."""
        w = np.array([getattr(self, s) for s in SIGNALS], dtype=np.float64)
        if not dense:
            w[6] = w[7] = 0.0
        if not semantic:
            w[8] = 0.0
        if not prior:
            w[9] = 0.0
        return w / w.sum()


DEFAULT_WEIGHTS = Weights()  # the tuned weights; one frozen instance is every index's default


@dataclass(frozen=True, slots=True)
class View:
    item: int
    text: str
    kind: Kind


@dataclass(frozen=True, slots=True)
class Hit:
    item: int
    score: float  # weighted mean of the signals, in [0, 1]
    bm25: float  # the best relative BM25 (key or body), for explanations
    covered: float  # the best coverage of a key by the query
    dense: float | None  # the best raw cosine, None without vectors


class HybridIndex:
    def __init__(
        self,
        views: Sequence[View],
        vectors: np.ndarray | None = None,
        projection: np.ndarray | None = None,
        weights: Weights = DEFAULT_WEIGHTS,
        semantic: np.ndarray | None = None,
        encode: Callable[[str], np.ndarray] | None = None,
    ) -> None:
        """`vectors`: one L2-normalised row per view (or None: lexical only); `projection`: the fitted map;
        `semantic`: one row per view from the search encoder (or None), and `encode`, the same encoder for a
        query (so a query is always compared with vectors of its own encoder)."""
        bm25s = load_bm25s()

        if not views:
            raise ValueError("an index needs at least one text")
        if vectors is not None and len(vectors) != len(views):
            raise ValueError(f"{len(vectors)} vectors for {len(views)} texts")
        self.view_items = np.array([v.item for v in views], dtype=np.int64)
        self.is_key = np.array([v.kind == "key" for v in views])
        self.n_items = int(self.view_items.max()) + 1
        self.vectors = None if vectors is None else np.asarray(vectors, dtype=np.float32)
        self.projection = projection
        self.fitted = None if self.vectors is None else project(self.vectors, projection)
        self.weights = weights
        if semantic is not None and len(semantic) != len(views):
            raise ValueError(f"{len(semantic)} search vectors for {len(views)} texts")
        self.semantic = None if semantic is None else np.asarray(semantic, dtype=np.float32)
        self._encode = encode
        view_terms = [terms(v.text) or ["\u2400"] for v in views]  # an empty view still needs a token
        self._bm25 = bm25s.BM25()
        self._bm25.index(view_terms, show_progress=False)
        self._vocab = set(self._bm25.vocab_dict)
        df: dict[str, int] = defaultdict(int)
        for toks in view_terms:
            for t in set(toks):
                df[t] += 1
        n = len(view_terms)
        self._idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self._postings: dict[str, list[int]] = defaultdict(list)
        for i, toks in enumerate(view_terms):
            for t in set(toks):
                self._postings[t].append(i)
        self._view_weight = np.array([sum(self._idf[t] for t in set(toks)) for toks in view_terms])

    def signals(
        self, query: str, vector: np.ndarray | None = None, semantic: np.ndarray | None = None
    ) -> np.ndarray:
        """[n_items, 9]: the signals of SIGNALS but `prior`, per item (the best view of each kind)."""
        qterms = [t for t in terms(query) if t in self._vocab]
        n_views = len(self.view_items)
        bm25 = np.asarray(self._bm25.get_scores(qterms), dtype=np.float64) if qterms else np.zeros(n_views)
        matched = np.zeros(n_views)
        for t in set(qterms):
            matched[self._postings[t]] += self._idf[t]
        covered = matched / np.maximum(self._view_weight, 1e-9)
        query_weight = sum(self._idf[t] for t in set(qterms)) or 1e-9
        query_covered = matched / query_weight
        out = np.zeros((self.n_items, 9))
        for column, values in ((0, bm25), (2, covered), (4, query_covered)):
            for offset, mask in ((0, self.is_key), (1, ~self.is_key)):
                np.maximum.at(out[:, column + offset], self.view_items[mask], values[mask])
        for column in (0, 1):  # BM25 relative to the best item of this query
            best = out[:, column].max()
            out[:, column] = out[:, column] / best if best > 0 else 0.0
        if self.vectors is not None and self.fitted is not None and vector is not None:
            raw = np.full(self.n_items, -1.0)
            np.maximum.at(raw, self.view_items, self.vectors @ np.asarray(vector, dtype=np.float32))
            fitted = np.full(self.n_items, -1.0)
            q = project(np.asarray(vector, dtype=np.float32)[None, :], self.projection)[0]
            np.maximum.at(fitted, self.view_items, self.fitted @ q)
            out[:, 6], out[:, 7] = np.clip(raw, 0, 1), np.clip(fitted, 0, 1)
        if self.semantic is not None and semantic is not None:
            best = np.full(self.n_items, -1.0)
            np.maximum.at(best, self.view_items, self.semantic @ np.asarray(semantic, dtype=np.float32))
            out[:, 8] = np.clip(best, 0, 1)
        return out

    def search(
        self,
        query: str,
        vector: np.ndarray | None = None,
        k: int = 5,
        prior: np.ndarray | None = None,
        allowed: np.ndarray | None = None,
        semantic: np.ndarray | None = None,
    ) -> list[Hit]:
        """The best `k` items, best first. `prior`: the router's probability per item (its intents);
        `allowed`: a boolean mask over items (the others are never returned); `semantic`: the query's
        search-encoder vector (default: from the index's `encode`)."""
        if semantic is None and self.semantic is not None and self._encode is not None:
            semantic = self._encode(query)
        signals = self.signals(query, vector, semantic)
        dense = self.vectors is not None and vector is not None
        weights = self.weights.vector(
            dense, prior is not None, self.semantic is not None and semantic is not None
        )
        score = signals @ weights[:9] + (weights[9] * prior if prior is not None else 0.0)
        if allowed is not None:
            score = np.where(allowed, score, -np.inf)
        order = np.argsort(-score)[:k]
        return [
            Hit(
                int(i),
                round(float(score[i]), 4),
                round(float(signals[i, :2].max()), 4),
                round(float(signals[i, 2]), 4),
                round(float(signals[i, 6]), 4) if dense else None,
            )
            for i in order
            if np.isfinite(score[i])
        ]
