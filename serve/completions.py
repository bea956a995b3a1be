"""Chat completions: turn one validated request into `n` engine requests and one merged event stream.

The first event is fetched before the stream is handed to the HTTP layer, so anything that fails before
the first token (context too long, engine down) becomes a proper HTTP error instead of a broken stream.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass

from serve.admission import Admission
from serve.config import GeneratorSettings
from serve.errors import InvalidRequest
from serve.generation.base import ChatMessage, FinishReason, GenerationChunk, GenerationRequest, Generator

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CompletionParams:
    request_id: str
    messages: tuple[ChatMessage, ...]
    max_tokens: int | None
    temperature: float
    top_p: float
    n: int
    stop: tuple[str, ...]
    seed: int | None
    session_id: str | None = None
    variant: str | None = None
    prefix: str = ""  # continue_final_message: the assistant's reply so far, continued, not streamed again
    ignore_eos: bool = False  # benchmarks: run to max_tokens


@dataclass(frozen=True, slots=True)
class ChoiceEvent:
    index: int
    text: str
    finish_reason: FinishReason | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


class CompletionService:
    def __init__(self, generator: Generator, settings: GeneratorSettings, admission: Admission) -> None:
        self.generator = generator
        self.settings = settings
        self.admission = admission

    def engine_requests(self, params: CompletionParams) -> list[GenerationRequest]:
        max_tokens = params.max_tokens if params.max_tokens is not None else self.settings.default_max_tokens
        if max_tokens > self.settings.max_tokens_limit:
            raise InvalidRequest(
                f"max_tokens is {max_tokens}; this server allows at most {self.settings.max_tokens_limit}",
                param="max_tokens",
            )
        return [
            GenerationRequest(
                request_id=f"{params.request_id}-{i}",
                messages=params.messages,
                max_new_tokens=max_tokens,
                temperature=params.temperature,
                top_p=params.top_p,
                stop=params.stop,
                # Choices of one request must differ, and stay reproducible for a given seed.
                seed=None if params.seed is None else params.seed + i,
                affinity=params.session_id or params.request_id,
                variant=params.variant,
                prefix=params.prefix,
                ignore_eos=params.ignore_eos,
            )
            for i in range(params.n)
        ]

    async def open(self, params: CompletionParams, max_wait_s: float | None = None) -> ChoiceStream:
        """A primed stream of choice events; raises before returning if the first token cannot come.
        Waits in the admission queue at most `max_wait_s` (the request's remaining deadline)."""
        requests = self.engine_requests(params)
        slot = await self.admission.acquire(len(requests), "chat", max_wait_s)
        stream = _merge([self._choice(i, r) for i, r in enumerate(requests)])
        try:
            first = await anext(stream)
        except BaseException:
            await stream.aclose()
            slot.release()
            raise
        choices = ChoiceStream(first, stream, slot.release)
        choices.queued_s = slot.queued_s
        return choices

    async def _choice(self, index: int, request: GenerationRequest) -> AsyncGenerator[ChoiceEvent, None]:
        chunk: GenerationChunk
        async with aclosing(self.generator.generate(request)) as chunks:
            async for chunk in chunks:
                yield ChoiceEvent(
                    index,
                    chunk.text,
                    chunk.finish_reason,
                    chunk.prompt_tokens or 0,
                    chunk.completion_tokens or 0,
                )


class ChoiceStream:
    """The primed event stream of one completion. `aclose` is idempotent and always aborts what is still
    running and frees the admission slot, even when iteration never started (a client gone early)."""

    def __init__(
        self, first: ChoiceEvent, rest: AsyncGenerator[ChoiceEvent, None], on_close: Callable[[], None]
    ):
        self._first: ChoiceEvent | None = first
        self._rest = rest
        self._on_close = on_close
        self._closed = False
        self.queued_s = 0.0  # time spent in the admission queue

    def __aiter__(self) -> ChoiceStream:
        return self

    async def __anext__(self) -> ChoiceEvent:
        if self._first is not None:
            event, self._first = self._first, None
            return event
        try:
            return await anext(self._rest)
        except StopAsyncIteration:
            await self.aclose()
            raise

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await self._rest.aclose()
        finally:
            self._on_close()


async def _merge(streams: list[AsyncGenerator[ChoiceEvent, None]]) -> AsyncGenerator[ChoiceEvent, None]:
    """Interleave several choice streams in arrival order; closing the merge closes (aborts) them all."""
    if len(streams) == 1:
        async with aclosing(streams[0]) as only:  # `async for` alone would not close it on early exit
            async for event in only:
                yield event
        return
    queue: asyncio.Queue[ChoiceEvent | BaseException | None] = asyncio.Queue()

    async def pump(stream: AsyncGenerator[ChoiceEvent, None]) -> None:
        try:
            async with aclosing(stream) as events:
                async for event in events:
                    await queue.put(event)
            await queue.put(None)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # handed to the consumer, which re-raises it
            await queue.put(exc)

    tasks = [asyncio.create_task(pump(s)) for s in streams]
    remaining = len(tasks)
    try:
        while remaining:
            item = await queue.get()
            if item is None:
                remaining -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
