"""How a message is read inside its conversation: the session and history it belongs to, the act it
performs (acknowledgement, thanks, a bare reference), the intent it keeps or changes (follow-ups and nudges
lean on the conversation's topic), the language of the reply, the text retrieval searches with (a follow-up
with the turns before it) and which act reply fits where the conversation stands. The pipeline decides the
route from this reading and renders the reply; nothing here decides a route."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from serve.acts import Act, detect_act, given_references, strip_wrapping
from serve.config import ReplySettings
from serve.followup import (
    FOLLOWUP_OVERRIDABLE,
    FOLLOWUP_RECHECK_BELOW,
    carry_over,
    is_followup,
    is_nudge,
    script_lang,
)
from serve.generation.base import ChatMessage
from serve.reply_events import Lang, ReplyRequest, RouteDecision
from serve.router.base import IntentClassifier, IntentResult
from serve.sessions import Session, SessionStore, Turn


@dataclass(frozen=True, slots=True)
class Reading:
    intent: IntentResult
    act: Act | None
    topic: str | None  # the conversation's open topic (its last confident intent), None at the start
    lang: Lang
    last_reply: str | None  # the last assistant turn, if any
    last_route: str | None  # the route of that turn, when the session knows it
    router_ms: float
    given: dict[str, str] = field(
        default_factory=dict
    )  # numbers the customer already wrote (acts.given_references)


def search_query(message: str, reading: Reading, history: tuple[ChatMessage, ...], turns: int) -> str:
    """What the knowledge base and the reply bank are searched with: the message without @mentions and links,
    after the customer's last `turns` messages when it leans on them (its intent was carried over: a follow-up
    says little by itself, the turns before it name the problem)."""
    text = strip_wrapping(message) or message
    if reading.intent.uncertain_reason != "carried_over" or not turns:
        return text
    earlier = [strip_wrapping(m.content) for m in history if m.role == "user"][-turns:]
    return "\n".join([*earlier, text])


def act_reply_name(reading: Reading) -> str:
    """The act reply that fits where the conversation stands: a bare reference joins the open topic (or is
    asked about without one), anything after a handoff says a person has it, an acknowledgement of our own
    question is told to take their time; otherwise the act's own reply."""
    act = reading.act
    assert act is not None, "only a message that performs an act gets an act reply"
    if act.kind == "reference":
        return "reference_open" if reading.topic is not None else "reference_new"
    if reading.last_route == "handoff":
        return "after_handoff"
    if (
        act.kind == "acknowledgement"
        and reading.last_reply
        and reading.last_reply.rstrip().endswith(("?", "？"))
    ):
        return "waiting"
    return act.kind


