"""`ZeroCostTestGenerator`: a TEST/BENCHMARK engine that costs (almost) nothing, to measure the server.

It implements the `Generator` protocol like a real engine: one engine loop ("step") adds one pre-made token
to every running request and then yields to the event loop, so tokens come as fast as the loop allows and
the engine runs ahead of a stream that falls behind, as a GPU engine does. A request's iterator hands out
everything produced since its last read as one chunk (what vLLM's output collector and TensorRT-LLM's
streaming outputs do when the consumer is behind). Its CPU cost is a deque append per token.

It never runs in the product: `python -m serve.testing.server --engine zero-cost` is the only switch.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field

from serve.errors import BackendUnavailable
from serve.generation.base import ChatMessage, GenerationChunk, GenerationRequest, GeneratorStats

# 4 characters, one leading space: the shape of an English BPE token.
DEFAULT_TOKEN = " tok"


@dataclass(eq=False)
class _Running:
    remaining: int
    produced: int = 0
    pending: int = 0  # tokens produced and not yet handed out
    wake: asyncio.Event = field(default_factory=asyncio.Event)


class ZeroCostTestGenerator:
    """Test/benchmark engine: `max_new_tokens` copies of `token` per request, finish_reason 'length'.

    `coalesce=False` hands out one chunk per token even when the reader is behind (an engine adapter
    that does not merge queued outputs)."""

    name = "zero-cost-test"

    def __init__(self, token: str = DEFAULT_TOKEN, model_name: str = "zero-cost-test",
                 languages: tuple[str, ...] = ("en", "zh"), prompt_tokens: int = 32, coalesce: bool = True) -> None:
        self.token = token
        self.coalesce = coalesce
        self.model_name = model_name
        self.languages = languages
        self.prompt_tokens = prompt_tokens
        self._running: list[_Running] = []
        self._loop_task: asyncio.Task[None] | None = None
        self._requests_total = 0
        self._tokens_total = 0
        self._closed = False

    async def generate(self, request: GenerationRequest) -> AsyncGenerator[GenerationChunk, None]:
        if self._closed:
            raise BackendUnavailable("the zero-cost test engine is closed")
        state = _Running(remaining=request.max_new_tokens)
        self._running.append(state)
        self._requests_total += 1
        if self._loop_task is None or self._loop_task.done():
            self._loop_task = asyncio.get_running_loop().create_task(self._engine_loop())
        try:
            while True:
                if not state.pending:
                    state.wake.clear()
                    await state.wake.wait()
                count, state.pending = state.pending, 0
                if not self.coalesce:  # one chunk per token, however far behind the reader is
                    last = state.remaining == 0
                    for _ in range(count - 1 if last else count):
                        yield GenerationChunk(self.token)
                    if not last:
                        continue
                    count = 1
                if state.remaining == 0:
                    yield GenerationChunk(self.token * count, "length", prompt_tokens=self.prompt_tokens,
                                          completion_tokens=state.produced, queue_ms=0.0)
                    return
                yield GenerationChunk(self.token * count)
        finally:
            if state in self._running:  # closed early: abort, as a real engine does
                self._running.remove(state)

    async def _engine_loop(self) -> None:
        """One decode step per event-loop turn for every running request, until none is left."""
        while self._running:
            finished = False
            for state in self._running:
                state.remaining -= 1
                state.produced += 1
                state.pending += 1
                state.wake.set()
                finished = finished or state.remaining == 0
            self._tokens_total += len(self._running)
            if finished:
                self._running = [s for s in self._running if s.remaining > 0]
            await asyncio.sleep(0)

    def count_prompt_tokens(self, messages: tuple[ChatMessage, ...]) -> int:
        # A cheap stand-in for a tokenizer: about four characters per token.
        return sum(len(m.content) for m in messages) // 4 + 4 * len(messages)

    async def warmup(self) -> None:
        async for _ in self.generate(GenerationRequest("warmup", (ChatMessage("user", "hi"),), 2)):
            pass

    async def check_health(self) -> None:
        if self._closed:
            raise BackendUnavailable("the zero-cost test engine is closed")

    def stats(self) -> GeneratorStats:
        running = len(self._running)
        return GeneratorStats(self.name, self.model_name, running, running, 0, requests_total=self._requests_total,
                              extra={"tokens_total": float(self._tokens_total)})

    async def aclose(self) -> None:
        self._closed = True
        if self._loop_task is not None:
            self._loop_task.cancel()
