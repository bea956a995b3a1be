"""Every keyword the trtllm path passes to TensorRT-LLM, and every trtllm-build / convert / quantize flag it
emits, exists in the 1.2.1 reference data (shared/reference/trtllm_api, shared/reference/trtllm.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from checkpoints.llm import plan_build
from checkpoints.llm_config import BuildSection, load_llm_config
from serve.generation.base import ChatMessage, GenerationRequest
from serve.generation.chat import ChatTokenizer
from serve.generation.trtllm import kv_cache_kwargs, llm_kwargs, sampling_kwargs, scheduler_kwargs
from tests.conftest import REPO
from tests.fakes_trtllm import API_DIR, FakeTensorRTLLM, reference_fields, reference_values

PRESETS = sorted((REPO / "build_configs" / "llm").glob("*.yaml"))
GUIDE = REPO.parent / "shared" / "reference" / "trtllm.md"

pytestmark = pytest.mark.skipif(not API_DIR.is_dir(), reason=f"{API_DIR} not present (shared reference)")


def guide_section(start: str, end: str) -> str:
    text = GUIDE.read_text()
    return text[text.index(start) : text.index(end)]


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_llm_constructor_and_config_keywords_exist(path: Path, tmp_path: Path) -> None:
    preset = load_llm_config(path)
    plan = plan_build(preset, tmp_path)
    args_class = "TrtLlmArgs" if preset.flow == "engine" else "TorchLlmArgs"
    keys = set(llm_kwargs(preset, plan.serve_dir)) | {"kv_cache_config", "scheduler_config"}
    assert keys <= reference_fields(args_class), keys - reference_fields(args_class)
    assert set(kv_cache_kwargs(preset)) <= reference_fields("KvCacheConfig")
    scheduler = scheduler_kwargs(preset, FakeTensorRTLLM.llmapi)
    assert set(scheduler) <= reference_fields("SchedulerConfig")
    assert scheduler["capacity_scheduler_policy"].name in reference_values("CapacitySchedulerPolicy")
    if preset.flow == "engine":  # build-time fields the engine LLM must not be given
        assert not keys & {"build_config", "max_seq_len", "max_input_len"}


def test_sampling_keywords_exist_for_greedy_and_sampled_requests() -> None:
    chat = ChatTokenizer.from_dir(Path.home() / ".cache/csreply/models/smollm2-135m-instruct")
    allowed = reference_fields("SamplingParams")
    for temperature in (0.0, 0.8):
        request = GenerationRequest("r", (ChatMessage("user", "hi"),), 17, temperature=temperature, top_p=0.9, seed=3)
        kwargs = sampling_kwargs(request, chat)
        assert set(kwargs) <= allowed, set(kwargs) - allowed
        assert kwargs["max_tokens"] == 17  # always set: the API default is 32
        assert kwargs["stop_token_ids"] and kwargs["end_id"] in kwargs["stop_token_ids"]


def test_build_section_fields_are_build_or_plugin_config_fields() -> None:
    allowed = reference_fields("BuildConfig") | reference_fields("PluginConfig") | {"tp_size", "pp_size", "workers"}
    assert set(BuildSection.model_fields) <= allowed, set(BuildSection.model_fields) - allowed


def documented_flags(section: str) -> set[str]:
    """Every --flag inside a `code span` (multi-line spans included) of a reference section."""
    return {flag for span in re.findall(r"`([^`]*)`", section) for flag in re.findall(r"--[a-z0-9_]+", span)}


def flags(command: list[str]) -> list[str]:
    return [part for part in command if part.startswith("--")]


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_emitted_command_line_flags_exist_in_the_1x_tools(path: Path, tmp_path: Path) -> None:
    build_flags = documented_flags(guide_section("### 5.2 `trtllm-build`", "### 5.3"))
    prep_flags = documented_flags(guide_section("### 5.1 HF", "### 5.2"))
    removed = {"--paged_kv_cache", "--use_gpt_attention_plugin", "--enable_context_fmha", "--use_inflight_batching",
               "--max_output_len", "--world_size", "--multi_block_mode"}
    for command in plan_build(load_llm_config(path), tmp_path).commands:
        used = flags(command)
        assert not set(used) & removed, f"removed 0.x flag in {command}"
        known = build_flags if command[0] == "trtllm-build" else prep_flags
        assert set(used) <= known, set(used) - known
        if command[0] == "trtllm-build":
            assert command[command.index("--kv_cache_type") + 1] == "paged"
