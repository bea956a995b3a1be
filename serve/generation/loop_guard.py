"""Server-side loop guard: a reply streams word by word, and it ends where it starts repeating itself, or
where the token budget ran out, at a sentence boundary where it can (EN . ! ? and ZH 。！？).

Small models loop ("You can also check ... *100#." five times over) and run to `max_tokens`, stopping
mid-word. Decoding penalties make that rarer; this guard makes the reply end cleanly when it happens anyway.
It works on text, so it guards every backend the same way:

* words are released as they come, minus the last n-1 units (so no n-gram that could turn out to be a
  repeat is ever half sent), and the rest of a sentence is held back from the first n-gram that already
  occurred until the sentence is complete and checked (a stream cannot take text back, so a repeated
  sentence is never sent);
* a sentence that repeats an earlier one, or that makes any n-gram of the reply occur `max_repeats` times,
  ends the reply before that sentence (finish reason `loop`); the unfinished sentence is checked as it grows,
  so "Decentralized Decentralized Decentralized ..." without any full stop is caught too;
* `max_sentences` complete sentences end the reply (finish reason `sentence_limit`);
* when the engine stops for length, the unfinished last sentence is dropped (finish reason stays `length`),
  unless it is all there is.

The same unit and n-gram definitions serve the evaluation's repetition measure (`repeated_ngram`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

LOOP = "loop"
SENTENCE_LIMIT = "sentence_limit"

# EN: . ! ? (and an ellipsis) followed by whitespace; ZH: 。！？ anywhere; a line break ends a line item.
_BOUNDARY = re.compile(r"(?:[.!?]+[\"'”’)\]]*(?=\s))|(?:[。！？]+[”’」』）]*)|(?:\n+)")
_LIST_MARKER = re.compile(r"^\s*(?:\d{1,2}|[a-zA-Z])[.)]$")
_UNIT = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\W_\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

# n-gram sizes: 4 words, or 6 Chinese characters (about the same amount of meaning: one Chinese word is
# typically 1-2 characters, and 4-character set phrases recur in normal Chinese replies).
NGRAM_EN = 4
NGRAM_ZH = 6


def units(text: str) -> list[str]:
    """Words (lowercased) and single CJK characters: what repetition is counted in."""
    return _UNIT.findall(text.lower())


def ngram_size(text: str) -> int:
    cjk = len(_CJK.findall(text))
    return NGRAM_ZH if cjk and cjk >= len(units(text)) / 2 else NGRAM_EN


def ngram_counts(items: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(items[i : i + n]) for i in range(len(items) - n + 1))


def repeated_ngram(text: str, max_repeats: int = 3, n: int | None = None) -> tuple[str, ...] | None:
    """The first n-gram that occurs `max_repeats` or more times in `text`, else None."""
    items = units(text)
    size = n or ngram_size(text)
    for gram, count in ngram_counts(items, size).items():
        if count >= max_repeats:
            return gram
    return None


def split_sentences(text: str) -> list[str]:
    """Sentences with their end punctuation (list markers like "1." stay with their item)."""
    out: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        piece = text[start : match.end()]
        start = match.end()
        if out and _LIST_MARKER.match(out[-1].strip()):
            out[-1] += piece
        elif piece.strip():
            out.append(piece)
    rest = text[start:]
    if rest.strip():
        if out and _LIST_MARKER.match(out[-1].strip()):
            out[-1] += rest
        else:
            out.append(rest)
    return [s.strip() for s in out if s.strip()]


def ends_sentence(text: str) -> bool:
    """Whether `text` ends at a sentence boundary (what "cut mid-sentence" is measured against); a
    closing emoji or symbol after the last full stop does not count against it."""
    stripped = "".join(c for c in text.rstrip() if unicodedata.category(c) not in ("So", "Sk", "Mn", "Cf"))
    return bool(re.search(r"[.!?。！？…][\"'”’)）\]」』]*$", stripped.rstrip()))


@dataclass
class LoopGuard:
    lang: str = "en"
    max_repeats: int = 3
    max_sentences: int | None = None
    enabled: bool = True  # off: text passes straight through (the behaviour before the guard, for comparisons)

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
    def seed(self, text: str) -> None:
        """Count `text` as already sent (the reply's fact lead): its sentences and n-grams are known, so the
        model repeating it reads as a loop, and it counts towards `max_sentences` without ending the reply."""
        for sentence in split_sentences(text):
            new_units = units(sentence)
            tail = self._units[-(self.n - 1):] if self.n > 1 else []
            self._grams.update(ngram_counts(tail + new_units, self.n))
            self._units.extend(new_units)
            if new_units:
                self._sentences.add(" ".join(new_units))
                self._count += 1
        self.released += text

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
        tail, early = self._pending[self._early:], self._early
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
        tail = self._units[-(self.n - 1):] if self.n > 1 else []
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
        tail = self._units[-(self.n - 1):] if self.n > 1 else []
        grams = ngram_counts(tail + new_units, self.n)
        return any(self._grams[g] + c >= self.max_repeats for g, c in grams.items())

    def _accept(self, sentence: str) -> bool:
        new_units = units(sentence)
        key = " ".join(new_units)
        if (len(new_units) >= 3 and key in self._sentences) or self._loops(new_units):
            self.tripped, self._pending = LOOP, ""
            return False
        tail = self._units[-(self.n - 1):] if self.n > 1 else []
        self._grams.update(ngram_counts(tail + new_units, self.n))
        self._units.extend(new_units)
        if new_units:
            self._sentences.add(key)
            self._count += 1
        if self.max_sentences is not None and self._count >= self.max_sentences:
            self.tripped = SENTENCE_LIMIT
            self._pending = ""
        return True
