"""Text normalisation and tokenisation shared by router training and serving (tokenizers + numpy only)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\ufeff]")
_SPACES = re.compile(r"\s+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# Far more characters than `max_length` tokens can hold; longer input is cut before tokenising.
_CHARS_PER_TOKEN_BOUND = 12


def normalize(text: str) -> str:
    """NFKC (full-width letters, digits and punctuation to ASCII), no control characters, single spaces."""
    text = unicodedata.normalize("NFKC", text)
    text = _CONTROL.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def detect_lang(text: str) -> str:
    """'zh' when the message is mostly Chinese (mixed Chinese-English counts as Chinese), else 'en'."""
    cjk = len(_CJK.findall(text))
    if cjk == 0:
        return "en"
    latin_words = len(_LATIN_WORD.findall(text))
    return "zh" if cjk >= latin_words else "en"


@dataclass(frozen=True, slots=True)
class Batch:
    input_ids: np.ndarray  # int64 [batch, seq]
    attention_mask: np.ndarray  # int64 [batch, seq]
    truncated: list[bool]
    lengths: list[int]


class TextEncoder:
    """tokenizer.json -> padded int64 arrays, truncating to `max_length` tokens."""

    def __init__(self, tokenizer_file: Path, max_length: int) -> None:
        from tokenizers import Tokenizer

        self.max_length = max_length
        self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length)
        pad = self._tokenizer.token_to_id("[PAD]")
        self._pad_id = 0 if pad is None else pad

    def encode_lengths(self, texts: list[str]) -> list[int]:
        return [len(e.ids) for e in self._tokenizer.encode_batch([normalize(t) for t in texts])]

    def encode(self, texts: list[str], pad_to: int | None = None) -> Batch:
        limit = self.max_length * _CHARS_PER_TOKEN_BOUND
        clipped = [normalize(t[: limit * 2])[:limit] for t in texts]
        encodings = self._tokenizer.encode_batch(clipped)
        truncated = [bool(e.overflowing) or len(t) > limit for e, t in zip(encodings, texts, strict=True)]
        lengths = [len(e.ids) for e in encodings]
        width = max(pad_to or 0, max(lengths))
        ids = np.full((len(texts), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        return Batch(ids, mask, truncated, lengths)
