"""The text of every route that needs no model (act, knowledge, selected, handoff, clarify, canned, template),
once serve/pipeline.py has chosen the route."""

from __future__ import annotations

from serve.conversation import Reading, act_reply_name
from serve.knowledge.base import KnowledgeHit
from serve.knowledge.store import KnowledgeStore
from serve.prompts import PromptLibrary
from serve.reply_bank import Selection
from serve.reply_events import Citation, Lang, ReplyRequest, RouteDecision
from serve.router.base import IntentResult

# Never offered in "is this about X or Y?": nobody asks to talk about chit-chat or something else.
_NOT_OPTIONS = frozenset({"out_of_scope", "greeting_chitchat"})


def clarify_options(intent: IntentResult) -> list[str]:
    """The two likeliest topics a customer could mean (an empty list: the ranking has no two real topics, and
    the open question is asked)."""
    options = [r.label for r in intent.ranking if r.label not in _NOT_OPTIONS][:2]
    return options if len(options) == 2 else []


class FixedReplies:
    def __init__(self, library: PromptLibrary, knowledge: KnowledgeStore | None) -> None:
        self.library = library
        self.knowledge = knowledge  # read at each call: a reload swaps the base in use

    def render(
        self,
        request: ReplyRequest,
        reading: Reading,
        decision: RouteDecision,
        knowledge: KnowledgeHit | None,
        selection: Selection | None,
    ) -> str:
        """The reply of `decision`'s route (any route but llm)."""
        domain, lang, context, intent = request.domain, reading.lang, request.context, reading.intent
        library = self.library
        if decision.route == "act" and reading.act is not None:
            if reading.act.kind == "greeting":  # only an @mention or a link: ask how we can help
                return library.template_reply(domain, lang, "greeting_chitchat", context)
            return self._act_reply(domain, lang, reading)
        base = self.knowledge.current if self.knowledge is not None else None
        if decision.route == "knowledge" and knowledge is not None and base is not None:
            company = library.file(domain, lang).company
            return base.answer(
                knowledge, lang, request.message, company, {k: str(v) for k, v in context.items()}
            )
        if decision.route == "selected" and selection is not None:
            return library.bank_reply(domain, lang, selection.reply, context, reading.given)
        if decision.route == "handoff":
            return library.handoff_message(domain, lang, context, decision.reason)
        if decision.route == "clarify":
            return library.clarify_question(domain, lang, intent.label, clarify_options(intent), context)
        if decision.reason == "general_acknowledgement":
            return library.general_reply(domain, lang, context, reading.given)
        if decision.route == "canned":
            return library.canned_reply(domain, lang, intent.label, reading.given)
        return library.template_reply(domain, lang, intent.label, context)

    def sources(self, domain: str, lang: str, selection: Selection) -> tuple[Citation, ...]:
        """The knowledge-base entries a bank reply's facts come from (its `sources`), cited like an answer."""
        base = self.knowledge.current if self.knowledge is not None else None
        if base is None:
            return ()
        found = (base.entry(domain, lang, i) for i in selection.reply.sources)
        return tuple(Citation(e.id, e.title, e.lang, selection.score) for e in found if e is not None)

    def _act_reply(self, domain: str, lang: Lang, reading: Reading) -> str:
        act, name = reading.act, act_reply_name(reading)
        if act is not None and act.kind == "reference":
            reference, kind = act.reference or "", act.reference_kind or "order"
            return self.library.act_reply(domain, lang, name, reading.topic, reference, kind)
        return self.library.act_reply(domain, lang, name, reading.topic)
