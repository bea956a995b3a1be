"""The reply pipeline: message -> reading -> route -> reply -> stream. The one place that decides.

Routes, in this order:
1. `act`       the message is a conversation act: thanks or an acknowledgement get one line that keeps the
               open topic; a bare reference (an order or phone number) inside a topic goes to a person with
               it, and without a topic we ask what it is about;
2. `handoff`   the customer asks for a human (contact_human), or the intent stayed uncertain for
               `handoff_after_uncertain_turns` turns in a row, or the manifest says so (policy);
3. `knowledge` a confident knowledge-base hit: the entry's text answers the question, cited;
4. `selected`  a reply-bank reply fits this message well (a situation, not just the intent family): for an
               uncertain reading, an out-of-scope one, a sensitive intent (the bank is reviewed text too), a
               language the generator does not write, or any language in `reply.selected_over_llm`;
5. `clarify`   the router is unsure and nothing above fits: ask which of the two likeliest topics;
6. `canned`    the manifest marks the intent sensitive: its reviewed text, verbatim, no model call;
7. `template`  a generated reply was wanted, but the generator does not declare this language;
8. `llm`       a generated reply, streamed, with the best knowledge passages in its prompt (cited).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import replace

from serve.acts import Act, strip_wrapping
from serve.admission import Admission
from serve.config import Settings
from serve.conversation import ConversationReader, search_query
from serve.errors import InvalidRequest
from serve.fixed_replies import FixedReplies
from serve.followup import is_question
from serve.generated import GeneratedReplies
from serve.generation.base import ChatMessage, Generator, VariantRouting
from serve.inbox import FeedbackInbox
from serve.knowledge.base import KnowledgeHit
from serve.knowledge.store import KnowledgeStore
from serve.metrics import Metrics
from serve.prompts import PromptLibrary
from serve.reply_bank import ReplySelector, Selection, is_angry
from serve.reply_cache import ReplyCache
from serve.reply_events import (
    Citation,
    DeltaEvent,
    DoneEvent,
    IntentEvent,
    Lang,
    ReplyEvent,
    ReplyRequest,
    RouteDecision,
)
from serve.reply_prompt import build_messages, fact_lead
from serve.reply_turn import Plan, ReplyTurn
from serve.response_cache import ResponseCache
from serve.retrieval.semantic import LANGS as SEMANTIC_LANGS
from serve.router.base import IntentClassifier, IntentResult
from serve.router.encoding import detect_lang
from serve.sessions import Session, SessionStore
from serve.short_messages import is_brief, is_short

logger = logging.getLogger(__name__)


def decide_route(
    intent: IntentResult,
    domain: str,
    lang: str,
    library: PromptLibrary,
    generator_languages: tuple[str, ...],
    uncertain_streak: int,
    act: Act | None = None,
    topic: str | None = None,
    knowledge: KnowledgeHit | None = None,
    selection: Selection | None = None,
    selected_over_llm: tuple[str, ...] = (),
    short: bool = True,
    own_facts: bool = False,
    in_conversation: bool = False,
    brief: bool | None = None,
    angry: bool = False,
    question: bool = False,
) -> RouteDecision:
    """The route of one message; `knowledge` and `selection` are given only when confident enough to send.
    `short`: the message is a few words, so a clarifying question is the useful answer to an unsure reading (a
    long message has said what it is about: it is acknowledged, and the detail a colleague needs asked for).
    `own_facts`: the customer context answers the intent (the template states those facts);
    `in_conversation`: earlier turns exist (an unsure short message is then a follow-up, not a new topic);
    `brief`: short enough to be a request unrelated to the business (default: `short`), see `is_brief`;
    `angry`: the message swears at or blames the brand: however short, it is a complaint, never refused;
    `question`: the message asks something (serve/followup.is_question)."""
    # Where nothing specific fits, a message is acknowledged and the detail a colleague needs asked for; but a
    # question asked in a conversation under way wants an answer in that conversation, and an acknowledgement
    # that asks for an account number again ignores it (judged on real follow-ups: it failed 8 times in 11).
    # It goes to a person, and the reply says why.
    acknowledge = (
        RouteDecision("handoff", "follow_up_question", handoff=True)
        if in_conversation and question
        else RouteDecision("template", "general_acknowledgement")
    )
    if act is not None:
        if act.kind == "reference" and topic is not None:
            return RouteDecision("act", "reference_for_open_topic", handoff=True)
        return RouteDecision("act", act.kind)
    if intent.label == "contact_human" and not intent.uncertain:
        return RouteDecision("handoff", "customer_requested_human", handoff=True)
    if knowledge is not None:
        cited = (Citation(knowledge.entry.id, knowledge.entry.title, knowledge.entry.lang, knowledge.score),)
        return RouteDecision(
            "knowledge", f"knowledge:{knowledge.entry.id}", cited, match_score=knowledge.score
        )
    chosen = (
        RouteDecision(
            "selected",
            f"reply_bank:{selection.reply.id}",
            handoff=selection.reply.handoff,
            match_score=selection.score,
        )
        if selection is not None
        else None
    )
    if intent.uncertain:
        if chosen is not None:
            return chosen
        if uncertain_streak + 1 >= library.manifest.handoff_after_uncertain_turns:
            return RouteDecision("handoff", "repeated_uncertain_intent", handoff=True)
        if (
            not short or in_conversation
        ):  # said what it is about, or follows up on it: acknowledge, ask the detail
            return acknowledge
        return RouteDecision("clarify", f"uncertain_intent:{intent.uncertain_reason}")
    if (
        intent.label == "out_of_scope"
        and chosen is None
        and (in_conversation or angry or not (short if brief is None else brief))
    ):
        # Messages come to the brand's own channel: a long one the router reads as unrelated, that no bank
        # reply fits (the bank has the short replies for requests that really are unrelated), is acknowledged,
        # not refused. Judged on real posts to shops and operators, most such readings were complaints. So is
        # a turn of a conversation under way (a place or a detail the customer adds to their case), and a
        # curse at the brand ("f*** @brand" got "I can't help with that here").
        return acknowledge
    rule = library.rule(domain, intent.label, lang)
    if rule.route == "handoff":
        return RouteDecision("handoff", rule.reason, handoff=True)
    if chosen is not None and (
        rule.route == "canned" or lang not in generator_languages or lang in selected_over_llm
    ):
        return chosen
    if rule.route == "canned":
        return RouteDecision(
            "canned", "sensitive_intent" if rule.reason == "manifest:intent" else rule.reason
        )
    if lang not in generator_languages:
        # The intent's template helps when it states the customer's own facts; otherwise it is one paragraph
        # for every message of the intent, which judges on real messages found acceptable 0 times in 20
        # (Chinese), while the acknowledgement that asks for the one missing detail passed 23 times in 29.
        if own_facts:
            return RouteDecision("template", f"language_not_supported_by_generator:{lang}")
        return acknowledge
    return RouteDecision("llm", "generated_reply")


# How much lower the bank's threshold is for a message the router reads as out of scope (see `plan`).
OUT_OF_SCOPE_EASING = 0.1


class ReplyPipeline:
    def __init__(
        self,
        *,
        router: IntentClassifier,
        generator: Generator,
        library: PromptLibrary,
        sessions: SessionStore,
        cache: ResponseCache | None,
        admission: Admission,
        settings: Settings,
        inbox: FeedbackInbox | None = None,
        knowledge: KnowledgeStore | None = None,
        selector: ReplySelector | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.router = router
        self.generator = generator
        self.library = library
        self.sessions = sessions
        self.inbox = inbox
        self.knowledge = knowledge
        self.selector = selector
        self.metrics = metrics
        self.settings = settings.reply
        self.knowledge_settings = settings.knowledge
        self.max_model_len = settings.generator.max_model_len
        self.max_tokens_limit = settings.generator.max_tokens_limit
        self.conversation = ConversationReader(router, sessions, settings.reply, settings.sessions.max_turns)
        # the engine pool, or whatever else routes to named variants; a plain engine has none
        self.variants = generator if isinstance(generator, VariantRouting) else None
        replies_cache = ReplyCache(cache, generator, settings.reply, library)
        self.generated = GeneratedReplies(generator, library, admission, replies_cache, settings.reply)
        self.fixed = FixedReplies(library, knowledge)

    # ------------------------------------------------------------------ deciding
    async def plan(
        self, request: ReplyRequest, session: Session | None, history: tuple[ChatMessage, ...]
    ) -> Plan:
        early = self._encode_for_search(request)
        reading = await self.conversation.read(request, session, history)
        if early is not None:
            await early
        intent, lang = reading.intent, reading.lang
        knowledge = selection = None
        passages: tuple[KnowledgeHit, ...] = ()
        # the customer's own facts answer before a general entry ("you have 1.4 GB left" beats "see My usage")
        own_facts = self._own_facts(request, lang, intent.label)
        if reading.act is None and not (intent.label == "contact_human" and not intent.uncertain):
            query = search_query(request.message, reading, history, self.knowledge_settings.history_turns)
            hits = self._knowledge_hits(request.domain, lang, query, intent)
            unrelated = intent.label == "out_of_scope" and not intent.uncertain
            if (
                hits
                and hits[0].score >= self.knowledge_settings.answer_min_score
                and not own_facts
                and not unrelated
            ):
                knowledge = hits[0]
            passages = tuple(h for h in hits if h.score >= self.knowledge_settings.passage_min_score)
            bank = self._bank
            if bank is not None:
                # Messages come to a brand's own channel: one the router reads as unrelated is still more
                # often a complaint or question about the business, so a bank reply needs less evidence.
                threshold = self.settings.select_min_score[lang] - (OUT_OF_SCOPE_EASING if unrelated else 0.0)
                selection = bank.select(
                    request.domain, lang, strip_wrapping(request.message) or query, intent, threshold
                )
            if knowledge is not None and selection is not None and selection.score > knowledge.score:
                knowledge = None  # the message fits a situation (a complaint, a fault) better than a fact
        decision = decide_route(
            intent,
            request.domain,
            lang,
            self.library,
            tuple(self.generator.languages),
            session.uncertain_streak if session else 0,
            reading.act,
            reading.topic,
            knowledge,
            selection,
            self.settings.selected_over_llm,
            is_short(request.message),
            own_facts,
            bool(history),
            is_brief(request.message),
            is_angry(request.message),
            is_question(strip_wrapping(request.message)),
        )
        if decision.route == "llm" and passages:
            passages = passages[: self.knowledge_settings.passages]
            decision = replace(
                decision,
                citations=tuple(Citation(h.entry.id, h.entry.title, h.entry.lang, h.score) for h in passages),
            )
        elif decision.route == "selected" and selection is not None and selection.reply.sources:
            decision = replace(decision, citations=self.fixed.sources(request.domain, lang, selection))
        text = (
            None
            if decision.route == "llm"
            else self.fixed.render(request, reading, decision, knowledge, selection)
        )
        logger.info(
            "reply.routed intent=%s confidence=%.3f route=%s reason=%s lang=%s backend=%s",
            intent.label,
            intent.confidence,
            decision.route,
            decision.reason,
            lang,
            intent.backend,
        )
        if self.metrics is not None:
            for citation in decision.citations:
                self.metrics.knowledge_hit(request.domain, citation.lang, citation.id)
        if self.inbox is not None:
            self.inbox.offer(request.message, intent, decision, lang, session, history)
        return Plan(reading, decision, text, passages)

    @property
    def _bank(self) -> ReplySelector | None:
        """The reply bank's selector when bank replies are on (`reply.reply_bank`), else None."""
        return self.selector if self.settings.reply_bank else None

    def _encode_for_search(self, request: ReplyRequest) -> asyncio.Future[object] | None:
        """The English search encoder's pass over the message, started in a worker thread while the router
        reads it (about 3 ms each on two cores: side by side instead of one after the other). The searches
        then find the vector in the encoder's cache; a message the reading turns into something else to
        search (a follow-up searched with the turns before it) is encoded again there."""
        semantic = self.knowledge.semantic if self.knowledge is not None else None
        searched = (
            self.knowledge is not None and self.knowledge.current is not None
        ) or self._bank is not None
        if semantic is None or not searched:
            return None
        text = strip_wrapping(request.message) or request.message
        if (request.lang if request.lang != "auto" else detect_lang(text)) not in SEMANTIC_LANGS:
            return None
        return asyncio.ensure_future(asyncio.to_thread(semantic.encode_one, text))

    def _own_facts(self, request: ReplyRequest, lang: Lang, intent: str) -> bool:
        """The customer context holds the facts that answer the intent (its lead sentence renders)."""
        return bool(request.context) and bool(
            self.library.lead(request.domain, lang, intent, request.context)
        )

    def _knowledge_hits(self, domain: str, lang: str, query: str, intent: IntentResult) -> list[KnowledgeHit]:
        base = self.knowledge.current if self.knowledge is not None else None
        if base is None:
            return []
        return base.search(
            domain,
            lang,
            query,
            intent.embedding,
            k=max(1, self.knowledge_settings.passages),
            intents={r.label: r.confidence for r in intent.ranking},
        )

    def build_messages(
        self,
        request: ReplyRequest,
        intent: str,
        lang: Lang,
        history: tuple[ChatMessage, ...],
        max_tokens: int,
        passages: tuple[KnowledgeHit, ...] = (),
    ) -> tuple[ChatMessage, ...]:
        return build_messages(
            self.library,
            self.generator,
            request,
            intent,
            lang,
            history,
            self.settings.max_history_turns,
            self.max_model_len - max_tokens,
            passages,
        )

    def _check_variant(self, request: ReplyRequest) -> None:
        """An unknown pinned variant is the request's error, before anything streams."""
        if request.variant is not None and self.variants is not None:
            self.variants.check_variant(request.variant)

    def _variant(self, request: ReplyRequest, affinity: str) -> str | None:
        """The variant this reply belongs to: pinned, else sticky by session (a generator with variants)."""
        if request.variant is not None:
            return request.variant
        return self.variants.variant_for(affinity) if self.variants is not None else None

    def _max_tokens(self, request: ReplyRequest) -> int:
        max_tokens = request.max_tokens or self.settings.max_tokens
        if max_tokens > self.max_tokens_limit:
            raise InvalidRequest(
                f"max_tokens is {max_tokens}; at most {self.max_tokens_limit}", param="max_tokens"
            )
        return max_tokens

    # --------------------------------------------------------------------- /v1/reply
    async def reply(
        self, request: ReplyRequest, turn: ReplyTurn | None = None
    ) -> AsyncGenerator[ReplyEvent, None]:
        """Events: IntentEvent, DeltaEvent..., DoneEvent. Errors before the first event propagate (HTTP
        errors); later ones are raised from the iterator (the API turns them into an `error` event). `turn`
        (made for `request` by the caller) is filled in as the reply goes, for `end_on_deadline` and usage."""
        turn = turn if turn is not None else ReplyTurn(request)
        self._check_variant(request)
        max_tokens = self._max_tokens(request)
        session, history = await self.conversation.load(request)
        turn.session = session
        plan = await self.plan(request, session, history)
        reading, decision = plan.reading, plan.decision
        turn.reading, turn.decision = reading, decision
        intent_event = IntentEvent(
            reading.intent, decision, reading.lang, reading.intent.uncertain_reason == "carried_over"
        )

        if plan.text is not None:
            yield intent_event
            turn.outcome.text, turn.outcome.ttft_ms = plan.text, turn.elapsed_ms()
            turn.streamed.append(plan.text)
            yield DeltaEvent(plan.text)
            await self._remember(turn, plan.text)
            yield self._done(turn)
            return

        intent = reading.intent.label
        turn.variant = self._variant(request, request.session_id or secrets.token_hex(8))
        messages = self.build_messages(request, intent, reading.lang, history, max_tokens, plan.passages)
        lead = fact_lead(self.library, request, intent, reading.lang, self.settings.fact_lead, history)
        outcome = turn.outcome
        digest = self.knowledge.digest if self.knowledge is not None and plan.passages else ""
        stream = self.generated.stream(
            request,
            intent,
            reading.lang,
            messages,
            lead,
            max_tokens,
            turn.variant,
            history,
            outcome,
            turn.elapsed_ms,
            digest,
        )
        async with aclosing(stream) as deltas:
            async for delta in deltas:
                if delta is None:
                    yield intent_event
                else:
                    turn.streamed.append(delta.text)
                    yield delta
        await self._remember(turn, outcome.text, outcome.variant)
        yield self._done(turn)

    async def end_on_deadline(self, turn: ReplyTurn) -> DoneEvent:
        """The `done` event of a reply the API stopped at its deadline (after its engine work was closed): the
        turn is remembered in the session with the text streamed so far (what the customer saw), and the usage
        counts the tokens generated until then."""
        outcome = turn.outcome
        outcome.text = turn.text
        outcome.variant = outcome.variant or turn.variant
        if not turn.remembered:
            await self._remember(turn, outcome.text, outcome.variant)
        return self._done(turn, "timeout")

    async def _remember(self, turn: ReplyTurn, text: str, variant: str | None = None) -> None:
        if turn.remembered or turn.reading is None or turn.decision is None:
            return
        turn.remembered = True  # before the save: a deadline during it does not save the turn twice
        await self.conversation.remember(
            turn.session, turn.request, turn.reading, turn.decision, text, variant
        )

    def _done(self, turn: ReplyTurn, finish: str | None = None) -> DoneEvent:
        """Every `done` event of /v1/reply is built here: the turn's route, timings and usage."""
        outcome, decision = turn.outcome, turn.decision
        total_ms = turn.elapsed_ms()
        handoff = decision is not None and decision.handoff
        return DoneEvent(
            finish_reason=finish or outcome.finish,
            handoff_needed=handoff,
            handoff_reason=decision.reason if decision is not None and handoff else None,
            prompt_tokens=outcome.prompt_tokens,
            completion_tokens=outcome.completion_tokens,
            router_ms=round(turn.reading.router_ms, 3) if turn.reading is not None else 0.0,
            queue_ms=round(outcome.queue_ms, 3),
            # a reply that ended with no text at all: its first (and only) event came at the end
            ttft_ms=outcome.ttft_ms or (0.0 if finish == "timeout" else total_ms),
            total_ms=total_ms,
            cached=outcome.cached,
            session_id=turn.request.session_id,
            variant=outcome.variant,
            fallback=outcome.fallback,
            citations=decision.citations if decision is not None else (),
        )

    # ------------------------------------------------------------------- /v1/suggest
    async def suggest(
        self, request: ReplyRequest, n: int, turn: ReplyTurn | None = None
    ) -> tuple[IntentResult, RouteDecision, Lang, list[dict[str, str]], dict[str, float]]:
        """Up to `n` suggested replies for a human agent: the route's own reply, other bank replies that fit
        the message, or replies generated concurrently through the same engine (in one task group: a failure
        cancels the others). `turn` gets the route and the usage as they are known (for the metrics, however
        the request ends)."""
        turn = turn if turn is not None else ReplyTurn(request)
        self._check_variant(request)
        self._max_tokens(request)
        session, history = await self.conversation.load(request)
        turn.session = session
        plan = await self.plan(request, session, history)
        reading, decision = plan.reading, plan.decision
        turn.reading, turn.decision = reading, decision
        if plan.text is not None:
            suggestions = [{"text": plan.text, "source": decision.route}]
            bank = self._bank
            if bank is not None and reading.act is None:
                for candidate in bank.candidates(
                    request.domain, reading.lang, request.message, reading.intent, k=n
                ):
                    text = self.library.bank_reply(
                        request.domain, reading.lang, candidate.reply, request.context, reading.given
                    )
                    if len(suggestions) < n and all(s["text"] != text for s in suggestions):
                        suggestions.append({"text": text, "source": "selected"})
        else:
            max_tokens = request.max_tokens or self.settings.suggest_max_tokens
            messages = self.build_messages(
                request, reading.intent.label, reading.lang, history, max_tokens, plan.passages
            )
            lead = fact_lead(
                self.library, request, reading.intent.label, reading.lang, self.settings.fact_lead, history
            )
            texts = await self.generated.suggestions(
                messages, n, max_tokens, request.session_id, request.variant, reading.lang, lead, turn.outcome
            )
            suggestions = [{"text": t, "source": "llm"} for t in texts]
        timings = {"router_ms": round(reading.router_ms, 3), "total_ms": turn.elapsed_ms()}
        return reading.intent, decision, reading.lang, suggestions, timings
