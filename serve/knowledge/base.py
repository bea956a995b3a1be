"""The knowledge base at run time: one hybrid index per domain and language, searched with the customer's
message (and the conversation's last turns), answering with an entry's text or handing passages to the LLM.

An entry that exists only in the other language is searched too (its id is missing in this language); a hit
on it is answered with the entry's own text, and the reply says so in the conversation's language.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from serve.knowledge.entries import (
    KNOWLEDGE_DIR,
    LANGS,
    Entry,
    LoadedEntries,
    load_entries,
    render,
    sentences,
)
from serve.retrieval.index import DEFAULT_WEIGHTS, Hit, HybridIndex, View, Weights
from serve.retrieval.semantic import LANGS as SEMANTIC_LANGS
from serve.retrieval.semantic import SemanticEncoder
from serve.retrieval.vectors import Embed, build_index
from serve.taxonomy import DOMAINS

logger = logging.getLogger(__name__)

OTHER_LANGUAGE_NOTE = {
    "en": "This answer is only available in Chinese: ",
    "zh": "这条说明目前只有英文版：",
}
MAX_SENTENCES = 3


@dataclass(frozen=True, slots=True)
class KnowledgeHit:
    entry: Entry
    score: float
    hit: Hit
    cross_lingual: bool  # the entry is in the other language (none exists in the conversation's)


class KnowledgeBase:
    def __init__(
        self,
        loaded: LoadedEntries,
        embed: Embed | None = None,
        space: str | None = None,
        vectors_dir: Path | None = None,
        weights: Weights = DEFAULT_WEIGHTS,
        semantic: SemanticEncoder | None = None,
    ) -> None:
        started = time.perf_counter()
        self.digest = loaded.digest
        self.expired = len(loaded.expired)
        self.dense = False
        self.semantic_search = False  # some index also has the English search encoder's vectors
        self._entries: dict[tuple[str, str], list[Entry]] = {}
        self._index: dict[tuple[str, str], HybridIndex] = {}
        by_key = {(e.domain, e.lang): [] for e in loaded.entries}  # type: dict[tuple[str, str], list[Entry]]
        for e in loaded.entries:
            by_key[(e.domain, e.lang)].append(e)
        for domain in DOMAINS:
            for lang in LANGS:
                own = by_key.get((domain, lang), [])
                ids = {e.id for e in own}
                other = [e for e in by_key.get((domain, _other(lang)), []) if e.id not in ids]
                items = own + other
                if not items:
                    continue
                index = build_index(
                    [(e.title, *e.questions) for e in items],
                    [e.text for e in items],
                    embed,
                    space,
                    vectors_dir,
                    weights,
                    semantic if lang in SEMANTIC_LANGS else None,
                )
                self.dense = self.dense or index.vectors is not None
                self.semantic_search = self.semantic_search or index.semantic is not None
                self._entries[(domain, lang)] = items
                self._index[(domain, lang)] = index
        self._by_id = {(e.domain, e.lang, e.id): e for e in loaded.entries}
        self.size = len(loaded.entries)
        logger.info(
            "knowledge.loaded entries=%d expired=%d digest=%s dense=%s load_s=%.2f",
            self.size,
            self.expired,
            self.digest,
            self.dense,
            time.perf_counter() - started,
        )

    @classmethod
    def load(
        cls,
        root: Path = KNOWLEDGE_DIR,
        embed: Embed | None = None,
        space: str | None = None,
        vectors_dir: Path | None = None,
        semantic: SemanticEncoder | None = None,
    ) -> KnowledgeBase:
        return cls(load_entries(root), embed, space, vectors_dir, semantic=semantic)

    def entries(self, domain: str, lang: str) -> list[Entry]:
        return [e for e in self._entries.get((domain, lang), []) if e.lang == lang]

    def entry(self, domain: str, lang: str, entry_id: str) -> Entry | None:
        """The entry `entry_id` written in `lang` (a bank reply's source), or None."""
        return self._by_id.get((domain, lang, entry_id))

    def search(
        self,
        domain: str,
        lang: str,
        query: str,
        vector: np.ndarray | None = None,
        k: int = 5,
        intents: dict[str, float] | None = None,
    ) -> list[KnowledgeHit]:
        """The best `k` entries; `intents`: the router's probabilities (favouring likely intents' entries)."""
        index = self._index.get((domain, lang))
        if index is None:
            return []
        items = self._entries[(domain, lang)]
        prior = None
        if intents:
            prior = np.array([max((intents.get(i, 0.0) for i in e.intents), default=0.0) for e in items])
        return [
            KnowledgeHit(items[h.item], h.score, h, items[h.item].lang != lang)
            for h in index.search(query, vector, k, prior)
        ]

    def answer(self, hit: KnowledgeHit, lang: str, query: str, company: str, context: dict[str, str]) -> str:
        """The reply a confident hit sends: the entry's text, cut to the sentences that answer `query` when it
        is longer than a chat reply, with a note when it is in the other language."""
        text = render(hit.entry, company, context)
        parts = sentences(text)
        if len(parts) > MAX_SENTENCES:
            text = (
                " ".join(_best_sentences(parts, query))
                if hit.entry.lang == "en"
                else "".join(_best_sentences(parts, query))
            )
        return OTHER_LANGUAGE_NOTE[lang] + text if hit.cross_lingual else text


def _other(lang: str) -> str:
    return "zh" if lang == "en" else "en"


def _best_sentences(parts: list[str], query: str) -> list[str]:
    """The first sentence (an entry states its answer first) and the sentences that share most with the
    query, up to three, in their original order."""
    index = HybridIndex([View(i, s, "key") for i, s in enumerate(parts)])
    ranked = [h.item for h in index.search(query, k=len(parts)) if h.item != 0]
    keep = sorted({0, *ranked[: MAX_SENTENCES - 1]})
    return [parts[i] for i in keep]


def load_knowledge(
    root: Path | None,
    embed: Embed | None,
    space: str | None,
    vectors_dir: Path | None,
    semantic: SemanticEncoder | None = None,
) -> KnowledgeBase:
    return KnowledgeBase.load(root or KNOWLEDGE_DIR, embed, space, vectors_dir, semantic)
