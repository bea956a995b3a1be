"""The reply pipeline: message -> intent -> route -> prompt -> generator -> stream. The one place that decides.

Routes, in this order:
1. `handoff`  the customer asks for a human (contact_human), or the intent stayed uncertain for
              `handoff_after_uncertain_turns` turns in a row, or the manifest says so (policy);
2. `clarify`  the router is unsure (low confidence or small top-1/top-2 margin): ask which of the two;
3. `canned`   the manifest marks the intent sensitive: its reviewed text, verbatim, no model call;
4. `template` a generated reply was wanted, but the generator does not declare this language: the
              intent's template reply filled from the customer context, no model call;
5. `llm`      a generated reply, streamed (cached for FAQ-like questions without context or history).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import replace

from serve.admission import Admission
from serve.config import Settings
from serve.errors import BackendUnavailable, InvalidRequest
from serve.followup import (
    FOLLOWUP_OVERRIDABLE,
    FOLLOWUP_RECHECK_BELOW,
    carry_over,
    is_followup,
    is_nudge,
    script_lang,
)
from serve.generation.base import ChatMessage, GenerationRequest, Generator
from serve.generation.loop_guard import LoopGuard
from serve.inbox import FeedbackInbox
from serve.prompts import PromptLibrary
from serve.reply_prompt import after_lead, build_messages, fact_lead
from serve.response_cache import ResponseCache, cache_key, prompt_version, should_store, variant_of
from serve.reply_events import (
    DeltaEvent,
    DoneEvent,
    IntentEvent,
    Lang,
    ReplyEvent,
    ReplyRequest,
    RouteDecision,
)
from serve.response_cache import engine_fingerprint
from serve.router.base import IntentClassifier, IntentResult
from serve.sessions import Session, SessionStore, Turn

logger = logging.getLogger(__name__)


# In the last this-many tokens of a reply's budget the loop guard holds each sentence back until it ends,
# so a reply the budget cuts still ends at a full stop (a sentence is rarely longer than this).
NEAR_LIMIT_TOKENS = 24

def decide_route(intent: IntentResult, domain: str, lang: str, library: PromptLibrary,
                 generator_languages: tuple[str, ...], uncertain_streak: int) -> RouteDecision:
    if intent.label == "contact_human" and not intent.uncertain:
        return RouteDecision("handoff", "customer_requested_human")
    if intent.uncertain:
        if uncertain_streak + 1 >= library.manifest.handoff_after_uncertain_turns:
            return RouteDecision("handoff", "repeated_uncertain_intent")
        return RouteDecision("clarify", f"uncertain_intent:{intent.uncertain_reason}")
    rule = library.rule(domain, intent.label, lang)
    if rule.route == "handoff":
        return RouteDecision("handoff", rule.reason)
    if rule.route == "canned":
        return RouteDecision("canned", "sensitive_intent" if rule.reason == "manifest:intent" else rule.reason)
    if lang not in generator_languages:
        return RouteDecision("template", f"language_not_supported_by_generator:{lang}")
    return RouteDecision("llm", "generated_reply")


class ReplyPipeline:
    def __init__(self, *, router: IntentClassifier, generator: Generator, library: PromptLibrary,
                 sessions: SessionStore, cache: ResponseCache | None, admission: Admission, settings: Settings,
                 inbox: FeedbackInbox | None = None) -> None:
        self.router = router
        self.generator = generator
        self.library = library
        self.sessions = sessions
        self.cache = cache
        self.admission = admission
        self.inbox = inbox
        self.settings = settings.reply
        self.max_model_len = settings.generator.max_model_len
        self.max_tokens_limit = settings.generator.max_tokens_limit
        self.max_turns = settings.sessions.max_turns
        self._cache_variants: dict[int, str] = {}  # per max_tokens; the rest is fixed while the server runs

    # ------------------------------------------------------------------ shared steps
    async def _load_session(self, request: ReplyRequest) -> Session | None:
        if request.session_id is None:
            return None
        session = await self.sessions.get(request.session_id)
        return session or Session(request.session_id, request.domain)

    def _history(self, request: ReplyRequest, session: Session | None) -> tuple[ChatMessage, ...]:
        if request.history or session is None:
            return request.history
        return tuple(ChatMessage("user" if t.role == "user" else "assistant", t.content) for t in session.turns)

    async def route(self, request: ReplyRequest, session: Session | None,
                    history: tuple[ChatMessage, ...] = ()) -> tuple[IntentResult, RouteDecision, Lang, float]:
        started = time.perf_counter()
        [intent] = await self.router.classify([request.message], top_k=5)
        followup = is_followup(request.message)
        nudge = is_nudge(request.message)
        if intent.uncertain or nudge or (followup and (intent.label in FOLLOWUP_OVERRIDABLE
                                                       or intent.confidence < FOLLOWUP_RECHECK_BELOW)):
            intent = await self._follow_conversation(intent, request.message, followup, nudge, session, history)
        router_ms = (time.perf_counter() - started) * 1000
        lang = self._language(request, intent, session, history)
        decision = decide_route(intent, request.domain, lang, self.library, tuple(self.generator.languages),
                                session.uncertain_streak if session else 0)
        logger.info("reply.routed intent=%s confidence=%.3f route=%s reason=%s lang=%s backend=%s",
                    intent.label, intent.confidence, decision.route, decision.reason, lang, intent.backend)
        if self.inbox is not None:
            self.inbox.offer(request.message, intent, decision, lang, session, history)
        return intent, decision, lang, router_ms

    async def _follow_conversation(self, intent: IntentResult, message: str, followup: bool, nudge: bool,
                                   session: Session | None, history: tuple[ChatMessage, ...]) -> IntentResult:
        """Keep the conversation's intent for a message that leans on it: first the top-k carry-over rule,
        then, for a follow-up, the previous customer turn and this message classified together."""
        previous, last_user = await self._previous_intent(session, history)
        if previous is None:
            return intent
        if nudge:  # "any update?" asks about the conversation's topic, whatever it reads as alone
            return replace(intent, label=previous, uncertain=False, uncertain_reason="carried_over")
        carried = carry_over(intent, previous)
        if carried is not intent or not followup:
            return carried
        if last_user is not None:
            [joint] = await self.router.classify([f"{last_user}\n{message}"], top_k=5)
            if joint.label == previous and not joint.uncertain:
                return replace(joint, uncertain=False, uncertain_reason="carried_over")
        if script_lang(message) is None:  # a bare order number or "ok": nothing to classify on its own
            return replace(intent, label=previous, uncertain=False, uncertain_reason="carried_over")
        return intent

    def _language(self, request: ReplyRequest, intent: IntentResult, session: Session | None,
                  history: tuple[ChatMessage, ...]) -> Lang:
        """The request's language; on auto, the message's, or the conversation's when the message shows
        none (a bare order number in a Chinese chat gets a Chinese reply)."""
        if request.lang != "auto":
            return request.lang
        if script_lang(request.message) is None:
            if session is not None and session.lang in ("en", "zh"):
                return session.lang  # type: ignore[return-value]
            for message in reversed(history):
                if message.role == "user" and (lang := script_lang(message.content)) is not None:
                    return lang  # type: ignore[return-value]
        return intent.lang  # type: ignore[return-value]

    async def _previous_intent(self, session: Session | None,
                               history: tuple[ChatMessage, ...]) -> tuple[str | None, str | None]:
        """The conversation's last confident intent (from the session, else by classifying the history's
        last customer message) and the customer's recent messages (up to three: a follow-up of a follow-up
        needs the turn that named the problem)."""
        recent = [m.content for m in history if m.role == "user"][-3:]
        last_user = "\n".join(recent) if recent else None
        if session is not None and session.last_intent is not None:
            return session.last_intent, last_user
        if last_user is None:
            return None, None
        [previous] = await self.router.classify([last_user], top_k=1)
        return (None if previous.uncertain else previous.label), last_user

    def fixed_reply(self, request: ReplyRequest, intent: IntentResult, decision: RouteDecision, lang: Lang) -> str:
        """The reply of every route that needs no model."""
        domain, context = request.domain, request.context
        if decision.route == "handoff":
            return self.library.handoff_message(domain, lang, context)
        if decision.route == "clarify":
            options = [r.label for r in intent.ranking[:2]]
            return self.library.clarify_question(domain, lang, intent.label, options, context)
        if decision.route == "canned":
            return self.library.canned_reply(domain, lang, intent.label)
        return self.library.template_reply(domain, lang, intent.label, context)

    def build_messages(self, request: ReplyRequest, intent: str, lang: Lang, history: tuple[ChatMessage, ...],
                       max_tokens: int) -> tuple[ChatMessage, ...]:
        return build_messages(self.library, self.generator, request, intent, lang, history,
                              self.settings.max_history_turns, self.max_model_len - max_tokens)

    def _check_variant(self, request: ReplyRequest) -> None:
        """An unknown pinned variant is the request's error, before anything streams."""
        find = getattr(self.generator, "member", None)
        if request.variant is not None and find is not None:
            find(request.variant)

    def _variant(self, request: ReplyRequest, affinity: str) -> str | None:
        """The engine-pool member this reply belongs to: pinned, else sticky by session (pool only)."""
        if request.variant is not None:
            return request.variant
        variant_for = getattr(self.generator, "variant_for", None)
        return variant_for(affinity) if variant_for is not None else None

    def _max_tokens(self, request: ReplyRequest) -> int:
        max_tokens = request.max_tokens or self.settings.max_tokens
        if max_tokens > self.max_tokens_limit:
            raise InvalidRequest(f"max_tokens is {max_tokens}; at most {self.max_tokens_limit}", param="max_tokens")
        return max_tokens

    async def _remember(self, session: Session | None, request: ReplyRequest, intent: IntentResult,
                        decision: RouteDecision, reply: str, variant: str | None = None) -> None:
        if session is None:
            return
        session.domain = request.domain
        session.lang = self._conversation_lang(request.message, session.lang)
        if variant is not None:
            session.variant = variant
        session.add(Turn("user", request.message, intent.label, decision.route), self.max_turns)
        session.add(Turn("assistant", reply, intent.label, decision.route), self.max_turns)
        session.uncertain_streak = session.uncertain_streak + 1 if decision.route == "clarify" else 0
        if not intent.uncertain:
            session.last_intent = intent.label
        await self.sessions.save(session)

    @staticmethod
    def _conversation_lang(message: str, current: str | None) -> str | None:
        return script_lang(message) or current

    # --------------------------------------------------------------------- /v1/reply
    async def reply(self, request: ReplyRequest) -> AsyncGenerator[ReplyEvent, None]:
        """Events: IntentEvent, DeltaEvent..., DoneEvent. Errors before the first event propagate (HTTP
        errors); later ones are raised from the iterator (the API turns them into an `error` event)."""
        started = time.perf_counter()
        self._check_variant(request)
        max_tokens = self._max_tokens(request)
        session = await self._load_session(request)
        history = self._history(request, session)
        intent, decision, lang, router_ms = await self.route(request, session, history)

        def elapsed() -> float:
            return round((time.perf_counter() - started) * 1000, 3)

        def done(finish: str, prompt: int = 0, completion: int = 0, queue_ms: float = 0.0, ttft: float = 0.0,
                 cached: bool = False, variant: str | None = None, fallback: str | None = None) -> DoneEvent:
            handoff = decision.route == "handoff"
            return DoneEvent(finish, handoff, decision.reason if handoff else None, prompt, completion,
                             round(router_ms, 3), round(queue_ms, 3), ttft, elapsed(), cached, request.session_id,
                             variant, fallback)

        if decision.route != "llm":
            text = self.fixed_reply(request, intent, decision, lang)
            yield IntentEvent(intent, decision, lang, intent.uncertain_reason == "carried_over")
            ttft = elapsed()
            yield DeltaEvent(text)
            await self._remember(session, request, intent, decision, text)
            yield done("stop", ttft=ttft)
            return

        request_id = f"reply-{secrets.token_hex(8)}"
        variant = self._variant(request, request.session_id or request_id)
        key = None
        if self.cache is not None and not request.context and not history:
            # Each A/B variant writes its own replies, and the key covers everything else that shapes one.
            key = cache_key(request.domain, lang, f"{intent.label}@{variant or ''}", request.message,
                            self._cache_variant(max_tokens))
            hit = await self.cache.get(key)
            if hit is not None:
                yield IntentEvent(intent, decision, lang, intent.uncertain_reason == "carried_over")
                ttft = elapsed()
                yield DeltaEvent(hit)
                await self._remember(session, request, intent, decision, hit)
                yield done("stop", ttft=ttft, cached=True)
                return

        messages = self.build_messages(request, intent.label, lang, history, max_tokens)
        lead = fact_lead(self.library, request, intent.label, lang, self.settings.fact_lead, history)
        slot = await self.admission.acquire(1, "reply")
        try:
            yield IntentEvent(intent, decision, lang, intent.uncertain_reason == "carried_over")
            generation = GenerationRequest(
                request_id=request_id, messages=messages, max_new_tokens=max_tokens,
                temperature=self.settings.temperature, seed=0 if self.settings.temperature > 0 else None,
                affinity=request.session_id or request_id, variant=variant, prefix=lead,
            )
            parts: list[str] = []
            ttft = 0.0

            def add(text: str) -> str:
                """One delta of the reply: the first one sets TTFT; the model's first words follow the lead."""
                nonlocal ttft
                if not parts:
                    ttft = elapsed()
                elif lead and len(parts) == 1:
                    text = after_lead(text, lang)
                parts.append(text)
                return text

            guard = LoopGuard(lang, max_sentences=self.settings.max_sentences, enabled=self.settings.loop_guard)
            if lead:  # the facts go first, before the engine has even started
                guard.seed(lead)
                yield DeltaEvent(add(lead))
            final = None
            steps = 0
            try:
                async with aclosing(self.generator.generate(generation)) as chunks:
                    async for chunk in chunks:
                        steps += 1
                        near_limit = steps >= max_tokens - min(NEAR_LIMIT_TOKENS, max_tokens // 4)
                        released = guard.push(chunk.text, near_limit) if chunk.text else ""
                        if released:
                            yield DeltaEvent(add(released))
                        if chunk.finish_reason:
                            final = chunk
                        if guard.tripped:
                            break  # leaving the block closes the stream, which aborts the request in the engine
            except BackendUnavailable as exc:
                if len(parts) > bool(lead):
                    raise
                # Last resort: no generator could start the reply, so the intent's reviewed template answers.
                logger.error("reply.generator_unavailable fallback=template error=%s", exc.message)
                template = self.library.template_reply(request.domain, lang, intent.label, request.context)
                yield DeltaEvent(add(template))
                text = "".join(parts)
                await self._remember(session, request, intent, decision, text)
                yield done("stop", ttft=ttft, fallback="template:generator_unavailable")
                return
            tail, finish = guard.finish(final.finish_reason if final else None)
            if tail:
                yield DeltaEvent(add(tail))
        finally:
            slot.release()
        text = "".join(parts)
        if key is not None and should_store(finish, text):
            await self.cache.set(key, text)  # type: ignore[union-attr]
        served_by = final.served_by if final is not None else variant
        await self._remember(session, request, intent, decision, text, served_by)
        logger.info("reply.done route=llm finish=%s variant=%s completion_tokens=%s", finish, served_by,
                    final.completion_tokens if final is not None else steps)
        admission_ms = slot.queued_s * 1000
        if final is None:  # the guard stopped the engine: the prompt is known, the reply took `steps` chunks
            yield done(finish, self.generator.count_prompt_tokens(messages), steps, admission_ms, ttft or elapsed(),
                       variant=served_by)
            return
        queue_ms = admission_ms + (final.queue_ms or 0.0)  # admission queue + the engine's own
        yield done(finish, final.prompt_tokens or 0, final.completion_tokens or 0, queue_ms, ttft or elapsed(),
                   variant=served_by)

    def _cache_variant(self, max_tokens: int) -> str:
        """Everything besides the question that shapes a cached reply: the engine and its decoding defaults
        (penalties, guards), the reply settings, max_tokens and the prompt library's version. All of it but
        max_tokens is fixed once the services are built, so each digest is computed once."""
        known = self._cache_variants.get(max_tokens)
        if known is None:
            engines = [m.generator for m in getattr(self.generator, "members", ())] or [self.generator]
            decoding = [engine_fingerprint(engine) for engine in engines]
            known = self._cache_variants[max_tokens] = variant_of(
                backend=self.generator.name, model=self.generator.model_name, decoding=decoding,
                reply=self.settings.model_dump(mode="json"), max_tokens=max_tokens,
                prompts=prompt_version(self.library))
        return known

    # ------------------------------------------------------------------- /v1/suggest
    async def suggest(self, request: ReplyRequest, n: int) -> tuple[IntentResult, RouteDecision, Lang, list[dict[str, str]], dict[str, float]]:
        """Up to `n` suggested replies for a human agent, generated concurrently through the same engine."""
        started = time.perf_counter()
        self._check_variant(request)
        max_tokens = self._max_tokens(request)
        session = await self._load_session(request)
        history = self._history(request, session)
        intent, decision, lang, router_ms = await self.route(request, session, history)
        if decision.route != "llm":
            suggestions = [{"text": self.fixed_reply(request, intent, decision, lang), "source": decision.route}]
            timings = {"router_ms": round(router_ms, 3), "total_ms": round((time.perf_counter() - started) * 1000, 3)}
            return intent, decision, lang, suggestions, timings
        max_tokens = request.max_tokens or self.settings.suggest_max_tokens
        messages = self.build_messages(request, intent.label, lang, history, max_tokens)
        slot = await self.admission.acquire(n, "reply")
        try:
            base = secrets.randbits(30)
            affinity = request.session_id or f"suggest-{base}"
            lead = fact_lead(self.library, request, intent.label, lang, self.settings.fact_lead, history)
            texts = await asyncio.gather(*(self._generate_text(messages, max_tokens, base + i, affinity, request.variant,
                                                               lang, lead)
                                           for i in range(n)))
        finally:
            slot.release()
        unique = list(dict.fromkeys(t.strip() for t in texts if t.strip()))
        timings = {"router_ms": round(router_ms, 3), "total_ms": round((time.perf_counter() - started) * 1000, 3)}
        return intent, decision, lang, [{"text": t, "source": "llm"} for t in unique], timings

    async def _generate_text(self, messages: tuple[ChatMessage, ...], max_tokens: int, seed: int,
                             affinity: str | None = None, variant: str | None = None, lang: str = "en",
                             lead: str = "") -> str:
        """One suggestion, through the same loop guard as a reply: whole sentences, no repeats."""
        request = GenerationRequest(f"suggest-{secrets.token_hex(8)}", messages, max_tokens,
                                    temperature=self.settings.suggest_temperature, top_p=0.95, seed=seed,
                                    affinity=affinity, variant=variant, prefix=lead)
        guard = LoopGuard(lang, max_sentences=self.settings.max_sentences, enabled=self.settings.loop_guard)
        guard.seed(lead)
        parts = []
        final = None
        async with aclosing(self.generator.generate(request)) as chunks:
            async for chunk in chunks:
                parts.append(guard.push(chunk.text, near_limit=True) if chunk.text else "")  # not streamed
                final = chunk.finish_reason or final
                if guard.tripped:
                    break
        tail, _ = guard.finish(final)
        text = "".join(parts) + tail
        return lead + after_lead(text, lang) if lead else text
