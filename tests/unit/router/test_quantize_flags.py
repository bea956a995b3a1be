"""The flags checkpoints/llm.py passes to TensorRT-LLM's examples/quantization/quantize.py: against the team's
reference list of that script's flags, and checked against the script actually installed before a build starts
(its flags differ between TensorRT-LLM releases: `--export_format` is at upstream 059c97c1, not at
c8c6df08)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import checkpoints.llm as llm
from checkpoints.llm import LlmBuildError, check_quantize_flags, plan_build
from checkpoints.llm_config import load_llm_config
from tests.conftest import REPO

PRESETS = sorted((REPO / "build_configs" / "llm").glob("*.yaml"))
PYTORCH_FP8 = REPO / "build_configs/llm/llama-3.1-8b-instruct-h200-pytorch-fp8.yaml"
ENGINE_FP8 = REPO / "build_configs/llm/llama-3.1-8b-instruct-h100-fp8.yaml"
REFERENCE = REPO.parent / "shared" / "reference" / "trtllm.md"
# The flags the project may pass, as each upstream version defines them (argparse in quantize.py).
FLAGS_AT_C8C6DF08 = [
    "--model_dir",
    "--device",
    "--device_map",
    "--calib_dataset",
    "--dtype",
    "--qformat",
    "--seed",
    "--tokenizer_max_seq_length",
    "--batch_size",
    "--calib_size",
    "--calib_max_seq_length",
    "--output_dir",
    "--tp_size",
    "--pp_size",
    "--cp_size",
    "--awq_block_size",
    "--kv_cache_dtype",
    "--quantize_lm_head",
]
FLAGS_AT_059C97C1 = [*FLAGS_AT_C8C6DF08, "--export_format"]
# Not in the reference's list, defined by quantize.py at both upstream commits (a local directory works too).
READ_UPSTREAM = {"--calib_dataset"}


def quantize_commands(path: Path, tmp_path: Path, examples: Path | None = None) -> list[list[str]]:
    plan = plan_build(load_llm_config(path), tmp_path, str(examples) if examples else None)
    return [c for c in plan.commands if len(c) > 1 and c[1].endswith("/quantization/quantize.py")]


def reference_quantize_flags() -> set[str]:
    """The quantize.py flags in the reference's section 5.1 (the bullet on FP8 / INT4-AWQ via ModelOpt)."""
    text = REFERENCE.read_text()
    section = text[text.index("### 5.1") : text.index("### 5.2")]
    bullet = section[section.index("examples/quantization/quantize.py") :]
    bullet = bullet[: bullet.index("\n* ")] if "\n* " in bullet else bullet
    return set(re.findall(r"--[a-z_]+", bullet))


@pytest.mark.skipif(
    not REFERENCE.is_file(), reason="the team's reference (shared/reference) is not beside the repo"
)
@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_quantize_flags_are_in_the_reference_list_of_the_script(path: Path, tmp_path: Path) -> None:
    known = reference_quantize_flags()
    assert {"--model_dir", "--qformat", "--kv_cache_dtype", "--export_format"} <= known
    for command in quantize_commands(path, tmp_path):
        used = {part for part in command if part.startswith("--")}
        assert used <= known | READ_UPSTREAM, used - known - READ_UPSTREAM


def test_only_the_pytorch_flow_asks_for_the_hf_export(tmp_path: Path) -> None:
    (quantize,) = quantize_commands(PYTORCH_FP8, tmp_path)
    assert quantize[quantize.index("--export_format") + 1] == "hf"
    (engine_quantize,) = quantize_commands(ENGINE_FP8, tmp_path)
    assert (
        "--export_format" not in engine_quantize
    )  # the default, a TensorRT-LLM checkpoint, feeds trtllm-build


def write_quantize_py(examples: Path, flags: list[str]) -> None:
    script = examples / "quantization" / "quantize.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    lines = ["import argparse", "parser = argparse.ArgumentParser()"]
    lines += [f'parser.add_argument("{flag}")' for flag in flags]
    script.write_text("\n".join(lines) + "\n")


def test_a_quantize_py_without_export_format_is_refused_with_the_alternative(tmp_path: Path) -> None:
    examples = tmp_path / "examples"
    write_quantize_py(examples, FLAGS_AT_C8C6DF08)
    plan = plan_build(load_llm_config(PYTORCH_FP8), tmp_path, str(examples))
    with pytest.raises(
        LlmBuildError,
        match=r"quantize.py \(TensorRT-LLM 1.2.1\) has no --export_format; .*"
        r"cannot load: quantize to an HF checkpoint with NVIDIA ModelOpt",
    ):
        check_quantize_flags(plan, "1.2.1")
    check_quantize_flags(
        plan_build(load_llm_config(ENGINE_FP8), tmp_path, str(examples)), "1.2.1"
    )  # no HF export
    write_quantize_py(examples, FLAGS_AT_059C97C1)
    check_quantize_flags(plan, "1.2.1")


def test_a_missing_examples_dir_is_named(tmp_path: Path) -> None:
    plan = plan_build(load_llm_config(ENGINE_FP8), tmp_path, str(tmp_path / "nowhere"))
    with pytest.raises(
        LlmBuildError, match=r"nowhere/quantization/quantize.py does not exist: point --examples-dir"
    ):
        check_quantize_flags(plan)


def test_the_build_checks_the_flags_before_it_hashes_the_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    examples = tmp_path / "examples"
    write_quantize_py(examples, FLAGS_AT_C8C6DF08)
    hf_dir = tmp_path / "hf"
    hf_dir.mkdir()
    (hf_dir / "config.json").write_text("{}")
    config = load_llm_config(PYTORCH_FP8).model_copy(deep=True)
    config.model.hf_dir = str(hf_dir)
    config.precision.calib_dataset_dir = str(tmp_path)
    monkeypatch.setattr(llm, "detect_environment", lambda: {"tensorrt_llm_version": "1.2.1"})

    def no_hash(directory: Path) -> str:
        raise AssertionError("the checkpoint was hashed before the flags were checked")

    monkeypatch.setattr(llm, "checkpoint_hash", no_hash)
    with pytest.raises(LlmBuildError, match="has no --export_format"):
        llm.run_build(plan_build(config, tmp_path, str(examples)))
