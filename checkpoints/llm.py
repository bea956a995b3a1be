"""Build a TensorRT-LLM deployment from a preset: HF checkpoint -> TensorRT-LLM checkpoint -> engine.

    python -m checkpoints build-llm build_configs/llm/<preset>.yaml [--dry-run] [--examples-dir DIR]

Engine flow (`flow: engine`): `convert_checkpoint.py` (BF16/FP16, INT8 weight-only) or ModelOpt's
`quantize.py` (FP8, INT4-AWQ) writes a TensorRT-LLM checkpoint, `trtllm-build` (1.x flags:
`--kv_cache_type paged`, not the removed `--paged_kv_cache`) compiles it, and `csreply-engine.json` goes
beside the engine: preset and config hash, source checkpoint hash, engine `config.json` version, GPU
name and compute capability, TensorRT-LLM and TensorRT versions. serve/generation/trtllm.py refuses an
engine whose manifest does not match the running GPU and libraries.

PyTorch flow (`flow: pytorch`): no engine; `tensorrt_llm.LLM` loads the HF checkpoint (or the HF export
of a ModelOpt-quantised one) at start-up. The manifest records the checkpoint it serves.

`--dry-run` prints the exact commands and the manifest it would write, and works on any machine.
TensorRT-LLM cannot be installed on the development machines: nothing here has been run for real
except the dry run (docs/gpu.md).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checkpoints.llm_config import LlmBuildConfig

ENGINE_MANIFEST = "csreply-engine.json"
# Where NVIDIA's TensorRT-LLM release container keeps the examples (assumption; override with
# --examples-dir or TRTLLM_EXAMPLES_DIR).
DEFAULT_EXAMPLES_DIR = "/app/tensorrt_llm/examples"
DETECTED_AT_BUILD = "<detected at build time>"


class LlmBuildError(RuntimeError):
    pass


@dataclass
class BuildPlan:
    config: LlmBuildConfig
    output_dir: Path
    checkpoint_dir: Path
    serve_dir: Path  # what the trtllm generator loads: engine dir, HF dir or quantised HF export
    commands: list[list[str]] = field(default_factory=list)

    def shell(self) -> list[str]:
        return [shlex.join(c) for c in self.commands]

    @property
    def manifest_path(self) -> Path:
        """Beside the engine (engine flow); in the output directory (PyTorch flow)."""
        return (self.serve_dir if self.config.flow == "engine" else self.output_dir) / ENGINE_MANIFEST


def config_hash(config: LlmBuildConfig) -> str:
    return hashlib.sha256(config.model_dump_json().encode()).hexdigest()[:16]


def output_dir(config: LlmBuildConfig, cache_dir: Path) -> Path:
    return Path(config.output_dir).expanduser() if config.output_dir else cache_dir / "engines" / config.name


def _switch(value: bool) -> str:
    return "enable" if value else "disable"


def quantize_command(config: LlmBuildConfig, examples: str, out: Path, export_hf: bool) -> list[str]:
    p, b = config.precision, config.build
    cmd = [
        "python", f"{examples}/quantization/quantize.py", "--model_dir", str(config.model.hf_path),
        "--dtype", p.dtype, "--qformat", p.quantization, "--output_dir", str(out),
        "--tp_size", str(b.tp_size), "--pp_size", str(b.pp_size), "--calib_size", "512",
    ]
    if p.kv_cache_dtype == "fp8":
        cmd += ["--kv_cache_dtype", "fp8"]
    if p.quantization == "int4_awq":
        cmd += ["--awq_block_size", "128"]
    if export_hf:
        cmd += ["--export_format", "hf"]
    return cmd


def convert_command(config: LlmBuildConfig, examples: str, out: Path) -> list[str]:
    p, b = config.precision, config.build
    cmd = [
        "python", f"{examples}/models/core/{config.model.family}/convert_checkpoint.py",
        "--model_dir", str(config.model.hf_path), "--output_dir", str(out), "--dtype", p.dtype,
        "--tp_size", str(b.tp_size), "--pp_size", str(b.pp_size),
    ]
    if p.quantization == "int8_weight_only":
        cmd += ["--use_weight_only", "--weight_only_precision", "int8"]
    return cmd


def trtllm_build_command(config: LlmBuildConfig, checkpoint: Path, engine: Path) -> list[str]:
    b = config.build
    cmd = [
        "trtllm-build", "--checkpoint_dir", str(checkpoint), "--output_dir", str(engine),
        "--max_batch_size", str(b.max_batch_size), "--max_input_len", str(b.max_input_len),
        "--max_seq_len", str(b.max_seq_len), "--max_num_tokens", str(b.max_num_tokens),
        "--kv_cache_type", b.kv_cache_type, "--tokens_per_block", str(b.tokens_per_block),
        "--use_paged_context_fmha", _switch(b.use_paged_context_fmha),
        "--remove_input_padding", _switch(b.remove_input_padding),
        "--context_fmha", _switch(b.context_fmha),
        "--gpt_attention_plugin", b.gpt_attention_plugin, "--gemm_plugin", b.gemm_plugin,
        "--multiple_profiles", _switch(b.multiple_profiles), "--workers", str(b.workers),
    ]
    if b.use_fp8_context_fmha:
        cmd += ["--use_fp8_context_fmha", "enable"]
    return cmd


def plan_build(config: LlmBuildConfig, cache_dir: Path, examples_dir: str | None = None) -> BuildPlan:
    examples = examples_dir or os.environ.get("TRTLLM_EXAMPLES_DIR") or DEFAULT_EXAMPLES_DIR
    out = output_dir(config, cache_dir)
    checkpoint = out / "checkpoint"
    quantized = config.precision.quantization in ("fp8", "int4_awq")
    if config.flow == "engine":
        engine = out / "engine"
        plan = BuildPlan(config, out, checkpoint, engine)
        plan.commands.append(quantize_command(config, examples, checkpoint, export_hf=False) if quantized
                             else convert_command(config, examples, checkpoint))
        plan.commands.append(trtllm_build_command(config, checkpoint, engine))
        return plan
    if quantized:
        export = out / "hf-quantized"
        plan = BuildPlan(config, out, export, export)
        plan.commands.append(quantize_command(config, examples, export, export_hf=True))
        return plan
    return BuildPlan(config, out, config.model.hf_path, config.model.hf_path)


def manifest_for(plan: BuildPlan, detected: dict[str, Any] | None = None) -> dict[str, Any]:
    detected = detected or {}
    return {
        "format": 1,
        "preset": plan.config.name,
        "flow": plan.config.flow,
        "config_hash": config_hash(plan.config),
        "source_checkpoint": str(plan.config.model.hf_path),
        "source_checkpoint_hash": detected.get("source_checkpoint_hash", DETECTED_AT_BUILD),
        "engine_config_version": detected.get("engine_config_version",
                                              DETECTED_AT_BUILD if plan.config.flow == "engine" else None),
        "tensorrt_llm_version": detected.get("tensorrt_llm_version", DETECTED_AT_BUILD),
        "tensorrt_version": detected.get("tensorrt_version", DETECTED_AT_BUILD),
        "gpu_name": detected.get("gpu_name", DETECTED_AT_BUILD),
        "compute_capability": detected.get("compute_capability", DETECTED_AT_BUILD),
        "precision": plan.config.precision.model_dump(),
        "serve": {"model": str(plan.serve_dir), "tokenizer": str(plan.config.model.hf_path)},
        "commands": plan.shell(),
        "built_at": detected.get("built_at", DETECTED_AT_BUILD),
    }


def checkpoint_hash(directory: Path) -> str:
    """sha256 over every file of the source checkpoint (names and contents), with a progress bar."""
    from tqdm import tqdm

    files = sorted(p for p in directory.rglob("*") if p.is_file())
    digest = hashlib.sha256()
    with tqdm(total=sum(p.stat().st_size for p in files), unit="B", unit_scale=True, desc="hash checkpoint",
              file=sys.stderr) as bar:
        for path in files:
            digest.update(str(path.relative_to(directory)).encode())
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 22), b""):
                    digest.update(block)
                    bar.update(len(block))
    return digest.hexdigest()


def detect_environment() -> dict[str, Any]:
    try:
        import tensorrt_llm
    except ImportError as exc:
        raise LlmBuildError(
            "TensorRT-LLM is not importable here. Build inside NVIDIA's TensorRT-LLM release container on the "
            "target GPU (docs/gpu.md), or use --dry-run to print the commands."
        ) from exc
    import torch

    try:
        import tensorrt

        trt_version = str(tensorrt.__version__)
    except ImportError:
        trt_version = None
    if not torch.cuda.is_available():
        raise LlmBuildError("no CUDA GPU is visible; engines are built on the GPU they will run on")
    major, minor = torch.cuda.get_device_capability(0)
    return {"tensorrt_llm_version": str(tensorrt_llm.__version__), "tensorrt_version": trt_version,
            "gpu_name": torch.cuda.get_device_name(0), "compute_capability": f"{major}.{minor}"}


def run_build(plan: BuildPlan) -> Path:
    detected = detect_environment()
    hf_dir = plan.config.model.hf_path
    if not (hf_dir / "config.json").is_file():
        raise LlmBuildError(f"model.hf_dir {hf_dir} is not an HF checkpoint (no config.json)")
    if plan.config.flow == "engine" and shutil.which("trtllm-build") is None:
        raise LlmBuildError("trtllm-build is not on PATH")
    detected["source_checkpoint_hash"] = checkpoint_hash(hf_dir)
    plan.output_dir.mkdir(parents=True, exist_ok=True)
    for command in plan.commands:
        print(f"[build-llm] $ {shlex.join(command)}", file=sys.stderr, flush=True)
        result = subprocess.run(command)
        if result.returncode != 0:
            raise LlmBuildError(f"command failed with exit code {result.returncode}: {shlex.join(command)}")
    if plan.config.flow == "engine":
        engine_config = json.loads((plan.serve_dir / "config.json").read_text())
        detected["engine_config_version"] = engine_config.get("version")
    detected["built_at"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    plan.manifest_path.parent.mkdir(parents=True, exist_ok=True)
    plan.manifest_path.write_text(json.dumps(manifest_for(plan, detected), indent=2) + "\n")
    return plan.manifest_path


def dry_run(plan: BuildPlan) -> str:
    lines = [f"# build plan for {plan.config.name} ({plan.config.flow} flow)", ""]
    lines += plan.shell() or ["# nothing to build: tensorrt_llm.LLM loads the HF checkpoint at start-up"]
    lines += ["", f"# manifest that would be written to {plan.manifest_path}:", json.dumps(manifest_for(plan), indent=2)]
    return "\n".join(lines)
