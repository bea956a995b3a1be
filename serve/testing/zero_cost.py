"""`ZeroCostTestGenerator`: a TEST/BENCHMARK engine that costs (almost) nothing, to measure the server.

It implements the `Generator` protocol like a real engine: one engine loop ("step") adds one pre-made token
to every running request and then yields to the event loop, so tokens come as fast as the loop allows and
the engine runs ahead of a stream that falls behind, as a GPU engine does. A request's iterator hands out
everything produced since its last read as one chunk (what vLLM's output collector and TensorRT-LLM's
streaming outputs do when the consumer is behind). Its CPU cost is a few integer updates per token and a
slice of a pre-rendered text per chunk.

The text is English-shaped and never repeats itself: 4-character tokens (" abc"), all different words, a
full stop every `SENTENCE_WORDS` tokens. A repeated token (" tok tok tok ...") is a loop by definition, and
/v1/reply's loop guard ends such a reply after a few tokens; this text streams whole through the guard,
which does its full per-token work on it (word release, n-gram and sentence checks).

It never runs in the product: `python -m serve.testing.server --engine zero-cost` is the only switch.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field

from serve.errors import BackendUnavailable
from serve.generation.base import ChatMessage, GenerationChunk, GenerationRequest, GeneratorStats

# 4 characters, one leading space: the shape of an English BPE token.
TOKEN_CHARS = 4
# Words per sentence: about an English customer-service sentence.
SENTENCE_WORDS = 16
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def word_token(i: int) -> str:
    """Token `i` of the default text: a 3-letter word, or a 2-letter word and a full stop that ends a
    sentence. Words differ for 17,576 tokens (3-letter words never equal 2-letter ones), so no n-gram repeats
    within any reply the server allows."""
    a, b, c = _LETTERS[i // 676 % 26], _LETTERS[i // 26 % 26], _LETTERS[i % 26]
    return f" {b}{c}." if i % SENTENCE_WORDS == SENTENCE_WORDS - 1 else f" {a}{b}{c}"


@dataclass(eq=False)
class _Running:
    remaining: int
    produced: int = 0
    pending: int = 0  # tokens produced and not yet handed out
    wake: asyncio.Event = field(default_factory=asyncio.Event)


class ZeroCostTestGenerator:
    """Test/benchmark engine: `max_new_tokens` tokens per request (the default text, or copies of `token`),
    finish_reason 'length'.

    `coalesce=False` hands out one chunk per token even when the reader is behind (an engine adapter
    that does not merge queued outputs)."""

    name = "zero-cost-test"

    def __init__(
        self,
        token: str | None = None,
        model_name: str = "zero-cost-test",
        languages: tuple[str, ...] = ("en", "zh"),
        prompt_tokens: int = 32,
        coalesce: bool = True,
    ) -> None:
        self.token = token
        self._text = ""  # the text of the longest request so far; a chunk is a slice of it
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
        text = self._text_for(request.max_new_tokens)
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
                end = state.produced * self._width
                start = end - count * self._width
                if not self.coalesce:  # one chunk per token, however far behind the reader is
                    last = state.remaining == 0
                    for i in range(count - 1 if last else count):
                        yield GenerationChunk(text[start + i * self._width : start + (i + 1) * self._width])
                    if not last:
                        continue
                    start = end - self._width
                if state.remaining == 0:
                    yield GenerationChunk(
                        text[start:end],
                        "length",
                        prompt_tokens=self.prompt_tokens,
                        completion_tokens=state.produced,
                        queue_ms=0.0,
                    )
                    return
                yield GenerationChunk(text[start:end])
        finally:
            if state in self._running:  # closed early: abort, as a real engine does
                self._running.remove(state)

    @property
    def _width(self) -> int:
        return len(self.token) if self.token is not None else TOKEN_CHARS

    def _text_for(self, tokens: int) -> str:
        """The first `tokens` tokens as one string (rendered once, extended for a longer request)."""
        if len(self._text) < tokens * self._width:
            if self.token is not None:
                self._text = self.token * tokens
            else:
                self._text = "".join(word_token(i) for i in range(tokens))
        return self._text

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
        return GeneratorStats(
            self.name,
            self.model_name,
            running,
            running,
            0,
            requests_total=self._requests_total,
            extra={"tokens_total": float(self._tokens_total)},
        )

    async def aclose(self) -> None:
        self._closed = True
        if self._loop_task is not None:
            self._loop_task.cancel()
