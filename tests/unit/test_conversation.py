"""What the conversation adds to a message before the pipeline decides: the text retrieval searches with (a
follow-up is searched together with the turns that named the problem) and which act reply fits where the
conversation stands."""

from __future__ import annotations

import pytest

from serve.acts import Act
from serve.conversation import Reading, act_reply_name, search_query
from serve.generation.base import ChatMessage
from serve.router.base import IntentResult, Ranked

HISTORY = (
    ChatMessage("user", "my fibre keeps dropping every evening"),
    ChatMessage("assistant", "Sorry about that. Have you restarted the router?"),
    ChatMessage("user", "yes twice"),
    ChatMessage("assistant", "Thanks. Is the light on the router red?"),
)


def reading(
    reason: str | None = None,
    act: Act | None = None,
    topic: str | None = None,
    last_reply: str | None = None,
    last_route: str | None = None,
) -> Reading:
    intent = IntentResult(
        "network_fault", 0.9, (Ranked("network_fault", 0.9),), reason is not None, reason, "test", "en"
    )
    return Reading(intent, act, topic, "en", last_reply, last_route, 1.0)


def test_a_carried_over_follow_up_is_searched_after_the_customers_last_turns() -> None:
    query = search_query("@shop it is still red", reading("carried_over"), HISTORY, turns=2)
    assert query == "my fibre keeps dropping every evening\nyes twice\nit is still red"
    assert search_query("it is still red", reading("carried_over"), HISTORY, turns=1).startswith("yes twice")


@pytest.mark.parametrize("reason", [None, "low_confidence"])
def test_a_message_that_stands_on_its_own_is_searched_alone(reason: str | None) -> None:
    assert search_query("@shop is my fibre down", reading(reason), HISTORY, turns=2) == "is my fibre down"
    assert search_query("is my fibre down", reading("carried_over"), HISTORY, turns=0) == "is my fibre down"


def test_the_act_reply_follows_the_conversation() -> None:
    reference = Act("reference", "A77120", "order")
    assert act_reply_name(reading(act=reference, topic="billing_dispute")) == "reference_open"
    assert act_reply_name(reading(act=reference)) == "reference_new"
    thanks, ok = Act("thanks"), Act("acknowledgement")
    assert act_reply_name(reading(act=thanks, last_route="handoff")) == "after_handoff"
    assert act_reply_name(reading(act=ok, last_reply="Could you send me the order number? ")) == "waiting"
    assert act_reply_name(reading(act=ok, last_reply="It ships today.")) == "acknowledgement"
    assert act_reply_name(reading(act=thanks, last_reply="Anything else?")) == "thanks"
