"""Build a TensorRT-LLM deployment from a preset: HF checkpoint -> TensorRT-LLM checkpoint -> engine.

    python -m checkpoints build-llm build_configs/llm/<preset>.yaml [--dry-run] [--examples-dir DIR]

Engine flow (`flow: engine`): `convert_checkpoint.py` (BF16/FP16, INT8 weight-only) or ModelOpt's
`quantize.py` (FP8, INT4-AWQ, calibrated on the preset's local `calib_dataset_dir`) writes a TensorRT-LLM
checkpoint split into `tp_size x pp_size` ranks, `trtllm-build` compiles one engine per rank (1.x flags:
`--kv_cache_type paged`; the older `--paged_kv_cache` is still accepted but deprecated and ignored), and
`csreply-engine.json` (serve/engine_artifacts.EngineManifest) goes beside the engine: preset and config
hash, source checkpoint hash, engine `config.json` version, GPU name and compute capability, parallel
sizes, TensorRT-LLM and TensorRT versions. serve/generation/trtllm.py refuses an engine whose manifest does
not match the running GPU and libraries.

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

from serve.engine_artifacts import (
    DETECTED_AT_BUILD,
    EngineLayout,
    EngineManifest,
    EngineMismatch,
    gpu_identity,
)
from serve.llm_preset import LlmBuildConfig

# Where NVIDIA's TensorRT-LLM release container keeps the examples (assumption; override with
# --examples-dir or TRTLLM_EXAMPLES_DIR).
DEFAULT_EXAMPLES_DIR = "/app/tensorrt_llm/examples"


class LlmBuildError(RuntimeError):
    pass


@dataclass
class BuildPlan:
    config: LlmBuildConfig
    layout: EngineLayout
    commands: list[list[str]] = field(default_factory=list)

    def shell(self) -> list[str]:
        return [shlex.join(c) for c in self.commands]

    @property
    def output_dir(self) -> Path:
        return self.layout.output_dir

    @property
    def checkpoint_dir(self) -> Path:
        return self.layout.checkpoint_dir

    @property
    def serve_dir(self) -> Path:
        return self.layout.serve_dir

    @property
    def manifest_path(self) -> Path:
        return self.layout.manifest_path


def config_hash(config: LlmBuildConfig) -> str:
    return hashlib.sha256(config.model_dump_json().encode()).hexdigest()[:16]


def _switch(value: bool) -> str:
    return "enable" if value else "disable"


def quantize_command(config: LlmBuildConfig, examples: str, out: Path, export_hf: bool) -> list[str]:
    p, b = config.precision, config.build
    cmd = [
        "python",
        f"{examples}/quantization/quantize.py",
        "--model_dir",
        str(config.model.hf_path),
        "--dtype",
        p.dtype,
        "--qformat",
        p.quantization,
        "--output_dir",
        str(out),
        "--tp_size",
        str(b.tp_size),
        "--pp_size",
        str(b.pp_size),
        "--calib_size",
        "512",
    ]
    if p.calib_path is not None:  # the default, cnn_dailymail, is downloaded from the hub
        cmd += ["--calib_dataset", str(p.calib_path)]
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
        "python",
        f"{examples}/models/core/{config.model.family}/convert_checkpoint.py",
        "--model_dir",
        str(config.model.hf_path),
        "--output_dir",
        str(out),
        "--dtype",
        p.dtype,
        "--tp_size",
        str(b.tp_size),
        "--pp_size",
        str(b.pp_size),
    ]
    if p.quantization == "int8_weight_only":
        cmd += ["--use_weight_only", "--weight_only_precision", "int8"]
    return cmd


def trtllm_build_command(config: LlmBuildConfig, checkpoint: Path, engine: Path) -> list[str]:
    b = config.build
    cmd = [
        "trtllm-build",
        "--checkpoint_dir",
        str(checkpoint),
        "--output_dir",
        str(engine),
        "--max_batch_size",
        str(b.max_batch_size),
        "--max_input_len",
        str(b.max_input_len),
        "--max_seq_len",
        str(b.max_seq_len),
        "--max_num_tokens",
        str(b.max_num_tokens),
        "--kv_cache_type",
        b.kv_cache_type,
        "--tokens_per_block",
        str(b.tokens_per_block),
        "--use_paged_context_fmha",
        _switch(b.use_paged_context_fmha),
        "--remove_input_padding",
        _switch(b.remove_input_padding),
        "--context_fmha",
        _switch(b.context_fmha),
        "--gpt_attention_plugin",
        b.gpt_attention_plugin,
        "--gemm_plugin",
        b.gemm_plugin,
        "--multiple_profiles",
        _switch(b.multiple_profiles),
        "--workers",
        str(b.workers),
        # Explicit both ways: PluginConfig.use_fp8_context_fmha defaults to True upstream.
        "--use_fp8_context_fmha",
        _switch(b.use_fp8_context_fmha),
    ]
    return cmd


def plan_build(config: LlmBuildConfig, cache_dir: Path, examples_dir: str | None = None) -> BuildPlan:
    examples = examples_dir or os.environ.get("TRTLLM_EXAMPLES_DIR") or DEFAULT_EXAMPLES_DIR
    plan = BuildPlan(config, config.layout(cache_dir))
    quantized = config.precision.quantization in ("fp8", "int4_awq")
    if config.flow == "engine":
        plan.commands.append(
            quantize_command(config, examples, plan.checkpoint_dir, export_hf=False)
            if quantized
            else convert_command(config, examples, plan.checkpoint_dir)
        )
        plan.commands.append(trtllm_build_command(config, plan.checkpoint_dir, plan.serve_dir))
    elif quantized:
        plan.commands.append(quantize_command(config, examples, plan.serve_dir, export_hf=True))
    return plan


def manifest_for(plan: BuildPlan, detected: dict[str, Any] | None = None) -> EngineManifest:
    detected = detected or {}
    config = plan.config
    return EngineManifest(
        preset=config.name,
        flow=config.flow,
        config_hash=config_hash(config),
        source_checkpoint=str(config.model.hf_path),
        engine_config_version=detected.get(
            "engine_config_version", DETECTED_AT_BUILD if config.flow == "engine" else None
        ),
        tp_size=config.build.tp_size,
        pp_size=config.build.pp_size,
        precision=config.precision.model_dump(),
        serve={"model": str(plan.serve_dir), "tokenizer": str(config.model.hf_path)},
        commands=plan.shell(),
        **{k: v for k, v in detected.items() if k != "engine_config_version"},
    )


def checkpoint_hash(directory: Path) -> str:
    """sha256 over every file of the source checkpoint (names and contents), with a progress bar."""
    from tqdm import tqdm

    files = sorted(p for p in directory.rglob("*") if p.is_file())
    digest = hashlib.sha256()
    with tqdm(
        total=sum(p.stat().st_size for p in files),
        unit="B",
        unit_scale=True,
        desc="hash checkpoint",
        file=sys.stderr,
    ) as bar:
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
            "TensorRT-LLM is not importable here. Build inside NVIDIA's TensorRT-LLM release container on "
            "the target GPU (docs/gpu.md), or use --dry-run to print the commands."
        ) from exc
    try:
        import tensorrt

        trt_version: str | None = str(tensorrt.__version__)
    except ImportError:
        trt_version = None
    try:
        identity = gpu_identity(0)
    except EngineMismatch as exc:
        raise LlmBuildError(f"{exc}; engines are built on the GPU they will run on") from exc
    return {
        "tensorrt_llm_version": str(tensorrt_llm.__version__),
        "tensorrt_version": trt_version,
        **identity,
    }


# A flag that is in some TensorRT-LLM releases' quantize.py and not in others, and what to do without it.
QUANTIZE_FLAG_ALTERNATIVES = {
    "--export_format": "without it quantize.py writes a TensorRT-LLM checkpoint, which tensorrt_llm.LLM (the "
    "PyTorch flow) cannot load: quantize to an HF checkpoint with NVIDIA ModelOpt's "
    "examples/llm_ptq/hf_ptq.py instead, or use an engine-flow preset",
}


def check_quantize_flags(plan: BuildPlan, tensorrt_llm_version: str | None = None) -> None:
    """Refuse, before any work, a quantize.py command whose flags the installed script does not define.

    The flags follow the 1.2-era sources in tests/data/trtllm_api.json, but examples/quantization/quantize.py
    differs between releases: `--export_format` is defined at upstream commit 059c97c1 and not at c8c6df08
    (both 1.x-era; the v1.2.1 tag itself could not be read), and argparse would only say so after the source
    checkpoint was hashed. The script defines its flags as string literals, so reading it is enough."""
    for command in plan.commands:
        if len(command) < 2 or Path(command[1]).name != "quantize.py":
            continue
        script = Path(command[1])
        if not script.is_file():
            raise LlmBuildError(
                f"{script} does not exist: point --examples-dir (or TRTLLM_EXAMPLES_DIR) at the "
                "TensorRT-LLM examples of the installed version"
            )
        text = script.read_text()
        for flag in (part for part in command[2:] if part.startswith("--")):
            if f'"{flag}"' not in text and f"'{flag}'" not in text:
                version = (
                    f"TensorRT-LLM {tensorrt_llm_version}" if tensorrt_llm_version else "this TensorRT-LLM"
                )
                hint = QUANTIZE_FLAG_ALTERNATIVES.get(
                    flag, "the preset needs a TensorRT-LLM whose quantize.py has it"
                )
                raise LlmBuildError(f"{script} ({version}) has no {flag}; {hint}")


def run_build(plan: BuildPlan) -> Path:
    detected = detect_environment()
    hf_dir = plan.config.model.hf_path
    if not (hf_dir / "config.json").is_file():
        raise LlmBuildError(f"model.hf_dir {hf_dir} is not an HF checkpoint (no config.json)")
    if plan.config.flow == "engine" and shutil.which("trtllm-build") is None:
        raise LlmBuildError("trtllm-build is not on PATH")
    calib = plan.config.precision.calib_path
    if calib is not None and not calib.is_dir():
        raise LlmBuildError(
            f"precision.calib_dataset_dir {calib} is not a directory (docs/gpu.md says what goes in it)"
        )
    # the preset's own mistakes first, then the installed TensorRT-LLM's script, before hashing the checkpoint
    check_quantize_flags(plan, detected.get("tensorrt_llm_version"))
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
    detected["built_at"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    manifest_for(plan, detected).write(plan.manifest_path)
    return plan.manifest_path


def dry_run(plan: BuildPlan) -> str:
    lines = [f"# build plan for {plan.config.name} ({plan.config.flow} flow)", ""]
    lines += plan.shell() or ["# nothing to build: tensorrt_llm.LLM loads the HF checkpoint at start-up"]
    lines += [
        "",
        f"# manifest that would be written to {plan.manifest_path}:",
        manifest_for(plan).model_dump_json(indent=2),
    ]
    return "\n".join(lines)
