"""Messages that only make sense inside their conversation: follow-ups ("I already restarted it",
"那怎么办", "which one?") and bare identifiers (an order number alone). Such a message keeps the
conversation's intent and language instead of being classified (and answered) on its own."""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
_HAS_DIGIT = re.compile(r"\d")
_EN_CUES = frozenset(
    "still already again it its that this those these which what why how when yes yeah yep no nope ok okay "
    "same tried done didnt didn't doesnt doesn't nothing anything else then so and but also too one".split()
)
_ZH_CUES = ("还", "已经", "那", "这", "怎么办", "什么意思", "哪个", "哪一个", "还是", "没", "不行", "好的", "然后",
            "呢", "吗", "还没", "试过", "一样", "依然", "仍然", "又")
MAX_FOLLOWUP_WORDS = 12
MAX_FOLLOWUP_HANZI = 16


def script_lang(text: str) -> str | None:
    """'zh' or 'en' when the text shows its language, None for a language-neutral message (digits, an
    order number, punctuation, emoji, one short Latin token such as 'ok')."""
    cjk = len(_CJK.findall(text))
    words = [w for w in _WORD.findall(_strip_ids(text)) if len(w) > 1]
    if cjk == 0 and len(words) < 2:
        return None
    return "zh" if cjk >= len(words) else "en"


def _strip_ids(text: str) -> str:
    """Drop tokens with digits in them (order numbers, amounts, dates): they carry no language."""
    return " ".join(t for t in text.split() if not _HAS_DIGIT.search(t))


def is_followup(text: str) -> bool:
    """Short and leaning on the previous turns: a bare identifier, or few words with a follow-up cue."""
    stripped = text.strip()
    if not stripped:
        return False
    if script_lang(stripped) is None:
        return True
    cjk = len(_CJK.findall(stripped))
    if cjk:
        return cjk <= MAX_FOLLOWUP_HANZI and any(cue in stripped for cue in _ZH_CUES)
    words = [w.lower() for w in _WORD.findall(stripped)]
    return len(words) <= MAX_FOLLOWUP_WORDS and any(w.replace("'", "") in _EN_CUES or w in _EN_CUES for w in words)
