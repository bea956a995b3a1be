"""Search terms of a text, for BM25: English words (stemmed, common words dropped) and Chinese character
unigrams and bigrams (Chinese has no spaces; bigrams carry most words, unigrams the rest, and neither needs
a segmentation dictionary that would miss the shop's and operator's own words)."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_LATIN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# Function words match everything; content words such as "not", "no" and "why" stay (they change the ask).
_EN_STOP = frozenset(
    "a an the and or of to in on at for from by with is are was were be been am do does did i me my you your "
    "it its this that these those we us our they them their he she his her there here as so if than then "
    "just can could would will shall should may might have has had get got im i'm ive i've youre you're pls "
    "please hi hello hey "
    "thanks thank ok okay u ur".split()
)
_ZH_STOP = frozenset("的了吗呢啊吧呀哦么嘛是在我你他她它们这那有和与及或就都也还很请问您亲哈嗯呃啦")


@lru_cache(maxsize=1)
def _stemmer():  # type: ignore[no-untyped-def]
    import Stemmer

    return Stemmer.Stemmer("english")


def terms(text: str) -> list[str]:
    """The BM25 terms of `text`, in order (repeats kept: BM25 counts them)."""
    lowered = unicodedata.normalize("NFKC", text).lower()
    words = [w.replace("'", "") for w in _LATIN.findall(lowered) if w not in _EN_STOP]
    out = _stemmer().stemWords(words) if words else []
    for run in _CJK_RUN.findall(lowered):
        out.extend(ch for ch in run if ch not in _ZH_STOP)
        out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out
