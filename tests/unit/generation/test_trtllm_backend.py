"""The trtllm generator's logic through FakeTensorRTLLM: streaming, UTF-8 and stop safety, abort on close,
error mapping, stats, engine binding checks, and the server's fallback to hf."""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from pathlib import Path

import pytest

import serve.generation.trtllm as trtllm_module
from serve.config import SMOLLM2_DIRNAME, default_cache_dir
from serve.errors import BackendUnavailable, ContextLengthExceeded, GenerationFailed, InvalidRequest
from serve.generation.base import ChatMessage, GenerationRequest
from serve.generation.trtllm import EngineMismatch, TrtllmGenerator
from serve.llm_preset import LlmBuildConfig, load_llm_config
from tests.conftest import REPO
from tests.fakes_trtllm import FakeTensorRTLLM, Step, write_engine

SMOKE = REPO / "build_configs/llm/smollm2-135m-instruct-any-fp16.yaml"
PYTORCH = REPO / "build_configs/llm/llama-3.1-8b-instruct-h200-pytorch-fp8.yaml"


SMOLLM_DIR = str(default_cache_dir() / "models" / SMOLLM2_DIRNAME)


def with_smollm_tokenizer(preset: LlmBuildConfig) -> LlmBuildConfig:
    """A big-model preset whose tokenizer/chat template is the embedded SmolLM2's (no 70B checkpoint here)."""
    return preset.model_copy(update={"model": preset.model.model_copy(update={"hf_dir": SMOLLM_DIR})})


def engine_generator(
    trtllm: FakeTensorRTLLM,
    tmp_path: Path,
    preset: LlmBuildConfig | None = None,
    visible_gpus: int = 1,
    max_seq_len: int | None = None,
    **manifest: object,
) -> TrtllmGenerator:
    preset = preset or load_llm_config(SMOKE)
    layout = preset.layout(tmp_path)
    write_engine(
        layout.serve_dir,
        layout.manifest_path,
        preset.name,
        max_seq_len or preset.build.max_seq_len,
        **manifest,
    )
    generator = TrtllmGenerator(
        preset, tmp_path, module=trtllm, compute_capability="9.0", visible_gpus=visible_gpus
    )
    generator.load()
    return generator


def request(text: str = "hi", max_tokens: int = 16, **kw: object) -> GenerationRequest:
    return GenerationRequest("r1", (ChatMessage("user", text),), max_tokens, **kw)  # type: ignore[arg-type]


async def collect(generator: TrtllmGenerator, req: GenerationRequest) -> list:
    return [chunk async for chunk in generator.generate(req)]


async def test_engine_flow_uses_the_engine_llm_with_configs_from_the_preset(trtllm, tmp_path) -> None:
    generator = engine_generator(trtllm, tmp_path)
    llm = trtllm._tensorrt_engine.LLM.instances[-1]
    assert llm.model.endswith("/engine") and llm.kwargs["tokenizer"].endswith("smollm2-135m-instruct")
    assert llm.kwargs["kv_cache_config"].kwargs == {
        "free_gpu_memory_fraction": 0.5,
        "enable_block_reuse": True,
    }
    assert llm.kwargs["scheduler_config"].kwargs["capacity_scheduler_policy"].name == "GUARANTEED_NO_EVICT"
    chunks = await collect(generator, request(max_tokens=50))
    assert "".join(c.text for c in chunks) == "Hello there, how can I help?"
    assert (
        chunks[-1].finish_reason == "stop"
        and chunks[-1].completion_tokens == 8
        and chunks[-1].queue_ms == 4.0
    )
    prompt, sampling, _ = llm.requests[-1]
    assert sampling.max_tokens == 50 and sampling.top_k == 1  # greedy; max_tokens always set
    assert sampling.end_id in sampling.stop_token_ids and prompt[-3:] != []


async def test_ignore_eos_reaches_sampling_params_and_runs_to_max_tokens(trtllm, tmp_path) -> None:
    generator = engine_generator(trtllm, tmp_path)
    llm = trtllm._tensorrt_engine.LLM.instances[-1]
    chunks = await collect(generator, request(max_tokens=20, ignore_eos=True))
    assert chunks[-1].finish_reason == "length" and chunks[-1].completion_tokens == 20
    assert llm.requests[-1][1].ignore_eos is True
    assert llm.requests[-1][1].stop_token_ids == []  # 1.2.x would stop at EOS if it were a stop token
    await collect(generator, request(max_tokens=20))
    assert not hasattr(llm.requests[-1][1], "ignore_eos")  # left at the library's default when off


