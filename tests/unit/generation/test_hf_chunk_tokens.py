"""The hf engine says how many tokens each chunk carries, and they add up to its completion count, on the
embedded SmolLM2 (real model and tokenizer): at the length limit, at a stop string, and for a reply closed
early (the count so far is what the reply pipeline reports when its loop guard or a deadline stops it)."""

from __future__ import annotations

import asyncio

import pytest

from serve.config import GeneratorSettings, default_cache_dir
from serve.generation.base import ChatMessage, GenerationChunk, GenerationRequest
from serve.generation.hf import HfGenerator

pytestmark = pytest.mark.slow

PROMPT = (ChatMessage("user", "Explain how to turn on roaming on a phone, step by step."),)


@pytest.fixture(scope="module")
def generator():
    model_dir = default_cache_dir() / "models" / "smollm2-135m-instruct"
    if not (model_dir / "config.json").is_file():
        pytest.fail(f"{model_dir} missing: run `csreply prepare` first")
    gen = HfGenerator(GeneratorSettings(num_threads=1, warmup=False, num_blocks=64), model_dir)
    gen.load()
    yield gen
    asyncio.run(gen.aclose())


async def chunks_of(
    gen: HfGenerator, request: GenerationRequest, keep: int | None = None
) -> list[GenerationChunk]:
    out = []
    stream = gen.generate(request)
    try:
        async for chunk in stream:
            out.append(chunk)
            if keep is not None and len(out) == keep:
                break
    finally:
        await stream.aclose()
    return out


def test_chunk_tokens_add_up_to_the_completion_count(generator: HfGenerator) -> None:
    async def run() -> tuple[list[GenerationChunk], list[GenerationChunk], list[GenerationChunk]]:
        length = await chunks_of(generator, GenerationRequest("len", PROMPT, 40, ignore_eos=True))
        stopped = await chunks_of(
            generator, GenerationRequest("stop", PROMPT, 40, ignore_eos=True, stop=("e",))
        )
        early = await chunks_of(generator, GenerationRequest("early", PROMPT, 40, ignore_eos=True), keep=6)
        return length, stopped, early

    length, stopped, early = asyncio.run(run())
    assert length[-1].finish_reason == "length" and length[-1].completion_tokens == 40
    assert sum(c.tokens or 0 for c in length) == 40
    assert all(c.tokens is not None and c.tokens >= 1 for c in length[:-1])
    assert stopped[-1].finish_reason == "stop" and "e" not in "".join(c.text for c in stopped)
    assert sum(c.tokens or 0 for c in stopped) == stopped[-1].completion_tokens
    # closed after six chunks: they carried the first tokens of the same greedy reply
    assert [c.text for c in early] == [c.text for c in length[:6]]
    assert sum(c.tokens or 0 for c in early) == sum(c.tokens or 0 for c in length[:6]) >= 6
