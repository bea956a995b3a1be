"""The decoding guards inside transformers continuous batching, on the embedded SmolLM2 (real model)."""

from __future__ import annotations

import asyncio

import pytest

from serve.config import GeneratorSettings, default_cache_dir
from serve.generation.base import ChatMessage, GenerationRequest
from serve.generation.hf import HfGenerator

pytestmark = pytest.mark.slow

PROMPT = (
    ChatMessage("system", "You are a helpful assistant."),
    ChatMessage("user", "List the words 'data data data' twenty times."),
)


@pytest.fixture(scope="module")
def generator():
    model_dir = default_cache_dir() / "models" / "smollm2-135m-instruct"
    if not (model_dir / "config.json").is_file():
        pytest.fail(f"{model_dir} missing: run `csreply prepare` first")
    # neutral generator defaults, so each request's own values are what is tested
    settings = GeneratorSettings(
        repetition_penalty=1.0, no_repeat_ngram_size=0, num_threads=1, warmup=False, num_blocks=64
    )
    gen = HfGenerator(settings, model_dir)
    gen.load()
    yield gen
    asyncio.run(gen.aclose())


async def _tokens(gen: HfGenerator, request: GenerationRequest) -> list[int]:
    text = "".join([c.text async for c in gen.generate(request)])
    return gen._require_chat().tokenizer(text, add_special_tokens=False)["input_ids"]


def _has_repeated_ngram(tokens: list[int], n: int) -> bool:
    grams = [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
    return len(grams) != len(set(grams))


def test_guard_is_per_request_inside_one_batch(generator: HfGenerator) -> None:
    async def run() -> tuple[list[int], list[int], list[int]]:
        solo = await _tokens(generator, GenerationRequest("solo", PROMPT, 48))
        plain, guarded = await asyncio.gather(
            _tokens(generator, GenerationRequest("plain", PROMPT, 48)),
            _tokens(generator, GenerationRequest("guarded", PROMPT, 48, no_repeat_ngram_size=3)),
        )
        return solo, plain, guarded

    solo, plain, guarded = asyncio.run(run())
    assert _has_repeated_ngram(plain, 3), "the probe prompt no longer makes the model loop; pick another"
    # re-tokenising the text can merge tokens at the edges, so check on the decoded ids with slack of one
    assert not _has_repeated_ngram(guarded[1:-1], 4)
    assert plain == solo  # the neighbour's guard did not leak into this row


def test_generator_default_applies_when_the_request_is_neutral(generator: HfGenerator) -> None:
    generator.settings = generator.settings.model_copy(
        update={"no_repeat_ngram_size": 3, "repetition_penalty": 1.2}
    )
    try:
        kwargs = generator.guards(GenerationRequest("x", PROMPT, 8))
        assert kwargs["no_repeat_ngram_size"] == 3 and kwargs["repetition_penalty"] == 1.2
        kwargs = generator.guards(
            GenerationRequest("y", PROMPT, 8, no_repeat_ngram_size=5, repetition_penalty=1.05)
        )
        assert kwargs["no_repeat_ngram_size"] == 5 and kwargs["repetition_penalty"] == 1.05
    finally:
        generator.settings = generator.settings.model_copy(
            update={"no_repeat_ngram_size": 0, "repetition_penalty": 1.0}
        )


def test_ignore_eos_runs_to_max_tokens_and_leaves_its_neighbour_alone(generator: HfGenerator) -> None:
    short = (ChatMessage("user", "Say hi."),)

    async def run() -> tuple[list, list]:
        async def chunks(request: GenerationRequest) -> list:
            return [c async for c in generator.generate(request)]

        return await asyncio.gather(
            chunks(GenerationRequest("fixed", short, 60, ignore_eos=True)),
            chunks(GenerationRequest("free", short, 60)),
        )

    fixed, free = asyncio.run(run())
    assert free[-1].finish_reason == "stop" and free[-1].completion_tokens < 60, "probe no longer ends early"
    assert fixed[-1].finish_reason == "length" and fixed[-1].completion_tokens == 60