async def test_pytorch_flow_uses_the_default_llm_with_runtime_limits(trtllm, tmp_path, monkeypatch) -> None:
    preset: LlmBuildConfig = load_llm_config(PYTORCH)
    preset = with_smollm_tokenizer(preset)
    generator = TrtllmGenerator(preset, tmp_path, module=trtllm)
    generator.load()
    llm = trtllm.LLM.instances[-1]
    assert type(llm) is trtllm.LLM and llm.model.endswith("hf-quantized")
    assert llm.kwargs["enable_chunked_prefill"] is True and llm.kwargs["max_seq_len"] == 8192
    assert llm.kwargs["kv_cache_config"].kwargs["dtype"] == "fp8"


async def test_split_multibyte_characters_and_a_dangling_half_character_never_leak(trtllm, tmp_path) -> None:
    def chinese(prompt, sampling):
        return [
            Step("您好", [1]),
            Step("", [2]),
            Step("，话费", [3]),
            Step("余额\ufffd", [4]),
            Step("为50元", [5]),
            Step("\ufffd", [6], "length"),
        ]

    trtllm._tensorrt_engine.LLM.script = staticmethod(chinese)
    generator = engine_generator(trtllm, tmp_path)
    chunks = await collect(generator, request())
    assert (
        "".join(c.text for c in chunks) == "您好，话费余额\ufffd为50元"
    )  # a mid-text U+FFFD is the model's own
    assert not chunks[-1].text.endswith("\ufffd") and chunks[-1].finish_reason == "length"
    assert all(not c.text.endswith("\ufffd") for c in chunks[:-1])  # held until the next text arrived


async def test_stop_string_across_chunks_is_cut_and_the_request_aborted(trtllm, tmp_path) -> None:
    def chatty(prompt, sampling):
        return [
            Step("Sure.", [1]),
            Step(" Anything\nUs", [2]),
            Step("er: more", [3]),
            Step(" text", [4], "stop"),
        ]

    trtllm._tensorrt_engine.LLM.script = staticmethod(chatty)
    generator = engine_generator(trtllm, tmp_path)
    chunks = await collect(generator, request(stop=("\nUser:",)))
    assert "".join(c.text for c in chunks) == "Sure. Anything"
    assert chunks[-1].finish_reason == "stop"
    assert trtllm._tensorrt_engine.LLM.instances[-1].requests[-1][2].aborted()
    assert "stop" not in vars(
        trtllm._tensorrt_engine.LLM.instances[-1].requests[-1][1]
    )  # stop strings stay ours


async def test_closing_the_stream_aborts_the_request(trtllm, tmp_path) -> None:
    generator = engine_generator(trtllm, tmp_path)
    async with aclosing(generator.generate(request(max_tokens=50))) as stream:
        await anext(stream)
        assert generator.stats().active_requests == 1
    output = trtllm._tensorrt_engine.LLM.instances[-1].requests[-1][2]
    assert output.aborted() and generator.stats().active_requests == 0
    assert output.yielded < 8  # it did not run to the end


async def test_errors_map_to_backend_errors(trtllm, tmp_path) -> None:
    generator = engine_generator(trtllm, tmp_path)
    llm_cls = trtllm._tensorrt_engine.LLM
    llm_cls.raise_at = 2
    with pytest.raises(GenerationFailed, match="mid-stream"):
        await collect(generator, request())
    llm_cls.raise_at = None

    def cancelled(prompt, sampling):
        return [Step("Hel", [1]), Step("", [], "cancelled")]

    llm_cls.script = staticmethod(cancelled)
    with pytest.raises(GenerationFailed, match="cancelled"):
        await collect(generator, request())
    with pytest.raises(ContextLengthExceeded):
        await collect(generator, request("word " * 3000))


