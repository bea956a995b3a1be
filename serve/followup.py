"""Messages that only make sense inside their conversation: follow-ups ("I already restarted it",
"那怎么办", "which one?") and bare identifiers (an order number alone). Such a message keeps the
conversation's intent and language instead of being classified (and answered) on its own."""

from __future__ import annotations

import re
from dataclasses import replace

from serve.router.base import IntentResult

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
_HAS_DIGIT = re.compile(r"\d")
_EN_CUES = frozenset(
    "still already again it its that this those these which what why how when yes yeah yep no nope ok okay "
    "same tried done didnt didn't doesnt doesn't nothing anything else then so and but also too one".split()
)
# Strong cues lean on the previous turns wherever they stand; weak ones only in a very short message.
_ZH_STRONG = (
    "已经",
    "怎么办",
    "什么意思",
    "哪个",
    "哪一个",
    "还是不行",
    "还是没",
    "还没好",
    "试过",
    "依然",
    "仍然",
    "一样",
    "不行啊",
    "没用",
)
_ZH_WEAK = ("那", "这", "呢", "吗", "又", "没", "还", "好的", "然后", "嗯")
MAX_FOLLOWUP_WORDS = 12
MAX_FOLLOWUP_HANZI = 16
MAX_WEAK_FOLLOWUP_HANZI = 6


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
        if cjk <= MAX_WEAK_FOLLOWUP_HANZI and any(cue in stripped for cue in _ZH_WEAK):
            return True
        return cjk <= MAX_FOLLOWUP_HANZI and any(cue in stripped for cue in _ZH_STRONG)
    words = [w.lower() for w in _WORD.findall(stripped)]
    return len(words) <= MAX_FOLLOWUP_WORDS and any(
        w.replace("'", "") in _EN_CUES or w in _EN_CUES for w in words
    )


# Nudges: a customer chasing the conversation ("any update?", "还在吗", "结果呢"). On their own they read as
# order tracking or a greeting; inside a conversation they ask about whatever it is about.
_NUDGES = frozenset(  # compared without spaces and punctuation, in lower case
    n.replace(" ", "")
    for n in "any update|any updates|any news|any progress|any luck|an update|update|update please|updates|"
    "news|status|status update|any update on this|any update on that|any update on it|so|and|well|now what|"
    "what now|anyone there|anybody there|are you there|you there|still there|still waiting|"
    "im still waiting|i am still waiting|following up|just following up|follow up|any answer|"
    "有消息了吗|有消息吗|有结果了吗|有结果吗|有进展吗|有进度吗|进度呢|进度怎么样|进度怎么样了|结果呢|结果怎么样|"
    "怎么样了|处理得怎么样了|处理好了吗|好了吗|好了没|好了没有|在吗|还在吗|人呢|有人吗|然后呢|还没好吗|还要多久|"
    "請問有消息了嗎|有消息了嗎|在嗎|還在嗎|結果呢|怎麼樣了".split("|")
)
_NUDGE_STRIP = re.compile(r"[\s?？!！.。,，~…'’]+")


def is_nudge(text: str) -> bool:
    """A message that only chases the conversation, with no topic of its own ("any update??", "在吗？")."""
    return _NUDGE_STRIP.sub("", text.lower()) in _NUDGES


# Questions: a question mark, a Chinese question word or a sentence-final question particle, or an English
# question opening. "没什么" (nothing) and "不怎么" (not very) are statements.
_QUESTION_MARK = re.compile(r"[?？]")
_ZH_QUESTION = re.compile(
    r"(?<![没不])什么|(?<!不)怎么|为什么|为何|多久|多少|哪|能不能|能否|可不可以|是不是|是否|有没有|啥|咋"
    r"|[吗呢么嘛][\s。！!…~～]*$"
)
_EN_QUESTION = re.compile(
    r"^(?:what|why|how|when|where|which|who|whose|can|could|is|are|was|were|do|does|did|will|would|should|"
    r"shall|may|have|has)\b",
    re.I,
)


def is_question(text: str) -> bool:
    """The message asks something (not: states, complains or thanks)."""
    stripped = text.strip()
    return bool(
        _QUESTION_MARK.search(stripped) or _ZH_QUESTION.search(stripped) or _EN_QUESTION.match(stripped)
    )


CARRY_OVER_TOP_K = 3
# Labels a short follow-up often gets on its own ("I already restarted it" reads as chit-chat or out of
# scope); for a follow-up they are re-decided with the conversation.
FOLLOWUP_OVERRIDABLE = frozenset({"out_of_scope", "greeting_chitchat"})
# Below this confidence a follow-up is also checked against the conversation: a router tuned to ask few
# clarifying questions can be fairly sure of a wrong reading ("I have already restarted the router" as a
# return) when the message alone says too little.
FOLLOWUP_RECHECK_BELOW = 0.9


def carry_over(intent: IntentResult, previous: str | None) -> IntentResult:
    """A follow-up ("I already restarted it twice") rarely names its intent. When the router is unsure and
    the conversation's last confident intent is still among its top candidates, keep that intent."""
    if not intent.uncertain or previous is None:
        return intent
    for ranked in intent.ranking[:CARRY_OVER_TOP_K]:
        if ranked.label == previous:
            return replace(
                intent,
                label=ranked.label,
                confidence=ranked.confidence,
                uncertain=False,
                uncertain_reason="carried_over",
            )
    return intent
