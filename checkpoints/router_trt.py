"""TensorRT 10 engine for the router, built from the plain (unfused) ONNX export.

    python -m checkpoints build-router-trt build_configs/router/default.yaml

Written to the TensorRT 10 Python API (`create_network(0)`: explicit batch is implicit in 10.x;
`set_memory_pool_limit` rather than the removed `max_workspace_size`; `build_serialized_network` rather than
the removed `build_engine`); the names are checked against tests/data/trtllm_api.json. TensorRT cannot be
installed on the development machines: this module is exercised by tests through `FakeTensorRT`, and for
real only by tests/gpu on a machine with TensorRT and a GPU.

Precision is FP16 (or FP32). There is no INT8 build: implicit INT8 calibration (`IInt8EntropyCalibrator2`,
`config.int8_calibrator`) is deprecated since TensorRT 10.1 and gone in 11, and the router's INT8 path is
ONNX Runtime's on CPU; checkpoints/router_config.py refuses `tensorrt.int8` and says so.

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


from checkpoints.router_config import TensorRTConfig
from serve.engine_artifacts import EngineMismatch
from serve.engine_artifacts import gpu_identity as _gpu_identity
from serve.router.tensorrt import ENGINE_FILE, ENGINE_MANIFEST

INPUTS = ("input_ids", "attention_mask")


class EngineBuildError(RuntimeError):
    pass


def gpu_identity() -> dict[str, str]:
    """Name and compute capability of GPU 0 (the engine is built for exactly that architecture)."""
    try:
        return _gpu_identity(0)
    except EngineMismatch as exc:
        raise EngineBuildError(f"building a TensorRT engine needs a CUDA GPU: {exc}") from exc


def build_engine(
    onnx_path: Path,
    out_dir: Path,
    config: TensorRTConfig,
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
