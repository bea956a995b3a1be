"""TensorRT 10 engine for the router, built from the plain (unfused) ONNX export.

    python -m checkpoints build-router-trt build_configs/router/default.yaml

Written to the TensorRT 10 Python API as documented in shared/reference/trtllm.md section 8
(`create_network(0)`: explicit batch is implicit in 10.x; `set_memory_pool_limit` rather than the removed
`max_workspace_size`; `build_serialized_network` rather than the removed `build_engine`). TensorRT cannot be
installed on the development machines: this module is exercised by tests through `FakeTensorRT`, and
for real only by tests/gpu on a machine with TensorRT and a GPU.

Next to the plan goes `engine.json`: TensorRT version, GPU name and compute capability, precision and
shape profile. serve/router/tensorrt.py refuses to load a plan whose manifest does not match the running
GPU and TensorRT, and says how to rebuild.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from checkpoints.router_config import TensorRTConfig

ENGINE_FILE = "router.plan"
ENGINE_MANIFEST = "engine.json"
INPUTS = ("input_ids", "attention_mask")


class EngineBuildError(RuntimeError):
    pass


def gpu_identity() -> dict[str, str]:
    """Name and compute capability of GPU 0, read through torch (present wherever TensorRT serves)."""
    import torch

    if not torch.cuda.is_available():
        raise EngineBuildError("building a TensorRT engine needs a CUDA GPU; none is visible")
    major, minor = torch.cuda.get_device_capability(0)
    return {"gpu_name": torch.cuda.get_device_name(0), "compute_capability": f"{major}.{minor}"}


class EntropyCalibrator:
    """INT8 calibration batches for `IInt8EntropyCalibrator2` (deprecated in TensorRT 10.1 but present in 10.x;
    TensorRT 11 removes it: explicit Q/DQ quantisation is the long-term path)."""

    def __init__(self, trt: ModuleType, batches: list[dict[str, np.ndarray]], cache_file: Path) -> None:
        import torch

        base = trt.IInt8EntropyCalibrator2

        class _Calibrator(base):  # type: ignore[misc, valid-type]
            def __init__(inner) -> None:
                base.__init__(inner)
                inner.batches = iter(batches)
                inner.keep: list[Any] = []
                inner.batch_size = len(next(iter(batches[0].values())))

            def get_batch_size(inner) -> int:
                return int(inner.batch_size)

            def get_batch(inner, names: list[str]) -> list[int] | None:
                try:
                    batch = next(inner.batches)
                except StopIteration:
                    return None
                tensors = [torch.from_numpy(batch[n]).cuda() for n in names]
                inner.keep = tensors
                return [int(t.data_ptr()) for t in tensors]

            def read_calibration_cache(inner) -> bytes | None:
                return cache_file.read_bytes() if cache_file.is_file() else None

            def write_calibration_cache(inner, cache: Any) -> None:
                cache_file.write_bytes(bytes(cache))

        self.calibrator = _Calibrator()


def build_engine(
    onnx_path: Path,
    out_dir: Path,
    config: TensorRTConfig,
    calibration: list[dict[str, np.ndarray]] | None = None,
    trt: ModuleType | None = None,
    identity: dict[str, str] | None = None,
) -> Path:
    """ONNX -> serialized plan + engine.json in `out_dir`. `trt` and `identity` are injectable for tests."""
    if trt is None:
        try:
            import tensorrt as trt
        except ImportError as exc:
            raise EngineBuildError(
                "TensorRT is not installed. Build on the GPU host, e.g. in NVIDIA's TensorRT-LLM release "
                "container (docs/gpu.md); the ONNX router in the same directory serves meanwhile."
            ) from exc
    identity = identity or gpu_identity()
    logger = trt.Logger(trt.Logger.WARNING)
    builder = trt.Builder(logger)
    network = builder.create_network(0)  # networks are always explicit-batch in TensorRT 10
    parser = trt.OnnxParser(network, logger)
    if not parser.parse_from_file(str(onnx_path)):
        errors = "; ".join(str(parser.get_error(i)) for i in range(parser.num_errors))
        raise EngineBuildError(f"TensorRT could not parse {onnx_path}: {errors}")

    builder_config = builder.create_builder_config()
    builder_config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, config.workspace_mb << 20)
    builder_config.builder_optimization_level = config.builder_optimization_level
    precision = "fp32"
    if config.fp16:
        builder_config.set_flag(trt.BuilderFlag.FP16)
        precision = "fp16"
    if config.int8:
        if not calibration:
            raise EngineBuildError("tensorrt.int8 needs calibration batches (dev messages); none were given")
        builder_config.set_flag(trt.BuilderFlag.INT8)
        calibrator = EntropyCalibrator(trt, calibration, out_dir / "int8_calibration.cache")
        builder_config.int8_calibrator = calibrator.calibrator
        precision = "int8+fp16" if config.fp16 else "int8"

    profile = builder.create_optimization_profile()
    b, s = config.batch, config.sequence
    for name in INPUTS:
        profile.set_shape(name, (b.min, s.min), (b.opt, s.opt), (b.max, s.max))
    builder_config.add_optimization_profile(profile)

    cache_path = out_dir / config.timing_cache if config.timing_cache else None
    cache_bytes = cache_path.read_bytes() if cache_path and cache_path.is_file() else b""
    timing_cache = builder_config.create_timing_cache(cache_bytes)
    builder_config.set_timing_cache(timing_cache, ignore_mismatch=False)

    print(f"[build-router-trt] building {precision} engine for {identity['gpu_name']} "
          f"(sm {identity['compute_capability']}), TensorRT {trt.__version__} ...", file=sys.stderr, flush=True)
    plan = builder.build_serialized_network(network, builder_config)
    if plan is None:
        raise EngineBuildError("TensorRT returned no engine; see the TensorRT log above")
    out_dir.mkdir(parents=True, exist_ok=True)
    engine_path = out_dir / ENGINE_FILE
    engine_path.write_bytes(bytes(plan))
    if cache_path is not None:
        cache_path.write_bytes(bytes(builder_config.get_timing_cache().serialize()))
    manifest = {
        "engine": ENGINE_FILE,
        "engine_sha256": hashlib.sha256(engine_path.read_bytes()).hexdigest(),
        "onnx": onnx_path.name,
        "onnx_sha256": hashlib.sha256(onnx_path.read_bytes()).hexdigest(),
        "tensorrt_version": str(trt.__version__),
        **identity,
        "precision": precision,
        "profile": {"batch": b.model_dump(), "sequence": s.model_dump()},
        "built_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
    (out_dir / ENGINE_MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return engine_path
