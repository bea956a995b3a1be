"""The TensorRT-LLM path for real: build the SmolLM2 engine from its preset, serve it, stream a reply, abort
one, read the iteration stats. Runs only where tensorrt_llm imports and a GPU is visible (docs/gpu.md)."""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from pathlib import Path

import pytest

from checkpoints.llm import plan_build, run_build
from checkpoints.llm_config import load_llm_config
from serve.generation.base import ChatMessage, GenerationRequest
from serve.generation.trtllm import TrtllmGenerator
from tests.conftest import REPO

pytestmark = [pytest.mark.gpu, pytest.mark.needs_module("tensorrt_llm")]

SMOKE = REPO / "build_configs/llm/smollm2-135m-instruct-any-fp16.yaml"


@pytest.fixture(scope="module")
def generator(tmp_path_factory: pytest.TempPathFactory):
    cache = tmp_path_factory.mktemp("engines")
    preset = load_llm_config(SMOKE)
    run_build(plan_build(preset, cache))
    gen = TrtllmGenerator(preset, cache)
    gen.load()
    yield gen
    asyncio.run(gen.aclose())


def ask(text: str, max_tokens: int = 32) -> GenerationRequest:
    return GenerationRequest(f"gpu-{abs(hash(text))}", (ChatMessage("user", text),), max_tokens)


def test_streams_a_reply_aborts_one_and_reports_stats(generator: TrtllmGenerator) -> None:
    async def run() -> None:
        await generator.warmup()
        chunks = [c async for c in generator.generate(ask("How do I check my data balance?"))]
        assert len(chunks) > 3 and chunks[-1].finish_reason in ("stop", "length")
        assert "".join(c.text for c in chunks).strip()
        async with aclosing(generator.generate(ask("Tell me a long story about phones", 400))) as stream:
            await anext(stream)
        await asyncio.sleep(3)  # let the stats poller see an iteration
        stats = generator.stats()
        assert stats.active_requests == 0
        assert stats.kv_blocks_total is None or stats.kv_blocks_total > 0

    asyncio.run(run())
    assert Path(generator.layout.manifest_path).is_file()


def test_ignore_eos_runs_to_max_tokens(generator: TrtllmGenerator) -> None:
    async def run() -> list:
        request = GenerationRequest("gpu-fixed", (ChatMessage("user", "Say hi."),), 64, ignore_eos=True)
        return [c async for c in generator.generate(request)]

    chunks = asyncio.run(run())
    assert chunks[-1].finish_reason == "length" and chunks[-1].completion_tokens == 64
