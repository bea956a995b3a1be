"""What a GPU build leaves behind, as both the builder (checkpoints/) and the server (serve/) read it.

The build tools import this module; the server never imports the build tools. It holds:

* the GPU table (compute capability and memory per supported GPU) and the compute-capability lookup of
  the running GPU;
* where a TensorRT-LLM preset's outputs are installed (`EngineLayout`);
* the typed manifest written beside them (`EngineManifest`, file `csreply-engine.json`);
* `EngineMismatch` and the check that refuses an engine built for another GPU or library version.

Nothing here imports torch, tensorrt or tensorrt_llm at module level.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

ENGINE_MANIFEST = "csreply-engine.json"
MANIFEST_FORMAT = 2
DETECTED_AT_BUILD = "<detected at build time>"

# TensorRT-LLM 1.x compiles its kernels for SM 80, 86, 89, 90, 100 and 120 only
# (cpp/cmake/modules/cuda_configuration.cmake); Turing (7.5) and Volta (7.0) are not among them.
MIN_COMPUTE_CAPABILITY = 8.0

# name -> (compute capability, memory GiB of the smallest variant we plan for). "any" is the smoke-test
# target: the oldest architecture TensorRT-LLM 1.x supports (Ampere) with the least memory we plan for.
GPUS: dict[str, tuple[float, int]] = {
    "B200": (10.0, 180),
    "H200": (9.0, 141),
    "H100": (9.0, 80),
    "L40S": (8.9, 48),
    "L4": (8.9, 24),
    "A100": (8.0, 40),
    "A10G": (8.6, 24),
    "A10": (8.6, 24),
    "any": (8.0, 16),
}
# Named so that a preset naming one gets a reason rather than "unknown GPU".
UNSUPPORTED_GPUS: dict[str, float] = {"T4": 7.5, "V100": 7.0, "P100": 6.0, "P4": 6.1, "RTX6000": 7.5}


class EngineMismatch(RuntimeError):
    """A built engine (TensorRT-LLM or TensorRT router plan) does not match this GPU or these libraries."""


def gpu_identity(device: int = 0) -> dict[str, str]:
    """Name and compute capability ("major.minor") of a visible CUDA GPU, read through torch."""
    import torch

    if not torch.cuda.is_available():
        raise EngineMismatch("no CUDA GPU is visible")
    major, minor = torch.cuda.get_device_capability(device)
    return {"gpu_name": torch.cuda.get_device_name(device), "compute_capability": f"{major}.{minor}"}


def compute_capability(device: int = 0) -> str:
    return gpu_identity(device)["compute_capability"]


@dataclass(frozen=True)
class EngineLayout:
    """Install paths of one TensorRT-LLM preset under the cache directory (or its `output_dir`)."""

    output_dir: Path
    flow: Literal["engine", "pytorch"]
    checkpoint_dir: Path  # convert/quantize output (engine flow), the HF dir or the HF export (PyTorch flow)
    serve_dir: Path  # what the LLM class loads: the engine dir, the HF dir or the quantised HF export

    @classmethod
    def of(
        cls,
        name: str,
        flow: Literal["engine", "pytorch"],
        hf_path: Path,
        quantized: bool,
        output_dir: str | None,
        cache_dir: Path,
    ) -> EngineLayout:
        out = Path(output_dir).expanduser() if output_dir else cache_dir / "engines" / name
        if flow == "engine":
            return cls(out, flow, out / "checkpoint", out / "engine")
        if quantized:
            return cls(out, flow, out / "hf-quantized", out / "hf-quantized")
        return cls(out, flow, hf_path, hf_path)

    @property
    def manifest_path(self) -> Path:
        """Beside the engine (engine flow); in the output directory (PyTorch flow)."""
        return (self.serve_dir if self.flow == "engine" else self.output_dir) / ENGINE_MANIFEST


class ServePaths(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str
    tokenizer: str


class EngineManifest(BaseModel):
    """csreply-engine.json. A dry run fills the detected fields with DETECTED_AT_BUILD."""

    model_config = ConfigDict(extra="forbid")

    format: int = MANIFEST_FORMAT
    preset: str
    flow: Literal["engine", "pytorch"]
    config_hash: str
    source_checkpoint: str
    source_checkpoint_hash: str = DETECTED_AT_BUILD
    engine_config_version: str | None = None  # engine flow: the engine config.json "version"
    tensorrt_llm_version: str = DETECTED_AT_BUILD
    tensorrt_version: str | None = DETECTED_AT_BUILD
    gpu_name: str = DETECTED_AT_BUILD
    compute_capability: str = DETECTED_AT_BUILD
    tp_size: int = 1
    pp_size: int = 1
    precision: dict[str, Any]
    serve: ServePaths
    commands: list[str] = []
    built_at: str = DETECTED_AT_BUILD

    @classmethod
    def read(cls, path: Path) -> EngineManifest:
        try:
            return cls.model_validate_json(path.read_text())
        except ValueError as exc:
            raise EngineMismatch(
                f"{path} is not a manifest this version can read ({exc}); rebuild the engine"
            ) from exc

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.model_dump_json(indent=2) + "\n")


def check_engine(
    manifest: EngineManifest,
    trtllm_version: str,
    trt_version: str | None,
    capability: str,
    engine_config_version: str | None,
    visible_gpus: int | None = None,
) -> None:
    """Raise EngineMismatch naming each difference and the command that rebuilds the engine."""
    problems = []
    if manifest.tensorrt_llm_version != trtllm_version:
        problems.append(
            f"TensorRT-LLM {manifest.tensorrt_llm_version} built it, this process has {trtllm_version}"
        )
    if manifest.tensorrt_version and trt_version and manifest.tensorrt_version != trt_version:
        problems.append(f"TensorRT {manifest.tensorrt_version} built it, this process has {trt_version}")
    if manifest.compute_capability != capability:
        problems.append(
            f"it was built on {manifest.gpu_name} (compute capability {manifest.compute_capability}), "
            f"this GPU is compute capability {capability}"
        )
    if engine_config_version is not None and manifest.engine_config_version not in (
        None,
        engine_config_version,
    ):
        problems.append(
            f"its config.json now says version {engine_config_version}, the manifest "
            f"{manifest.engine_config_version}: the engine directory was replaced"
        )
    world = manifest.tp_size * manifest.pp_size
    if visible_gpus is not None and visible_gpus < world:
        problems.append(
            f"it runs on {world} GPUs (tp {manifest.tp_size} x pp {manifest.pp_size}), "
            f"this host shows {visible_gpus}"
        )
    if problems:
        raise EngineMismatch(
            "TensorRT-LLM engine does not match this machine: "
            + "; ".join(problems)
            + f". Rebuild it here: python -m checkpoints build-llm build_configs/llm/{manifest.preset}.yaml"
        )
