"""A generated reply, streamed: the engine's tokens through the loop guard, after the fact lead, with the
FAQ cache in front and the template as the last resort when no engine can start. The pipeline decides that a
reply is generated; this module only runs it."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncGenerator, Callable, Coroutine
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, TypeVar

from serve.admission import Admission
from serve.config import ReplySettings
from serve.errors import BackendUnavailable, ServeError
from serve.generation.base import ChatMessage, GenerationChunk, GenerationRequest, Generator
from serve.generation.loop_guard import LoopGuard
from serve.prompts import PromptLibrary
from serve.reply_cache import ReplyCache
from serve.reply_events import DeltaEvent, Lang, ReplyRequest
from serve.reply_prompt import after_lead

logger = logging.getLogger(__name__)
T = TypeVar("T")

# In the last this-many tokens of a reply's budget the loop guard holds each sentence back until it ends,
# so a reply the budget cuts still ends at a full stop (a sentence is rarely longer than this).
NEAR_LIMIT_TOKENS = 24


@dataclass
class Outcome:
    """How a generated reply ended: filled in while it streams (the token counts kept current, so a reply cut
    short by a deadline or the client leaving still reports them), read by the pipeline for the `done`
    event."""

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
    def __init__(
        self,
        generator: Generator,
        library: PromptLibrary,
        admission: Admission,
        cache: ReplyCache,
        settings: ReplySettings,
    ) -> None:
        self.generator = generator
        self.library = library
        self.admission = admission
        self.cache = cache
        self.settings = settings

    async def stream(
        self,
        request: ReplyRequest,
        intent: str,
        lang: Lang,
        messages: tuple[ChatMessage, ...],
        lead: str,
        max_tokens: int,
        variant: str | None,
        history: tuple[ChatMessage, ...],
        outcome: Outcome,
        clock: Callable[[], float],
        knowledge: str = "",
    ) -> AsyncGenerator[DeltaEvent | None, None]:
        """None once the reply is sure to stream (a cache hit, or an admission slot: a full server raises
        before it), then the deltas; `outcome` holds the rest when the generator ends. `history` and
        `knowledge` (the version of the knowledge base whose passages are in the prompt) are for the cache."""
        key = self.cache.key(request, lang, intent, history, variant, max_tokens, knowledge)
        hit = await self.cache.lookup(key)
        if hit is not None:
            yield None
            outcome.ttft_ms, outcome.text, outcome.cached = clock(), hit, True
            yield DeltaEvent(hit)
            return
        slot = await self.admission.acquire(1, "reply")
        parts: list[str] = []
        final = None
        tokens = 0  # generated so far: what the engine says each chunk carries (several, for some engines)
        try:
            yield None
            request_id = f"reply-{secrets.token_hex(8)}"
            generation = GenerationRequest(
                request_id=request_id,
                messages=messages,
                max_new_tokens=max_tokens,
                temperature=self.settings.temperature,
                seed=0 if self.settings.temperature > 0 else None,
                affinity=request.session_id or request_id,
                variant=variant,
                prefix=lead,
            )

            def add(text: str) -> str:
                """One delta of the reply: the first sets TTFT; the model's first words follow the lead."""
                if not parts:
                    outcome.ttft_ms = clock()
                elif lead and len(parts) == 1:
                    text = after_lead(text, lang)
                parts.append(text)
                return text

            guard = LoopGuard(
                lang, max_sentences=self.settings.max_sentences, enabled=self.settings.loop_guard
            )
            if lead:  # the facts go first, before the engine has even started
                guard.seed(lead)
                yield DeltaEvent(add(lead))
            try:
                async with aclosing(self.generator.generate(generation)) as chunks:
                    async for chunk in chunks:
                        tokens += chunk_tokens(chunk)
                        outcome.completion_tokens = tokens  # kept current: a reply cut short still counts
                        near_limit = tokens >= max_tokens - min(NEAR_LIMIT_TOKENS, max_tokens // 4)
                        released = guard.push(chunk.text, near_limit) if chunk.text else ""
                        if released:
                            yield DeltaEvent(add(released))
                        if chunk.finish_reason:
                            final = chunk
                        if guard.tripped:
                            # leaving the block closes the stream, which aborts the request in the engine
                            break
            except BackendUnavailable as exc:
                if len(parts) > bool(lead):
                    raise
                # Last resort: no generator could start the reply, so the intent's reviewed template answers.
                logger.error("reply.generator_unavailable fallback=template error=%s", exc.message)
                yield DeltaEvent(
                    add(self.library.template_reply(request.domain, lang, intent, request.context))
                )
                outcome.text, outcome.fallback = "".join(parts), "template:generator_unavailable"
                return
            tail, outcome.finish = guard.finish(final.finish_reason if final else None)
            if tail:
                yield DeltaEvent(add(tail))
        finally:
            slot.release()
            # Counted on every way out (end, loop guard, deadline, client leaving, engine error).
            count_usage(outcome, final, tokens, lambda: self.generator.count_prompt_tokens(messages))
            outcome.queue_ms = slot.queued_s * 1000 + ((final.queue_ms or 0.0) if final is not None else 0.0)
        outcome.text = "".join(parts)
        await self.cache.keep(key, outcome.finish, outcome.text)
        outcome.variant = final.served_by if final is not None else variant
        logger.info(
            "reply.done route=llm finish=%s variant=%s completion_tokens=%s",
            outcome.finish,
            outcome.variant,
            outcome.completion_tokens,
        )

    async def suggestions(
        self,
        messages: tuple[ChatMessage, ...],
        n: int,
        max_tokens: int,
        affinity: str | None,
        variant: str | None,
        lang: str,
        lead: str,
        outcome: Outcome | None = None,
    ) -> list[str]:
        """Up to `n` distinct suggestions for an agent, generated concurrently through the same engine, as one
        group (`all_or_none`): when one fails, the others are cancelled (aborted in the engine) and its error
        is raised; the admission slot is given back only once every generation has ended. `outcome` gets the
        counts (prompt tokens once, as for a chat completion with n choices; the completion tokens of all),
        kept current while they run."""
        outcome = outcome if outcome is not None else Outcome()
        slot = await self.admission.acquire(n, "reply")
        try:
            base = secrets.randbits(30)
            texts = await all_or_none(
                [
                    self._one(
                        messages,
                        max_tokens,
                        base + i,
                        affinity or f"suggest-{base}",
                        variant,
                        lang,
                        lead,
                        outcome,
                    )
                    for i in range(n)
                ]
            )
        finally:
            slot.release()
            outcome.queue_ms += slot.queued_s * 1000  # the admission queue, then the longest engine queue
            if outcome.completion_tokens and not outcome.prompt_tokens:  # cut short before any final chunk
                outcome.prompt_tokens = prompt_tokens(lambda: self.generator.count_prompt_tokens(messages))
        return list(dict.fromkeys(t.strip() for t in texts if t.strip()))

    async def _one(
        self,
        messages: tuple[ChatMessage, ...],
        max_tokens: int,
        seed: int,
        affinity: str,
        variant: str | None,
        lang: str,
        lead: str,
        outcome: Outcome,
    ) -> str:
        """One suggestion, through the same loop guard as a reply: whole sentences, no repeats."""
        request = GenerationRequest(
            f"suggest-{secrets.token_hex(8)}",
            messages,
            max_tokens,
            temperature=self.settings.suggest_temperature,
            top_p=0.95,
            seed=seed,
            affinity=affinity,
            variant=variant,
            prefix=lead,
        )
        guard = LoopGuard(lang, max_sentences=self.settings.max_sentences, enabled=self.settings.loop_guard)
        guard.seed(lead)
        parts = []
        final = None
        counted = 0
        async with aclosing(self.generator.generate(request)) as chunks:
            async for chunk in chunks:
                tokens = chunk_tokens(chunk)
                counted += tokens
                outcome.completion_tokens += tokens
                parts.append(guard.push(chunk.text, near_limit=True) if chunk.text else "")  # not streamed
                if chunk.finish_reason:
                    final = chunk
                if guard.tripped:
                    break
        if final is not None:
            if final.completion_tokens is not None:  # the engine's own count is the exact one
                outcome.completion_tokens += final.completion_tokens - counted
            outcome.prompt_tokens = final.prompt_tokens or outcome.prompt_tokens
            outcome.queue_ms = max(outcome.queue_ms, final.queue_ms or 0.0)
            outcome.variant = final.served_by or outcome.variant
        tail, _ = guard.finish(final.finish_reason if final is not None else None)
        text = "".join(parts) + tail
        return lead + after_lead(text, lang) if lead else text


def chunk_tokens(chunk: GenerationChunk) -> int:
    """The tokens a chunk carries: the engine's count, else one per chunk with text (an engine that does not
    say; its final chunk's total corrects the sum where the reply runs to its end)."""
    if chunk.tokens is not None:
        return chunk.tokens
    return 1 if chunk.text else 0


def prompt_tokens(count: Callable[[], int]) -> int:
    """The prompt's tokens for usage when no final chunk reported them (a reply cut short); never raises."""
    try:
        return count()
    except Exception:  # noqa: BLE001 - usage is reported on the way out of an error too; it must not mask it
        logger.debug("reply.prompt_count_failed", exc_info=True)
        return 0


def count_usage(
    outcome: Outcome, final: GenerationChunk | None, tokens: int, count_prompt: Callable[[], int]
) -> None:
    """A generated reply's usage, however it ended: the engine's counts from the final chunk; else (the loop
    guard, a deadline, the client leaving, an engine error) the tokens the chunks carried, and the prompt."""
    if final is not None:
        outcome.prompt_tokens = final.prompt_tokens or 0
        outcome.completion_tokens = final.completion_tokens if final.completion_tokens is not None else tokens
    else:
        outcome.completion_tokens = tokens
        outcome.prompt_tokens = prompt_tokens(count_prompt) if tokens else 0


async def all_or_none(coroutines: list[Coroutine[Any, Any, T]]) -> list[T]:
    """Run the coroutines concurrently and return their results in order, as a task group does: the first to
    fail cancels the others and its error is raised (the first typed one, when several failed); a
    cancellation of the caller (a deadline, the client leaving) cancels them all. Either way this returns or
    raises only once every one has ended. (asyncio.TaskGroup is Python 3.11+; the server runs on 3.10 too.)"""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        await _cancel_and_wait(tasks)
    errors = [e for t in tasks if not t.cancelled() and (e := t.exception()) is not None]
    if errors:
        raise first_error(errors)
    return [t.result() for t in tasks]


async def _cancel_and_wait(tasks: list[asyncio.Task[T]]) -> None:
    """Cancel the tasks still running and wait until all have ended, even when cancelled meanwhile (that
    cancellation is raised afterwards)."""
    pending = [t for t in tasks if not t.done()]
    for task in pending:
        task.cancel()
    interrupted: BaseException | None = None
    while pending:
        try:
            await asyncio.wait(pending)
        except asyncio.CancelledError as exc:
            interrupted = exc
        pending = [t for t in pending if not t.done()]
    for task in tasks:  # retrieved, so no "exception was never retrieved" for a task that failed late
        if not task.cancelled():
            task.exception()
    if interrupted is not None:
        raise interrupted


def first_error(errors: list[BaseException]) -> BaseException:
    """The error to report when several concurrent generations failed: the first typed (HTTP-mapped) one,
    else the first (a crash, answered as a 500)."""
    typed = [e for e in errors if isinstance(e, ServeError)]
    return (typed or errors)[0]
