"""How much a message says: short enough to be ambiguous, brief enough to be an unrelated request. The route
policy (serve/pipeline.py) reads these; the thresholds were set by judging replies to real posts."""

from __future__ import annotations

import re

from serve.acts import strip_wrapping

# A message this short can be ambiguous; a longer one has said what it is about. Counted in words that carry
# letters (not hashtags, numbers or punctuation) and in hanzi. Judged on real posts, a clarifying question for
# an unsure reading passed 2 times in 9, both for messages of a few words, while the acknowledgement that asks
# for the missing detail passed about 6 times in 10; 12 words or 20 hanzi took in whole complaints.
SHORT_WORDS, SHORT_HANZI = 6, 10
# An unrelated request is usually one short sentence (write me some code, who will win the match); above this
# a message the router reads as unrelated was, on real posts to brands, more often a complaint (acknowledged).
BRIEF_WORDS, BRIEF_HANZI = 12, 20
_HANZI = re.compile(r"[\u3400-\u9fff]")
_HASHTAG = re.compile(r"#\w+")
_LETTER = re.compile(r"[^\W\d_]")


def is_short(message: str, words: int = SHORT_WORDS, hanzi: int = SHORT_HANZI) -> bool:
    text = _HASHTAG.sub(" ", strip_wrapping(message))
    counted = [w for w in _HANZI.sub(" ", text).split() if _LETTER.search(w)]
    return len(_HANZI.findall(text)) <= hanzi and len(counted) <= words


def is_brief(message: str) -> bool:
    """Short enough to be a request unrelated to the business (answered with the out-of-scope reply)."""
    return is_short(message, BRIEF_WORDS, BRIEF_HANZI)
