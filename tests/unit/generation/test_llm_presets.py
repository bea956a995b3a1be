from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from checkpoints.llm import plan_build
from checkpoints.llm_config import LlmConfigError, load_llm_config
from serve.engine_artifacts import GPUS, MIN_COMPUTE_CAPABILITY
from tests.conftest import REPO
from tests.fakes_trtllm import API

PRESETS = sorted((REPO / "build_configs" / "llm").glob("*.yaml"))


def test_presets_cover_the_required_models_gpus_and_precisions() -> None:
    names = {p.stem for p in PRESETS}
    for model in ("llama-3.1-8b-instruct", "qwen2.5-7b-instruct"):
        for target in ("h100-fp8", "a100-bf16", "l4-int8wo", "a10g-int4awq"):
            assert f"{model}-{target}" in names
    assert "smollm2-135m-instruct-any-fp16" in names
    assert any(load_llm_config(p).flow == "pytorch" for p in PRESETS)
    tp = {load_llm_config(p).build.tp_size for p in PRESETS if "70b" in p.stem}
    assert tp == {4, 8}  # the 70B class spans 4 and 8 GPUs


def test_no_preset_or_gpu_entry_targets_a_gpu_tensorrt_llm_1x_has_no_kernels_for() -> None:
    built_for = min(API["cuda_architectures"]["sm"]) / 10  # the CMake default list starts at SM 80
    assert MIN_COMPUTE_CAPABILITY == built_for
    assert all(cc >= MIN_COMPUTE_CAPABILITY for cc, _ in GPUS.values()), GPUS
    for path in PRESETS:
        assert load_llm_config(path).target.min_compute_capability >= MIN_COMPUTE_CAPABILITY, path.stem


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_every_preset_dry_runs_to_commands_and_a_manifest(path: Path, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "checkpoints", "build-llm", str(path), "--dry-run"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"CSREPLY_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    preset = load_llm_config(path)
    assert "csreply-engine.json" in result.stdout and '"config_hash"' in result.stdout
    if preset.flow == "engine":
        assert "\ntrtllm-build --checkpoint_dir" in result.stdout and "--kv_cache_type paged" in result.stdout
        assert "--paged_kv_cache" not in result.stdout
    if preset.precision.quantization in ("fp8", "int4_awq"):
        assert (
            "quantization/quantize.py" in result.stdout
            and f"--qformat {preset.precision.quantization}" in result.stdout
        )
        assert f"--calib_dataset {preset.precision.calib_path}" in result.stdout  # never the hub default


@pytest.mark.parametrize(
    "path", [p for p in PRESETS if load_llm_config(p).flow == "engine"], ids=lambda p: p.stem
)
def test_fp8_context_fmha_is_always_explicit(path: Path, tmp_path: Path) -> None:
    preset = load_llm_config(path)
    build = next(c for c in plan_build(preset, tmp_path).commands if c[0] == "trtllm-build")
    # upstream PluginConfig.use_fp8_context_fmha defaults to True: leaving the flag out means "enable"
    assert API["classes"]["PluginConfig"]["defaults"]["use_fp8_context_fmha"] == "True"
    value = build[build.index("--use_fp8_context_fmha") + 1]
    assert value == ("enable" if preset.build.use_fp8_context_fmha else "disable")


def test_tensor_parallel_presets_split_the_checkpoint_and_build_one_engine_per_gpu(tmp_path: Path) -> None:
    preset = load_llm_config(REPO / "build_configs/llm/llama-3.1-70b-instruct-h100-tp8-fp8.yaml")
    quantize, build = plan_build(preset, tmp_path).commands
    assert (
        quantize[quantize.index("--tp_size") + 1] == "8" and quantize[quantize.index("--pp_size") + 1] == "1"
    )
    assert build[build.index("--workers") + 1] == "8"


def test_a_real_build_refuses_a_missing_calibration_directory(tmp_path: Path, monkeypatch) -> None:
    import checkpoints.llm as llm

    preset = load_llm_config(
        mutate(
            H100,
            tmp_path,
            lambda d: d["precision"].update(calib_dataset_dir=str(tmp_path / "nowhere"))
            or d["model"].update(hf_dir=str(tmp_path / "hf")),
        )
    )
    (tmp_path / "hf").mkdir()
    (tmp_path / "hf" / "config.json").write_text("{}")
    monkeypatch.setattr(llm, "detect_environment", lambda: {"gpu_name": "H100", "compute_capability": "9.0"})
    monkeypatch.setattr(llm.shutil, "which", lambda name: "/usr/bin/" + name)
    with pytest.raises(llm.LlmBuildError, match="calib_dataset_dir .*nowhere is not a directory"):
        llm.run_build(plan_build(preset, tmp_path))


def mutate(path: Path, tmp_path: Path, change) -> Path:
    data = yaml.safe_load(path.read_text())
    change(data)
    out = tmp_path / path.name
    out.write_text(yaml.safe_dump(data))
    return out


A10G = REPO / "build_configs/llm/llama-3.1-8b-instruct-a10g-int4awq.yaml"
A100 = REPO / "build_configs/llm/llama-3.1-8b-instruct-a100-bf16.yaml"
H100 = REPO / "build_configs/llm/llama-3.1-8b-instruct-h100-fp8.yaml"
TP4 = REPO / "build_configs/llm/llama-3.1-70b-instruct-h100-tp4-fp8.yaml"


@pytest.mark.parametrize(
    ("base", "change", "message"),
    [
        (
            A100,
            lambda d: d["target"].update(gpus=["T4"]),
            "T4 (compute capability 7.5): TensorRT-LLM 1.x needs compute capability >= 8.0",
        ),
        (A100, lambda d: d["target"].update(gpus=["A100", "V100"]), "V100 (compute capability 7.0)"),
        (H100, lambda d: d["precision"].pop("calib_dataset_dir"), "precision.calib_dataset_dir: quantize.py"),
        (
            A100,
            lambda d: d["precision"].update(calib_dataset_dir="/data/calib"),
            "applies only to quantize.py",
        ),
        (TP4, lambda d: d["build"].update(tp_size=2), "target.gpu_count (4) must equal"),
        (
            TP4,
            lambda d: d["target"].update(gpu_count=1) or d["build"].update(tp_size=1, workers=1),
            "more than 80 % of the smallest target GPU",
        ),
        (
            A100,
            lambda d: d["build"].update(max_input_len=9000),
            "build.max_input_len (9000) exceeds build.max_seq_len",
        ),
        (
            A100,
            lambda d: d["build"].update(paged_kv_cache=True),
            "build.paged_kv_cache: Extra inputs are not permitted",
        ),
        (A100, lambda d: d.update(versoin=1), "versoin: Extra inputs are not permitted"),
        (A100, lambda d: d.pop("version"), "version: Field required"),
        (A100, lambda d: d["precision"].update(quantization="fp8"), "FP8 needs compute capability >= 8.9"),
        (
            A10G,
            lambda d: d["precision"].update(quantization="none", calib_dataset_dir=None)
            or d["model"].update(params_b=13),
            "more than 80 % of the smallest target GPU",
        ),
        (A100, lambda d: d["build"].update(kv_cache_type="continuous"), "build.kv_cache_type"),
        (
            A100,
            lambda d: d["build"].update(use_paged_context_fmha=False),
            "enable_block_reuse needs build.use_paged_context_fmha",
        ),
        (A100, lambda d: d["target"].update(gpus=["X9000"]), "unknown GPU"),
    ],
)
def test_bad_presets_are_rejected_with_the_field_named(
    base: Path, change, message: str, tmp_path: Path
) -> None:
    with pytest.raises(LlmConfigError) as error:
        load_llm_config(mutate(base, tmp_path, change))
    assert message in str(error.value)


def test_cli_reports_a_bad_preset_and_exits_2(tmp_path: Path) -> None:
    bad = mutate(A100, tmp_path, lambda d: d["target"].update(gpus=["T4"]))
    result = subprocess.run(
        [sys.executable, "-m", "checkpoints", "build-llm", str(bad), "--dry-run"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert result.returncode == 2 and "needs compute capability >= 8.0" in result.stderr


def test_real_build_without_tensorrt_llm_says_where_to_build(tmp_path: Path) -> None:
    smoke = REPO / "build_configs/llm/smollm2-135m-instruct-any-fp16.yaml"
    result = subprocess.run(
        [sys.executable, "-m", "checkpoints", "build-llm", str(smoke)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert result.returncode == 1 and "TensorRT-LLM is not importable" in result.stderr
