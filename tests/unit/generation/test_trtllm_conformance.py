"""Every keyword the trtllm path passes to TensorRT-LLM, and every trtllm-build / convert / quantize flag it
emits, exists in TensorRT-LLM 1.2.1 (the facts in tests/data/trtllm_api.json, regenerated from the team's
reference by tests/conformance/write_trtllm_api.py, so these tests run from the project alone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkpoints.llm import plan_build
from checkpoints.llm_config import load_llm_config
from serve.config import SMOLLM2_DIRNAME, default_cache_dir
from serve.generation.base import ChatMessage, GenerationRequest
from serve.generation.chat import ChatTokenizer
from serve.generation.trtllm import (
    DECODING_GUARDS,
    kv_cache_kwargs,
    llm_kwargs,
    sampling_kwargs,
    scheduler_kwargs,
)
from serve.llm_preset import BuildSection
from tests.conftest import REPO
from tests.fakes_trtllm import API, FakeTensorRTLLM, reference_fields, reference_values

PRESETS = sorted((REPO / "build_configs" / "llm").glob("*.yaml"))
SMOLLM = default_cache_dir() / "models" / SMOLLM2_DIRNAME


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_llm_constructor_and_config_keywords_exist(path: Path, tmp_path: Path) -> None:
    preset = load_llm_config(path)
    plan = plan_build(preset, tmp_path)
    args_class = "TrtLlmArgs" if preset.flow == "engine" else "TorchLlmArgs"
    kwargs = llm_kwargs(preset, plan.serve_dir)
    keys = set(kwargs) | {"kv_cache_config", "scheduler_config"}
    assert keys <= reference_fields(args_class), keys - reference_fields(args_class)
    assert set(kv_cache_kwargs(preset)) <= reference_fields("KvCacheConfig")
    scheduler = scheduler_kwargs(preset, FakeTensorRTLLM.llmapi)
    assert set(scheduler) <= reference_fields("SchedulerConfig")
    assert scheduler["capacity_scheduler_policy"].name in reference_values("CapacitySchedulerPolicy")
    if preset.flow == "engine":  # build-time fields the engine LLM must not be given
        assert not keys & {"build_config", "max_seq_len", "max_input_len"}
    # _TrtLLM._build_model never hands iter_stats_max_iterations to the executor: setting it would be a no-op
    assert "iter_stats_max_iterations" not in kwargs


@pytest.mark.parametrize("path", [p for p in PRESETS if "70b" in p.stem], ids=lambda p: p.stem)
def test_multi_gpu_presets_start_the_llm_with_their_parallel_sizes(path: Path, tmp_path: Path) -> None:
    preset = load_llm_config(path)
    kwargs = llm_kwargs(preset, plan_build(preset, tmp_path).serve_dir)
    assert API["classes"]["BaseLlmArgs"]["defaults"]["tensor_parallel_size"] == "1"  # so it must be passed
    assert kwargs["tensor_parallel_size"] == preset.build.tp_size == preset.target.gpu_count > 1
    assert "pipeline_parallel_size" not in kwargs  # pp 1: the upstream default
    assert {"tensor_parallel_size", "pipeline_parallel_size"} <= reference_fields("BaseLlmArgs")


def request(**kw: object) -> GenerationRequest:
    return GenerationRequest("r", (ChatMessage("user", "hi"),), 17, **kw)  # type: ignore[arg-type]


def test_sampling_keywords_exist_for_greedy_and_sampled_requests() -> None:
    chat = ChatTokenizer.from_dir(SMOLLM)
    allowed = reference_fields("SamplingParams")
    for temperature in (0.0, 0.8):
        kwargs = sampling_kwargs(request(temperature=temperature, top_p=0.9, seed=3), chat)
        assert set(kwargs) <= allowed, set(kwargs) - allowed
        assert kwargs["max_tokens"] == 17  # always set: the API default is 32
        assert kwargs["stop_token_ids"] and kwargs["end_id"] in kwargs["stop_token_ids"]
        to_max = sampling_kwargs(request(temperature=temperature, top_p=0.9, seed=3, ignore_eos=True), chat)
        assert set(to_max) <= allowed, set(to_max) - allowed
        assert (
            to_max["ignore_eos"] is True
            and API["classes"]["SamplingParams"]["defaults"]["ignore_eos"] == "False"
        )
        assert to_max["stop_token_ids"] == []  # no end id may stop a run that ignores EOS


def test_decoding_guards_map_to_sampling_params_only_when_not_neutral() -> None:
    chat = ChatTokenizer.from_dir(SMOLLM)
    defaults = API["classes"]["SamplingParams"]["defaults"]
    assert set(DECODING_GUARDS) <= reference_fields("SamplingParams")
    assert all(defaults[name] == "None" for name in DECODING_GUARDS)  # None = the runtime's own default
    neutral = sampling_kwargs(request(), chat)
    assert not set(DECODING_GUARDS) & set(neutral)
    guarded = sampling_kwargs(
        request(repetition_penalty=1.1, presence_penalty=0.3, frequency_penalty=0.2, no_repeat_ngram_size=4),
        chat,
    )
    assert {k: guarded[k] for k in DECODING_GUARDS} == {
        "repetition_penalty": 1.1,
        "presence_penalty": 0.3,
        "frequency_penalty": 0.2,
        "no_repeat_ngram_size": 4,
    }
    one = sampling_kwargs(request(frequency_penalty=0.5), chat)
    assert one["frequency_penalty"] == 0.5 and not {"repetition_penalty", "presence_penalty"} & set(one)
    FakeTensorRTLLM.SamplingParams(**guarded)  # unknown keywords would raise TypeError


def test_build_section_fields_are_build_or_plugin_config_fields() -> None:
    allowed = (
        reference_fields("BuildConfig") | reference_fields("PluginConfig") | {"tp_size", "pp_size", "workers"}
    )
    assert set(BuildSection.model_fields) <= allowed, set(BuildSection.model_fields) - allowed


def flags(command: list[str]) -> list[str]:
    return [part for part in command if part.startswith("--")]


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_emitted_command_line_flags_exist_in_the_1x_tools(path: Path, tmp_path: Path) -> None:
    cli = API["cli"]
    removed = set(cli["removed_0x_build_flags"]) | set(cli["trtllm-build"]["deprecated_but_accepted"])
    for command in plan_build(load_llm_config(path), tmp_path).commands:
        used = flags(command)
        assert not set(used) & removed, f"removed or deprecated flag in {command}"
        tool = "trtllm-build" if command[0] == "trtllm-build" else Path(command[1]).name
        known = set(cli[tool]["flags"])
        assert set(used) <= known, set(used) - known
        if command[0] == "trtllm-build":
            assert command[command.index("--kv_cache_type") + 1] == "paged"
