"""The zero-cost test engine keeps the Generator contract: exact lengths and usage, abort on close, and
everything produced since the last read handed out as one chunk (unless told not to)."""

from __future__ import annotations

import asyncio

from serve.generation.base import ChatMessage, GenerationChunk, GenerationRequest
from serve.generation.loop_guard import LoopGuard, repeated_ngram
from serve.testing.zero_cost import SENTENCE_WORDS, TOKEN_CHARS, ZeroCostTestGenerator


def request(rid: str, tokens: int) -> GenerationRequest:
    return GenerationRequest(rid, (ChatMessage("user", "hello there"),), tokens)


async def read(
    engine: ZeroCostTestGenerator, rid: str, tokens: int, lag_turns: int = 0
) -> tuple[str, int, list]:
    """Text, chunk count and the final chunk; `lag_turns` loop turns between reads (a slow reader)."""
    text, chunks = "", 0
    last: GenerationChunk | None = None
    async for chunk in engine.generate(request(rid, tokens)):
        text, chunks, last = text + chunk.text, chunks + 1, chunk
        for _ in range(lag_turns):
            await asyncio.sleep(0)
    assert last is not None, "the stream ended without a chunk"
    return text, chunks, [last.finish_reason, last.prompt_tokens, last.completion_tokens]


async def test_every_request_gets_exactly_its_tokens_and_usage() -> None:
    engine = ZeroCostTestGenerator(token=" t")
    results = await asyncio.gather(*(read(engine, f"r{i}", n) for i, n in enumerate((1, 7, 50))))
    for (text, _, final), n in zip(results, (1, 7, 50), strict=True):
        assert text == " t" * n
        assert final == ["length", engine.prompt_tokens, n]
    assert engine.stats().active_requests == 0 and engine.stats().requests_total == 3


async def test_a_slow_reader_gets_what_was_produced_meanwhile_in_one_chunk() -> None:
    coalescing, per_token = ZeroCostTestGenerator(), ZeroCostTestGenerator(coalesce=False)
    (fast_text, fast_chunks, _), (slow_text, slow_chunks, _) = await asyncio.gather(
        read(coalescing, "fast", 40), read(coalescing, "slow", 40, lag_turns=3)
    )
    assert fast_text == slow_text
    assert slow_chunks <= 40 // 3 + 2 < fast_chunks
    text, chunks, _ = await read(per_token, "slow", 40, lag_turns=3)
    assert (text, chunks) == (slow_text, 40)


async def test_closing_a_stream_aborts_it_in_the_engine() -> None:
    engine = ZeroCostTestGenerator()
    stream = engine.generate(request("x", 10_000))
    await anext(stream)
    assert engine.stats().engine_running == 1
    await stream.aclose()
    assert engine.stats().engine_running == 0
    await asyncio.sleep(0)  # the engine loop sees nothing left and ends
    text, _, final = await read(engine, "after", 3)  # and starts again for the next request
    assert final[2] == 3


async def test_the_default_text_streams_whole_through_the_reply_loop_guard() -> None:
    """The benchmark measures /v1/reply over every token: its text must never look like a loop."""
    engine = ZeroCostTestGenerator()
    text, _, final = await read(engine, "r", 256, lag_turns=1)
    assert final == ["length", engine.prompt_tokens, 256]
    assert len(text) == 256 * TOKEN_CHARS and text.count(".") == 256 // SENTENCE_WORDS
    assert repeated_ngram(text, max_repeats=2) is None
    guard = LoopGuard("en", max_sentences=256 // SENTENCE_WORDS + 1)
    released = "".join(guard.push(text[i : i + TOKEN_CHARS]) for i in range(0, len(text), TOKEN_CHARS))
    assert guard.tripped is None
    assert released == text[: len(released)] and len(released) >= len(text) - SENTENCE_WORDS * TOKEN_CHARS
    assert guard.finish("length")[1] == "length"
