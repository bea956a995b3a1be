"""Turning engine output into safe text deltas.

* `IncrementalDetokenizer`: token ids -> text deltas that never end inside a UTF-8 sequence (a Chinese
  character or an emoji split across byte-level tokens is held until complete) and never lose the spaces
  that tokenizers attach to the next token.
* `ReplacementCharGuard`: the same promise for engines that already hand out text deltas (TensorRT-LLM's
  `text_diff`), which may end in U+FFFD while a character is still incomplete.
* `StopMatcher`: stop-string hold-back; text that may be the start of a stop string is held until decided,
  and the stop string itself never leaks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

REPLACEMENT_CHAR = "\ufffd"


class IncrementalDetokenizer:
    """Decode a growing list of token ids into text deltas.

    Decoding a window that starts a few tokens back (`prefix_offset`) and comparing with the text of the
    window without the new tokens keeps tokenizer-specific spacing right; a delta ending in U+FFFD means the
    last token stopped mid-character, so it is held until the next token completes it.
    """

    def __init__(self, decode: Callable[[Sequence[int]], str], skip_ids: Iterable[int] = ()) -> None:
        self._decode = decode
        self._skip = frozenset(skip_ids)
        self._ids: list[int] = []
        self._prefix_offset = 0
        self._read_offset = 0

    @property
    def token_count(self) -> int:
        return len(self._ids)

    def push(self, new_ids: Iterable[int]) -> str:
        self._ids.extend(i for i in new_ids if i not in self._skip)
        return self._delta(final=False)

    def flush(self) -> str:
        """Complete text still held at the end. Bytes of a character that the token limit cut in half are
        dropped: a half character is not text, and U+FFFD in a reply reads as a bug."""
        return self._delta(final=True).rstrip(REPLACEMENT_CHAR)

    def _delta(self, *, final: bool) -> str:
        if self._read_offset >= len(self._ids):
            return ""
        prefix_text = self._decode(self._ids[self._prefix_offset : self._read_offset])
        full_text = self._decode(self._ids[self._prefix_offset :])
        if not final and full_text.endswith(REPLACEMENT_CHAR):
            return ""
        if len(full_text) <= len(prefix_text):
            return ""
        delta = full_text[len(prefix_text) :]
        self._prefix_offset = self._read_offset
        self._read_offset = len(self._ids)
        return delta


class ReplacementCharGuard:
    """Hold trailing U+FFFD characters of a text stream until the following text arrives."""

    def __init__(self) -> None:
        self._held = ""

    def push(self, text: str) -> str:
        pending = self._held + text
        stripped = pending.rstrip(REPLACEMENT_CHAR)
        self._held = pending[len(stripped) :]
        return stripped

    def flush(self) -> str:
        """End of stream: a character still incomplete now never will be; drop it (see above)."""
        self._held = ""
        return ""


class StopMatcher:
    """Stop-string detection over a stream of text deltas, with hold-back of possible stop prefixes."""

    def __init__(self, stops: Iterable[str]) -> None:
        self._stops = tuple(s for s in stops if s)
        self._buffer = ""
        self.stopped = False

    def push(self, text: str) -> str:
        """Return the text that is safe to emit; sets `stopped` once a stop string is seen."""
        if self.stopped:
            return ""
        if not self._stops:
            return text
        self._buffer += text
        hit = self._earliest_stop()
        if hit is not None:
            emit = self._buffer[:hit]
            self._buffer = ""
            self.stopped = True
            return emit
        keep = self._longest_partial_stop()
        cut = len(self._buffer) - keep
        emit, self._buffer = self._buffer[:cut], self._buffer[cut:]
        return emit

    def flush(self) -> str:
        """End of stream: held text that turned out not to be a stop string."""
        if self.stopped:
            return ""
        held, self._buffer = self._buffer, ""
        return held

    def _earliest_stop(self) -> int | None:
        positions = [p for p in (self._buffer.find(s) for s in self._stops) if p >= 0]
        return min(positions) if positions else None

    def _longest_partial_stop(self) -> int:
        best = 0
        for stop in self._stops:
            for k in range(min(len(stop) - 1, len(self._buffer)), best, -1):
                if self._buffer.endswith(stop[:k]):
                    best = k
                    break
        return best
