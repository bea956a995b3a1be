"""A generated reply, streamed: the engine's tokens through the loop guard, after the fact lead, with the
FAQ cache in front and the template as the last resort when no engine can start. The pipeline decides that a
reply is generated; this module only runs it."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass

from serve.admission import Admission
from serve.config import ReplySettings
from serve.errors import BackendUnavailable
from serve.generation.base import ChatMessage, GenerationRequest, Generator
from serve.generation.loop_guard import LoopGuard
from serve.prompts import PromptLibrary
from serve.reply_events import DeltaEvent, Lang, ReplyRequest
from serve.reply_prompt import after_lead
from serve.response_cache import CachePolicy, ResponseCache, cache_key, should_store

logger = logging.getLogger(__name__)

# In the last this-many tokens of a reply's budget the loop guard holds each sentence back until it ends,
# so a reply the budget cuts still ends at a full stop (a sentence is rarely longer than this).
NEAR_LIMIT_TOKENS = 24


@dataclass
class Outcome:
    """How a generated reply ended: filled in while it streams, read by the pipeline for the `done` event."""

    text: str = ""
    finish: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    queue_ms: float = 0.0
    ttft_ms: float = 0.0
    cached: bool = False
    variant: str | None = None
    fallback: str | None = None


class GeneratedReplies:
    def __init__(self, generator: Generator, library: PromptLibrary, admission: Admission,
                 cache: ResponseCache | None, cache_policy: CachePolicy, settings: ReplySettings) -> None:
        self.generator = generator
        self.library = library
        self.admission = admission
        self.cache = cache
        self.cache_policy = cache_policy
        self.settings = settings

    async def stream(self, request: ReplyRequest, intent: str, lang: Lang, messages: tuple[ChatMessage, ...],
                     lead: str, max_tokens: int, variant: str | None, cacheable: bool, outcome: Outcome,
                     clock: Callable[[], float], knowledge: str = "") -> AsyncGenerator[DeltaEvent | None, None]:
        """None once the reply is sure to stream (a cache hit, or an admission slot: a full server raises before
        it), then the deltas; `outcome` holds the rest when the generator ends. `knowledge`: the version of
        the knowledge base whose passages are in the prompt (part of the cache key)."""
        key = None
        if self.cache is not None and cacheable:
            # Each A/B variant writes its own replies, and the key covers everything else that shapes one.
            key = cache_key(request.domain, lang, f"{intent}@{variant or ''}", request.message,
                            self.cache_policy.variant(max_tokens, knowledge))
            hit = await self.cache.get(key)
            if hit is not None:
                yield None
                outcome.ttft_ms, outcome.text, outcome.cached = clock(), hit, True
                yield DeltaEvent(hit)
                return
        slot = await self.admission.acquire(1, "reply")
        parts: list[str] = []
        final = None
        steps = 0
        try:
            yield None
            request_id = f"reply-{secrets.token_hex(8)}"
            generation = GenerationRequest(
                request_id=request_id, messages=messages, max_new_tokens=max_tokens,
                temperature=self.settings.temperature, seed=0 if self.settings.temperature > 0 else None,
                affinity=request.session_id or request_id, variant=variant, prefix=lead,
            )

            def add(text: str) -> str:
                """One delta of the reply: the first one sets TTFT; the model's first words follow the lead."""
                if not parts:
                    outcome.ttft_ms = clock()
                elif lead and len(parts) == 1:
                    text = after_lead(text, lang)
                parts.append(text)
                return text

            guard = LoopGuard(lang, max_sentences=self.settings.max_sentences, enabled=self.settings.loop_guard)
            if lead:  # the facts go first, before the engine has even started
                guard.seed(lead)
                yield DeltaEvent(add(lead))
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
                yield DeltaEvent(add(self.library.template_reply(request.domain, lang, intent, request.context)))
                outcome.text, outcome.fallback = "".join(parts), "template:generator_unavailable"
                return
            tail, outcome.finish = guard.finish(final.finish_reason if final else None)
            if tail:
                yield DeltaEvent(add(tail))
        finally:
            slot.release()
        outcome.text = "".join(parts)
        if key is not None and self.cache is not None and should_store(outcome.finish, outcome.text):
            await self.cache.set(key, outcome.text)
        outcome.variant = final.served_by if final is not None else variant
        admission_ms = slot.queued_s * 1000
        if final is None:  # the guard stopped the engine: the prompt is known, the reply took `steps` chunks
            outcome.prompt_tokens = self.generator.count_prompt_tokens(messages)
            outcome.completion_tokens, outcome.queue_ms = steps, admission_ms
        else:
            outcome.prompt_tokens, outcome.completion_tokens = final.prompt_tokens or 0, final.completion_tokens or 0
            outcome.queue_ms = admission_ms + (final.queue_ms or 0.0)  # admission queue + the engine's own
        logger.info("reply.done route=llm finish=%s variant=%s completion_tokens=%s", outcome.finish,
                    outcome.variant, outcome.completion_tokens)

    async def suggestions(self, messages: tuple[ChatMessage, ...], n: int, max_tokens: int, affinity: str | None,
                          variant: str | None, lang: str, lead: str) -> list[str]:
        """Up to `n` distinct suggestions for an agent, generated concurrently through the same engine."""
        slot = await self.admission.acquire(n, "reply")
        try:
            base = secrets.randbits(30)
            texts = await asyncio.gather(*(self._one(messages, max_tokens, base + i, affinity or f"suggest-{base}",
                                                     variant, lang, lead) for i in range(n)))
        finally:
            slot.release()
        return list(dict.fromkeys(t.strip() for t in texts if t.strip()))

    async def _one(self, messages: tuple[ChatMessage, ...], max_tokens: int, seed: int, affinity: str,
                   variant: str | None, lang: str, lead: str) -> str:
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