async def test_iteration_stats_feed_kv_and_queue_numbers_and_expire_after_an_idle_gap(
    trtllm, tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(trtllm_module, "STATS_POLL_SECONDS", 0.05)
    monkeypatch.setattr(trtllm_module, "STATS_MAX_AGE_SECONDS", 0.2)
    generator = engine_generator(trtllm, tmp_path)
    llm = trtllm._tensorrt_engine.LLM.instances[-1]
    busy = {
        "numActiveRequests": 3,
        "numQueuedRequests": 2,
        "kvCacheStats": {"usedNumBlocks": 40, "maxNumBlocks": 1000},
    }
    llm.iteration_stats += [busy] * 8  # one per decoding step of the warm-up and the next request
    await generator.warmup()  # starts the stats poller
    async with aclosing(generator.generate(request(max_tokens=50))) as stream:
        await anext(stream)
        for _ in range(100):
            if generator.stats().kv_blocks_used is not None:
                break
            await asyncio.sleep(0.01)
        stats = generator.stats()  # a request is in flight: the engine's own figures
        assert (stats.engine_running, stats.engine_waiting, stats.kv_blocks_used, stats.kv_blocks_total) == (
            3,
            2,
            40,
            1000,
        )
        async for _ in stream:
            pass
    assert generator.stats().requests_total == 2
    await asyncio.sleep(0.6)  # idle gap: the IterationResult timed out and stays done until the next request
    idle = generator.stats()
    assert (idle.active_requests, idle.engine_running, idle.engine_waiting) == (0, 0, 0)
    assert idle.kv_blocks_used is None and idle.kv_blocks_total == 1000  # usage unknown now; capacity stays
    await generator.aclose()
    assert llm.shut_down


async def test_a_request_after_the_llm_shut_down_is_refused(trtllm, tmp_path) -> None:
    generator = engine_generator(trtllm, tmp_path)
    llm = trtllm._tensorrt_engine.LLM.instances[-1]
    llm.shutdown()  # as a background executor error does upstream
    with pytest.raises(RuntimeError, match="LLM is shutting down"):
        llm.generate_async([1, 2, 3], streaming=True)
    with pytest.raises(BackendUnavailable, match="LLM is shutting down"):
        await collect(generator, request())


async def test_the_llm_apis_own_length_check_becomes_an_invalid_request(trtllm, tmp_path) -> None:
    generator = engine_generator(
        trtllm, tmp_path, max_seq_len=40
    )  # the engine allows less than the preset says
    with pytest.raises(InvalidRequest, match=r"rejected the request: .*should not exceed max_seq_len \(40\)"):
        await collect(generator, request(max_tokens=30))


async def test_a_tensor_parallel_engine_starts_with_its_world_and_needs_its_gpus(trtllm, tmp_path) -> None:
    tp8 = with_smollm_tokenizer(
        load_llm_config(REPO / "build_configs/llm/llama-3.1-70b-instruct-h100-tp8-fp8.yaml")
    )
    with pytest.raises(EngineMismatch, match=r"runs on 8 GPUs \(tp 8 x pp 1\), this host shows 4"):
        engine_generator(trtllm, tmp_path, tp8, visible_gpus=4, tp_size=8)
    engine_generator(trtllm, tmp_path, tp8, visible_gpus=8, tp_size=8)
    assert trtllm._tensorrt_engine.LLM.instances[-1].kwargs["tensor_parallel_size"] == 8


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        (
            {"compute_capability": "8.9", "gpu_name": "NVIDIA L4"},
            "built on NVIDIA L4 (compute capability 8.9), this GPU",
        ),
        ({"tensorrt_llm_version": "1.1.0"}, "TensorRT-LLM 1.1.0 built it, this process has 1.2.1"),
        ({"engine_config_version": "1.0.0"}, "the engine directory was replaced"),
    ],
)
def test_an_engine_built_elsewhere_is_refused_with_how_to_rebuild(
    trtllm, tmp_path, manifest, message
) -> None:
    with pytest.raises(EngineMismatch) as error:
        engine_generator(trtllm, tmp_path, **manifest)
    assert message in str(error.value)
    assert "python -m checkpoints build-llm build_configs/llm/smollm2-135m-instruct-any-fp16.yaml" in str(
        error.value
    )


def test_a_missing_engine_says_how_to_build_it(trtllm, tmp_path) -> None:
    generator = TrtllmGenerator(
        load_llm_config(SMOKE), tmp_path, module=trtllm, compute_capability="9.0", visible_gpus=1
    )
    with pytest.raises(BackendUnavailable, match="build-llm build_configs/llm/smollm2"):
        generator.load()
