"""Checks of one generated reply, shared by `csreply eval replies` and the fine-tuning gate.

* repetition: an n-gram (4 words, or 6 Chinese characters) that occurs 3 or more times;
* unsupported facts: numbers in the reply (amounts, prices, percentages, durations, dates, counts; Arabic
  digits, and Chinese numerals such as 三天 / 十五元 / 百分之二十 when they carry a unit) whose value appears
  nowhere in what the model was given: the system prompt (guidance and customer context) and the customer's
  messages;
* sentences: how many, and whether the reply ends at a sentence boundary;
* must_include: every listed string, compared case- and space-insensitively;
* chrF against a reference (sacrebleu: character n-grams 1..6, beta 2).
"""

from __future__ import annotations

import re
from typing import Any

from serve.generation.loop_guard import ends_sentence, repeated_ngram, split_sentences

_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
_CN_NUM = "零〇一二两三四五六七八九十百千万"
# A Chinese numeral is a fact only with a unit (一下, 一起, 统一 are not numbers).
_CN_FACT = re.compile(
    rf"(百分之[{_CN_NUM}]+)|([{_CN_NUM}]+)(?=个?工作日|天|日|小时|个小时|分钟|秒|周|星期|个月|月|年|元|块|角|折|号|次|GB|G|MB|%|％)"
)
_ARABIC = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?")
_EN_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "forty-five": 45,
    "fifty": 50,
    "sixty": 60,
    "ninety": 90,
    "hundred": 100,
}
_EN_FACT = re.compile(
    r"\b(" + "|".join(sorted(_EN_WORDS, key=len, reverse=True)) + r")[\s-]+"
    r"(?:business |working |calendar |full )?(day|days|hour|hours|week|weeks|month|months|year|years|minute|"
    r"minutes|percent|dollars?|euros?|pounds?|gb|mb)\b",
    re.IGNORECASE,
)
_LIST_MARKER = re.compile(r"(?m)^\s*\d{1,2}[.)]\s")


def chinese_numeral(text: str) -> float | None:
    """二十 -> 20, 三百五十 -> 350, 两万 -> 20000, 十五 -> 15, 一二三 -> 123 (digit by digit)."""
    if not text:
        return None
    if not any(c in _CN_UNITS for c in text):
        digits = [_CN_DIGITS.get(c) for c in text]
        return None if None in digits else float("".join(str(d) for d in digits))
    total, section, number = 0, 0, 0
    for char in text:
        if char in _CN_DIGITS:
            number = _CN_DIGITS[char]
        elif char == "万":
            section = (section + number) * 10000
            total += section
            section, number = 0, 0
        elif char in _CN_UNITS:
            section += (number or 1) * _CN_UNITS[char]
            number = 0
        else:
            return None
    return float(total + section + number)


def numbers_in(text: str, *, facts_only: bool = False) -> list[tuple[str, float]]:
    """(surface, value) of every number in `text`; with facts_only, list markers ("1. ") are skipped."""
    if facts_only:
        text = _LIST_MARKER.sub(" ", text)
    found: list[tuple[str, float]] = []
    for match in _ARABIC.finditer(text):
        whole = match.group(1).replace(",", "")
        value = float(f"{whole}.{match.group(2)}") if match.group(2) else float(whole)
        found.append((match.group(0), value))
    for match in _CN_FACT.finditer(text):
        surface = match.group(1) or match.group(2)
        number = chinese_numeral(surface.removeprefix("百分之"))
        if number is not None:
            found.append((surface, number))
    for match in _EN_FACT.finditer(text):
        found.append((match.group(0), float(_EN_WORDS[match.group(1).lower()])))
    return found


def supported_values(*sources: str) -> set[float]:
    """Every number the model was given, with each part of a date or time as its own value (2026-05-03
    supports 3 May; 14:30 supports 2:30 pm)."""
    values: set[float] = set()
    for source in sources:
        for _, value in numbers_in(source):
            values.add(value)
            if value > 12 and value == int(value):
                values.add(float(int(value) - 12))  # 14 (o'clock) supports 2 pm
        for part in re.findall(r"\d+", source):
            values.add(float(int(part)))
    return values


def unsupported_facts(reply: str, *sources: str) -> list[str]:
    """Numbers in the reply that appear in none of the sources."""
    support = supported_values(*sources)
    return [surface for surface, value in numbers_in(reply, facts_only=True) if value not in support]


def _fold(text: str) -> str:
    return "".join(text.lower().split())


def includes(reply: str, needle: str) -> bool:
    return _fold(needle) in _fold(reply)


def chrf(hypothesis: str, reference: str) -> float:
    """sentence-level chrF (0-100), sacrebleu's defaults: character n-grams 1..6, beta 2."""
    from sacrebleu.metrics import CHRF

    return float(CHRF().sentence_score(hypothesis, [reference]).score)


def check_reply(
    reply: str, *, sources: list[str], must_include: list[str] | None = None, reference: str | None = None
) -> dict[str, Any]:
    """Every content check of one reply; keys are stable (they end up in --json and in the gate)."""
    facts = unsupported_facts(reply, *sources)
    out: dict[str, Any] = {
        "repetition": repeated_ngram(reply) is not None,
        "unsupported_facts": facts,
        "has_unsupported_fact": bool(facts),
        "sentences": len(split_sentences(reply)),
        "complete": ends_sentence(reply),
    }
    if must_include:
        out["must_include_ok"] = all(includes(reply, s) for s in must_include)
    if reference:
        out["chrf"] = chrf(reply, reference)
    return out
