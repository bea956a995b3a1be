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

Its cost per token is O(1) amortised: the open sentence's words, n-gram counts, first repeated n-gram and
first doubled word are kept as the sentence grows, and only the text a delta could change is scanned again
(the last, possibly unfinished word; a trailing run of sentence-end characters). A stream of 256 tokens no
longer rescans its open sentence 256 times. Words of the open sentence are matched, then lowercased (as
the release of early words always did); for the rare characters whose lowercase form is longer (Turkish
dotted I) this can split a word differently from `units`, which lowercases first.
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
_UNIT = re.compile(
    r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\W_\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+"
)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Every character a `_BOUNDARY` match consumes. A match attempt that starts before a trailing run of these is
# settled (it stopped before the end of the text), so a new delta is scanned from that run on.
_BOUNDARY_CHARS = frozenset(".!?\"'”’)]。！？」』）\n")

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
        self._released_words = False  # whether anything but whitespace was released
        self._open_sentence()

    # ------------------------------------------------------------------ streaming
    def seed(self, text: str) -> None:
        """Count `text` as already sent (the reply's fact lead): its sentences and n-grams are known, so the
        model repeating it reads as a loop, and it counts towards `max_sentences` without ending the reply."""
        for sentence in split_sentences(text):
            self._remember(units(sentence))
        self._released_words = self._released_words or bool(text.strip())
        self._open_sentence()

    def push(self, delta: str, near_limit: bool = False) -> str:
        """Text that may be sent now: checked sentences, and the safe part of the open one. `near_limit`
        (the token budget is nearly spent) holds the open sentence back whole, so that a reply cut by
        the budget can still end at its last complete sentence."""
        if not self.enabled:
            return delta
        if self.tripped:
            return ""
        self._pending += delta
        out = []
        while not self.tripped:
            match = self._first_boundary()
            if match is None:
                break
            sentence, self._pending = self._pending[:match], self._pending[match:]
            early, self._early = self._early, 0
            if self._accept(sentence):
                out.append(sentence[early:])
            self._open_sentence()
        if not self.tripped:
            self._scan_words()
            if self._open_loops():
                self.tripped, self._pending = LOOP, ""
        if not self.tripped and not near_limit:
            out.append(self._release_early())
        text = "".join(out)
        if not self._released_words and text.strip():
            self._released_words = True
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
        self._open_sentence()
        if not tail.strip():
            return "", reason
        if reason == "length" and self._released_words and not early:
            return "", reason  # an unfinished last sentence is worse than a shorter reply
        if self._loops(units(tail)):
            return "", LOOP
        if reason == "length":  # nothing complete yet: at least end on a whole word
            cut = tail.rstrip()
            if self.lang != "zh" and " " in cut:
                cut = cut[: cut.rfind(" ")]
            tail = cut
        return tail, reason

    # ----------------------------------------------------------------- the open sentence, kept incrementally
    def _open_sentence(self) -> None:
        """Start the open sentence's state afresh (for `_pending` as it now is: a sentence was split off)."""
        self._tail = self._units[-(self.n - 1) :] if self.n > 1 else []  # the n-1 accepted units before it
        self._items = list(self._tail)  # tail + the open sentence's finished words (lowercased)
        self._starts: list[int] = []  # where each finished word starts in `_pending`
        self._last: str | None = None  # the last word, which the next delta may still extend
        self._word_scan = 0  # `_pending` from here on may still change its words
        self._boundary_scan = 0  # no sentence boundary can start before this
        self._counts: dict[tuple[str, ...], int] = {}  # n-grams of `_items`
        self._counts_loop = False  # one of them occurs `max_repeats` times with the reply's
        self._first_repeat: int | None = None  # index into `_items` of the first n-gram seen before
        self._first_double: int | None = None  # index of the first word equal to the word before it

    def _scan_words(self) -> None:
        """Add the words a delta finished; the last word found stays open (the next delta may extend it)."""
        last = None
        for m in _UNIT.finditer(self._pending, self._word_scan):
            if last is not None:
                self._add_word(last.group().lower(), last.start())
            last = m
        if last is not None:
            self._last, self._word_scan = last.group().lower(), last.start()

    def _add_word(self, word: str, start: int) -> None:
        words = len(self._starts)
        if words and self._first_double is None and word == self._items[-1]:
            self._first_double = words
        self._items.append(word)
        self._starts.append(start)
        if len(self._items) >= self.n:
            gram = tuple(self._items[-self.n :])
            # .get, not [ ]: a Counter's missing key goes through a Python-level __missing__
            before, seen = self._grams.get(gram, 0), self._counts.get(gram, 0)
            if self._first_repeat is None and (before or seen):
                self._first_repeat = len(self._items) - self.n
            self._counts[gram] = seen + 1
            if before + seen + 1 >= self.max_repeats:
                self._counts_loop = True

    def _open_loops(self) -> bool:
        """Whether the open sentence, its unfinished last word included, makes an n-gram loop."""
        if self._counts_loop:
            return True
        if self._last is None or len(self._items) + 1 < self.n:
            return False
        gram = (*self._items[len(self._items) - self.n + 1 :], self._last)
        return self._grams.get(gram, 0) + self._counts.get(gram, 0) + 1 >= self.max_repeats

    def _release_early(self) -> str:
        """The part of the open sentence that may go now: up to the last n-1 units, and only while none of
        its n-grams has occurred before (from the first one that has, the sentence waits to be checked)."""
        words = len(self._starts)  # the finished words; the last one found may be incomplete
        if words < self.n:
            return ""
        safe_units = words - (self.n - 1)  # the last n-1 units could still start a repeat
        if self._first_repeat is not None:
            safe_units = min(safe_units, self._first_repeat - len(self._tail))  # stop before its first unit
        if self.lang != "zh" and self._first_double is not None:
            # "Decentralized Decentralized": a word said twice in a row waits to be checked
            safe_units = min(safe_units, self._first_double - 1)
        if safe_units <= 0:
            return ""
        cut = self._starts[safe_units]
        if cut <= self._early:
            return ""
        text, self._early = self._pending[self._early : cut], cut
        return text

    def _first_boundary(self) -> int | None:
        text = self._pending
        start = self._boundary_scan
        match = _BOUNDARY.search(text, start)  # as finditer: the next match starts where this one ended
        while match is not None:
            if not _LIST_MARKER.match(text[: match.end()].strip()):
                return match.end()
            match = _BOUNDARY.search(text, match.end())  # "1." opens a list item; the sentence goes on
        # Settled up to the trailing boundary characters: only there can a later delta complete a match.
        end = len(text)
        while end > start and text[end - 1] in _BOUNDARY_CHARS:
            end -= 1
        self._boundary_scan = end
        return None

    # ----------------------------------------------------------------- whole sentences
    def _loops(self, new_units: list[str]) -> bool:
        if not new_units:
            return False
        tail = self._units[-(self.n - 1) :] if self.n > 1 else []
        grams = ngram_counts(tail + new_units, self.n)
        return any(self._grams[g] + c >= self.max_repeats for g, c in grams.items())

    def _remember(self, new_units: list[str]) -> None:
        """A sentence that was sent: its n-grams and its text count against what comes after it."""
        tail = self._units[-(self.n - 1) :] if self.n > 1 else []
        self._grams.update(ngram_counts(tail + new_units, self.n))
        self._units.extend(new_units)
        if new_units:
            self._sentences.add(" ".join(new_units))
            self._count += 1

    def _accept(self, sentence: str) -> bool:
        new_units = units(sentence)
        key = " ".join(new_units)
        if (len(new_units) >= 3 and key in self._sentences) or self._loops(new_units):
            self.tripped, self._pending = LOOP, ""
            return False
        self._remember(new_units)
        if self.max_sentences is not None and self._count >= self.max_sentences:
            self.tripped = SENTENCE_LIMIT
            self._pending = ""
        return True
