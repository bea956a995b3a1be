"""The transformers backend on a CUDA GPU (generator.device cuda): the same continuous-batching path as on the
CPU, with the model on the GPU. Runs only where PyTorch sees a CUDA device; skipped elsewhere."""

from __future__ import annotations

import asyncio
import logging

import pytest

from serve.config import GeneratorSettings, default_cache_dir
from serve.generation.base import ChatMessage, GenerationChunk, GenerationRequest
from serve.generation.hf import HfGenerator

pytestmark = pytest.mark.gpu


def _request(n: int, text: str) -> GenerationRequest:
    return GenerationRequest(
        request_id=f"cuda-{n}",
        messages=(ChatMessage("user", text),),
        max_new_tokens=24,
    )


async def _reply(gen: HfGenerator, request: GenerationRequest) -> tuple[str, list[GenerationChunk]]:
    chunks = [c async for c in gen.generate(request)]
    return "".join(c.text for c in chunks), chunks


def test_hf_generator_streams_replies_from_the_gpu(caplog: pytest.LogCaptureFixture) -> None:
    model_dir = default_cache_dir() / "models" / "smollm2-135m-cs"
    if not (model_dir / "config.json").is_file():
        pytest.fail(f"{model_dir} missing: run `csreply prepare` first")
    gen = HfGenerator(GeneratorSettings(device="cuda", warmup=False, num_blocks=64), model_dir)
    with caplog.at_level(logging.INFO, logger="serve.generation.hf"):
        gen.load()
    assert any("backend=hf" in r.getMessage() and "device=cuda" in r.getMessage() for r in caplog.records)

    async def both() -> list[tuple[str, list[GenerationChunk]]]:
        try:
            return list(
                await asyncio.gather(
                    _reply(gen, _request(1, "Hi, my order has not arrived yet.")),
                    _reply(gen, _request(2, "How do I top up my SIM?")),
                )
            )
        finally:
            await gen.aclose()

    for text, chunks in asyncio.run(both()):
        assert text.strip(), "an empty reply from the GPU"
        assert len(chunks) >= 2  # streamed, not one block
