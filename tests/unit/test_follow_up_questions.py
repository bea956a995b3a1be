"""A question asked in a conversation under way, that nothing specific answers, goes to a person with a reply
that says why; outside a conversation, or without a question, the acknowledgement that asks for the missing
detail stays."""

from __future__ import annotations

import pytest

from serve.followup import is_question
from serve.pipeline import decide_route
from serve.prompts import PromptLibrary
from serve.router.base import IntentResult, Ranked


@pytest.mark.parametrize(
    "message",
    [
        "99套餐,这有什么区别吗？",
        "对  新装 你能受理吗",
        "明天是六一…你们不送点流量？",
        "为什么各种影响中都不提同一基站下的用户数量",
        "is it down",
        "can you check the fibre too?",
        "What about the second parcel",
    ],
)
def test_questions(message: str) -> None:
    assert is_question(message)


@pytest.mark.parametrize(
    "message",
    [
        "其实跟没说一样,无法解决问题",
        "没什么问题了，谢谢",
        "不怎么好用",
        "好吧,谢谢",
        "thanks that worked",
        "still no signal at the station",
        "so that's it then",
    ],
)
def test_statements(message: str) -> None:
    assert not is_question(message)


def _unsure(lang: str) -> IntentResult:
    ranking = (Ranked("plan_change", 0.41), Ranked("billing_inquiry", 0.35))
    return IntentResult("plan_change", 0.41, ranking, True, "low_confidence", "test", lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_follow_up_question_goes_to_a_person_and_the_reply_says_why(lang: str) -> None:
    library = PromptLibrary.load()
    decision = decide_route(
        _unsure(lang), "telecom", lang, library, (), 0, short=False, in_conversation=True, question=True
    )
    assert (decision.route, decision.reason, decision.handoff) == ("handoff", "follow_up_question", True)
    said = library.handoff_message("telecom", lang, {}, decision.reason)
    plain = library.handoff_message("telecom", lang, {})
    assert said != plain and said.endswith(plain)  # the reason first, then the usual hand-off


@pytest.mark.parametrize(("in_conversation", "question"), [(False, True), (True, False), (False, False)])
def test_otherwise_the_acknowledgement_stays(in_conversation: bool, question: bool) -> None:
    library = PromptLibrary.load()
    decision = decide_route(
        _unsure("zh"),
        "telecom",
        "zh",
        library,
        (),
        0,
        short=False,
        in_conversation=in_conversation,
        question=question,
    )
    assert (decision.route, decision.reason) == ("template", "general_acknowledgement")


def test_with_a_confident_reading_and_no_generator_language_too() -> None:
    """A Chinese follow-up question with a clear intent but nothing specific to say (no bank reply, no entry,
    no model that writes Chinese) was acknowledged the same way: it goes to a person too."""
    library = PromptLibrary.load()
    sure = IntentResult("plan_change", 0.93, (Ranked("plan_change", 0.93),), False, None, "test", "zh")
    asked = decide_route(
        sure, "telecom", "zh", library, (), 0, short=False, in_conversation=True, question=True
    )
    assert asked.reason == "follow_up_question"
    first = decide_route(sure, "telecom", "zh", library, (), 0, short=False, question=True)
    assert first.reason == "general_acknowledgement"
