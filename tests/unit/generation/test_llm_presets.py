from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from checkpoints.llm_config import LlmConfigError, load_llm_config
from tests.conftest import REPO

PRESETS = sorted((REPO / "build_configs" / "llm").glob("*.yaml"))


def test_presets_cover_the_required_models_gpus_and_precisions() -> None:
    names = {p.stem for p in PRESETS}
    for model in ("llama-3.1-8b-instruct", "qwen2.5-7b-instruct"):
        for target in ("h100-fp8", "a100-bf16", "l4-int8wo", "t4-fp16"):
            assert f"{model}-{target}" in names
    assert "smollm2-135m-instruct-any-fp16" in names
    assert any(load_llm_config(p).flow == "pytorch" for p in PRESETS)


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_every_preset_dry_runs_to_commands_and_a_manifest(path: Path, tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "checkpoints", "build-llm", str(path), "--dry-run"],
                            capture_output=True, text=True, cwd=REPO, env={"CSREPLY_CACHE_DIR": str(tmp_path),
                                                                           "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    preset = load_llm_config(path)
    assert "csreply-engine.json" in result.stdout and '"config_hash"' in result.stdout
    if preset.flow == "engine":
        assert "\ntrtllm-build --checkpoint_dir" in result.stdout and "--kv_cache_type paged" in result.stdout
        assert "--paged_kv_cache" not in result.stdout
    if preset.precision.quantization in ("fp8", "int4_awq"):
        assert "quantization/quantize.py" in result.stdout and f"--qformat {preset.precision.quantization}" in result.stdout


def mutate(path: Path, tmp_path: Path, change) -> Path:
    data = yaml.safe_load(path.read_text())
    change(data)
    out = tmp_path / path.name
    out.write_text(yaml.safe_dump(data))
    return out


T4 = REPO / "build_configs/llm/llama-3.1-8b-instruct-t4-fp16.yaml"
A100 = REPO / "build_configs/llm/llama-3.1-8b-instruct-a100-bf16.yaml"


@pytest.mark.parametrize(
    ("base", "change", "message"),
    [
        (T4, lambda d: d["precision"].update(dtype="bfloat16"), "precision.dtype: bfloat16 needs compute capability"),
        (A100, lambda d: d["build"].update(max_input_len=9000), "build.max_input_len (9000) exceeds build.max_seq_len"),
        (A100, lambda d: d["build"].update(paged_kv_cache=True), "build.paged_kv_cache: Extra inputs are not permitted"),
        (A100, lambda d: d.update(versoin=1), "versoin: Extra inputs are not permitted"),
        (A100, lambda d: d.pop("version"), "version: Field required"),
        (A100, lambda d: d["precision"].update(quantization="fp8"), "FP8 needs compute capability >= 8.9"),
        (T4, lambda d: d["precision"].update(quantization="none"), "more than 80 % of the smallest target GPU"),
        (A100, lambda d: d["build"].update(kv_cache_type="continuous"), "build.kv_cache_type"),
        (A100, lambda d: d["build"].update(use_paged_context_fmha=False),
         "enable_block_reuse needs build.use_paged_context_fmha"),
        (A100, lambda d: d["target"].update(gpus=["V100"]), "unknown GPU"),
    ],
)
def test_bad_presets_are_rejected_with_the_field_named(base: Path, change, message: str, tmp_path: Path) -> None:
    with pytest.raises(LlmConfigError) as error:
        load_llm_config(mutate(base, tmp_path, change))
    assert message in str(error.value)


def test_cli_reports_a_bad_preset_and_exits_2(tmp_path: Path) -> None:
    bad = mutate(T4, tmp_path, lambda d: d["precision"].update(dtype="bfloat16"))
    result = subprocess.run([sys.executable, "-m", "checkpoints", "build-llm", str(bad), "--dry-run"],
                            capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 2 and "bfloat16 needs compute capability" in result.stderr


def test_real_build_without_tensorrt_llm_says_where_to_build(tmp_path: Path) -> None:
    smoke = REPO / "build_configs/llm/smollm2-135m-instruct-any-fp16.yaml"
    result = subprocess.run([sys.executable, "-m", "checkpoints", "build-llm", str(smoke)],
                            capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 1 and "TensorRT-LLM is not importable" in result.stderr
