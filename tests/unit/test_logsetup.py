"""Log redaction: e-mails, ID, phone and card numbers are replaced, in English and Chinese text, and lines
skipped by the quick check come out exactly as all six patterns would leave them."""

from __future__ import annotations

import pytest

from serve.logsetup import _REDACTIONS, redact


def every_pattern(text: str) -> str:
    for pattern, replacement in _REDACTIONS:
        text = pattern.sub(replacement, text)
    return text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mail me at jane.doe+cs@example.co.uk now", "mail me at <email> now"),
        ("身份证11010519491231002X请核对", "身份证<id>请核对"),
        ("call +86 138 1234 5678 today", "call <phone> today"),
        ("我的手机13812345678", "我的手机<phone>"),
        ("card 4111 1111 1111 1111 expired", "card <card> expired"),
        ("office (020) 8765-4321 ext", "office <phone> ext"),
    ],
)
def test_personal_numbers_and_emails_are_redacted(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "reply.routed intent=roaming_international confidence=0.999 route=llm reason=generated_reply lang=en",
        "http.request method=POST path=/v1/reply status=200 ms=12.3",
        "reply.done completion_tokens=256",
        "order 1234567 shipped",
        "order 123456 shipped",
        "a@b",
        "1-2-3-4-5-6-7-8",
        "12 34 56 78",
        "1234 567",
        "(12) 345 6",
        "tel 555-0100 and 555-0199",
        "",
        "订单号20231203001已发货",
        "x" * 500 + "9" * 8,
    ],
)
def test_the_quick_check_never_skips_a_line_a_pattern_would_change(text: str) -> None:
    assert redact(text) == every_pattern(text)
