"""TEST ONLY: the loop guard as it was before it became incremental (it rescans the open sentence on every
delta). `tests/unit/test_loop_guard_incremental.py` checks that `serve.generation.loop_guard.LoopGuard`
sends exactly what this one sends, delta by delta."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from serve.generation.loop_guard import (
    _BOUNDARY,
    _LIST_MARKER,
    _UNIT,
    LOOP,
    NGRAM_EN,
    NGRAM_ZH,
    SENTENCE_LIMIT,
    ngram_counts,
    units,
)


@dataclass
class RescanningLoopGuard:
    lang: str = "en"
    max_repeats: int = 3
    max_sentences: int | None = None
    enabled: bool = (
        True  # off: text passes straight through (the behaviour before the guard, for comparisons)
    )

    def __post_init__(self) -> None:
        self.n = NGRAM_ZH if self.lang == "zh" else NGRAM_EN
        self.tripped: str | None = None  # LOOP or SENTENCE_LIMIT once the reply must end
        self._pending = ""
        self._units: list[str] = []
        self._grams: Counter[tuple[str, ...]] = Counter()
        self._sentences: set[str] = set()
        self._count = 0
        self._early = 0  # characters of the open sentence (`_pending`) already released
        self.released = ""

    # ------------------------------------------------------------------ streaming
    def push(self, delta: str, near_limit: bool = False) -> str:
        """Text that may be sent now: checked sentences, and the safe part of the open one. `near_limit`
        (the token budget is nearly spent) holds the open sentence back whole, so that a reply cut by
        the budget can still end at its last complete sentence."""
        if not self.enabled:
            self.released += delta
            return delta
        if self.tripped:
            return ""
        self._pending += delta
        out = []
        while not self.tripped:
            match = self._first_boundary(self._pending)
            if match is None:
                break
            sentence, self._pending = self._pending[:match], self._pending[match:]
            early, self._early = self._early, 0
            if self._accept(sentence):
                out.append(sentence[early:])
        if not self.tripped and self._loops(units(self._pending)):
            self.tripped, self._pending = LOOP, ""
        if not self.tripped and not near_limit:
            out.append(self._release_early())
        text = "".join(out)
        self.released += text
        return text

    def finish(self, engine_reason: str | None) -> tuple[str, str]:
        """The rest of the reply to send and the finish reason, once the engine stopped (or the guard did)."""
        if self.tripped:
            return "", self.tripped
        reason = engine_reason or "stop"
        if not self.enabled:
            return "", reason
        tail, early = self._pending[self._early :], self._early
        self._pending, self._early = "", 0
        if not tail.strip():
            return "", reason
        if reason == "length" and self.released.strip() and not early:
            return "", reason  # an unfinished last sentence is worse than a shorter reply
        if self._loops(units(tail)):
            return "", LOOP
        if reason == "length":  # nothing complete yet: at least end on a whole word
            cut = tail.rstrip()
            if self.lang != "zh" and " " in cut:
                cut = cut[: cut.rfind(" ")]
            tail = cut
        self.released += tail
        return tail, reason

    # ----------------------------------------------------------------- helpers
    def _release_early(self) -> str:
        """The part of the open sentence that may go now: up to the last n-1 units, and only while none of
        its n-grams has occurred before (from the first one that has, the sentence waits to be checked)."""
        spans = [m.span() for m in _UNIT.finditer(self._pending)][:-1]  # the last word may be incomplete
        if len(spans) < self.n:
            return ""
        tail = self._units[-(self.n - 1) :] if self.n > 1 else []
        words = [self._pending[a:b].lower() for a, b in spans]
        items = tail + words
        seen: Counter[tuple[str, ...]] = Counter()
        safe_units = len(spans) - (self.n - 1)  # the last n-1 units could still start a repeat
        for i in range(len(items) - self.n + 1):
            gram = tuple(items[i : i + self.n])
            if self._grams[gram] or seen[gram]:
                safe_units = min(safe_units, i - len(tail))  # stop before this n-gram's first unit
                break
            seen[gram] += 1
        if self.lang != "zh":  # "Decentralized Decentralized": a word said twice in a row waits to be checked
            doubled = next((j for j in range(1, len(words)) if words[j] == words[j - 1]), None)
            if doubled is not None:
                safe_units = min(safe_units, doubled - 1)
        if safe_units <= 0:
            return ""
        cut = spans[safe_units][0]
        if cut <= self._early:
            return ""
        text, self._early = self._pending[self._early : cut], cut
        return text

    def _first_boundary(self, text: str) -> int | None:
        for match in _BOUNDARY.finditer(text):
            if _LIST_MARKER.match(text[: match.end()].strip()):
                continue  # "1." opens a list item; the sentence goes on
            return match.end()
        return None

    def _loops(self, new_units: list[str]) -> bool:
        if not new_units:
            return False
        tail = self._units[-(self.n - 1) :] if self.n > 1 else []
        grams = ngram_counts(tail + new_units, self.n)
        return any(self._grams[g] + c >= self.max_repeats for g, c in grams.items())

    def _accept(self, sentence: str) -> bool:
        new_units = units(sentence)
        key = " ".join(new_units)
        if (len(new_units) >= 3 and key in self._sentences) or self._loops(new_units):
            self.tripped, self._pending = LOOP, ""
            return False
        tail = self._units[-(self.n - 1) :] if self.n > 1 else []
        self._grams.update(ngram_counts(tail + new_units, self.n))
        self._units.extend(new_units)
        if new_units:
            self._sentences.add(key)
            self._count += 1
        if self.max_sentences is not None and self._count >= self.max_sentences:
            self.tripped = SENTENCE_LIMIT
            self._pending = ""
        return True
