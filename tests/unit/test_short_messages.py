"""Which messages count as short: only those get a clarifying question when the router is unsure; a longer
one has said what it is about and gets the acknowledgement that asks for the missing detail."""

from __future__ import annotations

import pytest

from serve.pipeline import decide_route
from serve.prompts import PromptLibrary
from serve.reply_bank import is_angry
from serve.router.base import IntentResult, Ranked
from serve.short_messages import is_brief, is_short


@pytest.mark.parametrize(
    "message",
    [
        "hello?",
        "is this true? https://example.com/post/1",
        "@ExampleShop looks like you are down!! #outage #again #today",
        "order 12345678 ???",
        "你好",
        "这是真的吗？@示例商城",
    ],
)
def test_a_few_words_are_short(message: str) -> None:
    assert is_short(message)


@pytest.mark.parametrize(
    "message",
    [
        "my phone stopped working with your network after the update",  # 10 words
        "why are you still not delivering to my town",
        "每个月流量都不清零还说是优惠太过分了",  # 17 hanzi: a whole complaint
        "客服的态度让我很不舒服",
    ],
)
def test_a_sentence_that_says_what_it_is_about_is_not_short(message: str) -> None:
    assert not is_short(message)


def test_hashtags_mentions_links_and_numbers_do_not_count_as_words() -> None:
    wrapped = "@a @b #one #two #three #four #five #six #seven 1 2 3 4 5 6 7 https://x.y/z help me"
    assert is_short(wrapped)


def test_a_one_sentence_request_is_still_brief_enough_to_be_unrelated() -> None:
    """The out-of-scope reply keeps its longer limit: a one-sentence request for something else is declined,
    not acknowledged as a complaint."""
    request = "write a python function that reverses a string"
    assert not is_short(request) and is_brief(request)
    assert not is_brief(
        "I have been waiting three weeks for someone from your team to come and fix the line, nobody came"
    )


def _unrelated() -> IntentResult:
    return IntentResult("out_of_scope", 0.97, (Ranked("out_of_scope", 0.97),), False, None, "test", "zh")


def test_a_brief_unrelated_first_message_is_declined_but_a_turn_of_a_case_is_acknowledged() -> None:
    library = PromptLibrary.load()
    first = decide_route(_unrelated(), "telecom", "zh", library, (), 0, short=False, brief=True)
    assert first.route == "canned"
    follow_up = decide_route(
        _unrelated(), "telecom", "zh", library, (), 0, short=False, brief=True, in_conversation=True
    )
    assert (follow_up.route, follow_up.reason) == ("template", "general_acknowledgement")


@pytest.mark.parametrize("message", ["Fuck @ExampleMobile.", "worst company ever @ExampleShop", "什么破服务"])
def test_a_curse_at_the_brand_is_a_complaint_however_short(message: str) -> None:
    library = PromptLibrary.load()
    assert is_angry(message) and is_brief(message)
    decision = decide_route(
        _unrelated(), "telecom", "en", library, (), 0, short=True, brief=True, angry=is_angry(message)
    )
    assert (decision.route, decision.reason) == ("template", "general_acknowledgement")