class ConversationReader:
    def __init__(
        self, router: IntentClassifier, sessions: SessionStore, settings: ReplySettings, max_turns: int
    ) -> None:
        self.router = router
        self.sessions = sessions
        self.settings = settings
        self.max_turns = max_turns

    async def load(self, request: ReplyRequest) -> tuple[Session | None, tuple[ChatMessage, ...]]:
        """The session (new if unknown) and the history: the request's own, else the session's turns."""
        session = None
        if request.session_id is not None:
            session = await self.sessions.get(request.session_id) or Session(
                request.session_id, request.domain
            )
        if request.history or session is None:
            return session, request.history
        return session, tuple(
            ChatMessage("user" if t.role == "user" else "assistant", t.content) for t in session.turns
        )

    async def read(
        self, request: ReplyRequest, session: Session | None, history: tuple[ChatMessage, ...]
    ) -> Reading:
        started = time.perf_counter()
        [intent] = await self.router.classify([request.message], top_k=5)
        act = detect_act(request.message)
        topic, recent = await self._topic(session, history)
        if act is not None:
            # "ok", "thanks" or an order number alone: the topic stays the conversation's
            if topic is not None:
                intent = replace(intent, label=topic, uncertain=False, uncertain_reason="carried_over")
        else:
            intent = await self._follow(intent, request.message, topic, recent)
        last_reply = next((m.content for m in reversed(history) if m.role == "assistant"), None)
        last_route = (
            next((t.route for t in reversed(session.turns) if t.role == "assistant"), None)
            if session is not None
            else None
        )
        lang = self._language(request, intent, session, history)
        given = given_references([*(m.content for m in history if m.role == "user"), request.message])
        return Reading(
            intent, act, topic, lang, last_reply, last_route, (time.perf_counter() - started) * 1000, given
        )

    async def _follow(
        self, intent: IntentResult, message: str, topic: str | None, recent: str | None
    ) -> IntentResult:
        """Keep the conversation's intent for a message that leans on it: a nudge always; an unsure reading
        when the topic is among its top candidates; a follow-up read together with the previous turns."""
        followup = is_followup(message)
        nudge = is_nudge(message)
        if not (
            intent.uncertain
            or nudge
            or (
                followup
                and (intent.label in FOLLOWUP_OVERRIDABLE or intent.confidence < FOLLOWUP_RECHECK_BELOW)
            )
        ):
            return intent
        if topic is None:
            return intent
        if nudge:  # "any update?" asks about the conversation's topic, whatever it reads as alone
            return replace(intent, label=topic, uncertain=False, uncertain_reason="carried_over")
        carried = carry_over(intent, topic)
        if carried is not intent or not followup:
            return carried
        if recent is not None:
            [joint] = await self.router.classify([f"{recent}\n{message}"], top_k=5)
            if joint.label == topic and not joint.uncertain:
                return replace(
                    joint, uncertain=False, uncertain_reason="carried_over", embedding=intent.embedding
                )
        if script_lang(message) is None:  # nothing to classify on its own
            return replace(intent, label=topic, uncertain=False, uncertain_reason="carried_over")
        return intent

    async def _topic(
        self, session: Session | None, history: tuple[ChatMessage, ...]
    ) -> tuple[str | None, str | None]:
        """The conversation's last confident intent (from the session, else by classifying the history's
        customer messages) and those messages (up to three: a follow-up of a follow-up needs the turn that
        named the problem)."""
        recent_turns = [m.content for m in history if m.role == "user"][-3:]
        recent = "\n".join(recent_turns) if recent_turns else None
        if session is not None and session.last_intent is not None:
            return session.last_intent, recent
        if recent is None:
            return None, None
        [previous] = await self.router.classify([recent], top_k=1)
        return (None if previous.uncertain else previous.label), recent

    def _language(
        self,
        request: ReplyRequest,
        intent: IntentResult,
        session: Session | None,
        history: tuple[ChatMessage, ...],
    ) -> Lang:
        """The request's language; on auto, the message's; for a message that shows none (an order number,
        "ok", an emoji), the conversation's, else the deployment's default for the domain."""
        if request.lang != "auto":
            return request.lang
        own = script_lang(request.message)
        if own is not None:
            return intent.lang if intent.lang in ("en", "zh") else own  # type: ignore[return-value]
        if session is not None and session.lang in ("en", "zh"):
            return session.lang  # type: ignore[return-value]
        for message in reversed(history):
            if (lang := script_lang(message.content)) is not None:
                return lang  # type: ignore[return-value]
        return self.settings.default_language[request.domain]

    async def remember(
        self,
        session: Session | None,
        request: ReplyRequest,
        reading: Reading,
        decision: RouteDecision,
        reply: str,
        variant: str | None = None,
    ) -> None:
        if session is None:
            return
        intent = reading.intent
        session.domain = request.domain
        session.lang = script_lang(request.message) or session.lang or reading.lang
        if variant is not None:
            session.variant = variant
        session.add(Turn("user", request.message, intent.label, decision.route), self.max_turns)
        session.add(Turn("assistant", reply, intent.label, decision.route), self.max_turns)
        # turns the router could not read and nothing specific answered: after a few, a person takes over
        unanswered = decision.route == "clarify" or (
            intent.uncertain and decision.reason == "general_acknowledgement"
        )
        session.uncertain_streak = session.uncertain_streak + 1 if unanswered else 0
        if not intent.uncertain and reading.act is None:
            session.last_intent = intent.label
        await self.sessions.save(session)
