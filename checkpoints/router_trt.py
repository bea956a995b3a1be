"""TensorRT engine for the router, built from the plain (unfused) ONNX export.

    python -m checkpoints build-router-trt build_configs/router/default.yaml

Two TensorRT generations, two ways to get an FP16 engine:

* TensorRT 10.x (10.14 is what TensorRT-LLM 1.2.1 pins, `tensorrt~=10.14.1`): a weakly typed network from the
  FP32 ONNX with `BuilderFlag.FP16`, TensorRT choosing the precision per layer. The flag is deprecated since
  10.12 but works throughout 10.x. Written against the 10.14 bindings (NVIDIA/TensorRT
  `python/src/infer/pyCore.cpp` at v10.14).
* TensorRT 11 (what a bare `pip install tensorrt` resolves to today): the bindings have no `BuilderFlag.FP16`
  (nor BF16, INT8, FP8) and every network is strongly typed: each tensor has the type the ONNX gives it. So
  the FP32 ONNX is first converted to FP16 (`onnxruntime.transformers.float16`, shipped with ONNX Runtime, a
  project dependency), with LayerNormalization kept in FP32 (its variance overflows FP16 after attention) and
  the inputs and outputs left as they are, and the network is built from that file. Written against the 11.1
  bindings (pyCore.cpp and `include/NvInfer.h` at v11.1): `NetworkDefinitionCreationFlag.STRONGLY_TYPED` is
  still there but deprecated, ignored, and renumbered (0, it was 1 in 10.x), so 11 gets no creation flag at
  all. The same path runs on 10.x with `strongly_typed=True`, where it needs `STRONGLY_TYPED` (tests/gpu
  builds it on whatever TensorRT the GPU host has).

The rest is the same on both: `create_network` without EXPLICIT_BATCH (networks are always explicit-batch
since 10.0; the name is gone in 11), `set_memory_pool_limit` rather than the removed `max_workspace_size`,
`build_serialized_network` rather than the removed `build_engine`, one optimisation profile, a timing cache.
TensorRT cannot be installed on the development machines: this module is exercised by tests through the
`FakeTensorRT10` and `FakeTensorRT11` doubles (tests/fakes_tensorrt.py), and for real only by tests/gpu on a
machine with TensorRT and a GPU.

No INT8. Implicit INT8 (`BuilderFlag.INT8` with a calibrator, `config.int8_calibrator`) is deprecated since
TensorRT 10.1 and gone in 11; INT8 on TensorRT 11 means explicit quantization, an ONNX with
QuantizeLinear/DequantizeLinear nodes (for example from NVIDIA ModelOpt's ONNX post-training quantization)
built strongly typed. This project does not produce such a file: checkpoints/router_config.py refuses
`tensorrt.int8`, the router's INT8 path is ONNX Runtime's on CPU (`export.int8`), and an already quantized
ONNX given to this builder is refused with that explanation.

Next to the plan goes `engine.json`: TensorRT version, GPU name and compute capability, precision, network
typing, the ONNX parsed and shape profile. serve/router/tensorrt.py refuses to load a plan whose manifest does
not match the running GPU and TensorRT, and says how to rebuild.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from checkpoints.router_config import TensorRTConfig
from serve.engine_artifacts import EngineMismatch
from serve.engine_artifacts import gpu_identity as _gpu_identity
from serve.router.tensorrt import ENGINE_FILE, ENGINE_MANIFEST

INPUTS = ("input_ids", "attention_mask")
FP16_ONNX_SUFFIX = ".fp16.onnx"  # model.plain.onnx -> model.plain.fp16.onnx, beside the plan
# Kept in FP32 in the FP16 ONNX: the variance of a LayerNormalization after attention overflows FP16.
FP32_OPS = ("LayerNormalization",)
# Operators of an already quantized graph: ONNX Runtime's dynamic INT8 (model.int8.onnx) or a Q/DQ export.
QUANTIZED_OPS = frozenset(
    {
        "QuantizeLinear",
        "DequantizeLinear",
        "DynamicQuantizeLinear",
        "MatMulInteger",
        "ConvInteger",
        "QLinearMatMul",
        "QLinearConv",
        "QAttention",
    }
)


class EngineBuildError(RuntimeError):
    pass


def gpu_identity() -> dict[str, str]:
    """Name and compute capability of GPU 0 (the engine is built for exactly that architecture)."""
    try:
        return _gpu_identity(0)
    except EngineMismatch as exc:
        raise EngineBuildError(f"building a TensorRT engine needs a CUDA GPU: {exc}") from exc


def has_weak_typing(trt: Any) -> bool:
    """TensorRT 10.x: `BuilderFlag.FP16` exists (the bindings raise AttributeError for it on 11)."""
    return hasattr(trt.BuilderFlag, "FP16")


def network_flags(trt: Any, strongly_typed: bool) -> int:
    """`create_network` flags. 10.x strongly typed: the STRONGLY_TYPED bit (its value read from the enum, 1
    there). 11: none, every network is strongly typed and the flag (0 there) is deprecated and ignored."""
    if strongly_typed and has_weak_typing(trt):
        return 1 << int(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED)
    return 0


def refuse_quantized(onnx_path: Path) -> None:
    import onnx

    model = onnx.load(str(onnx_path), load_external_data=False)
    found = sorted({n.op_type for n in model.graph.node} & QUANTIZED_OPS)
    if found:
        raise EngineBuildError(
            f"{onnx_path.name} is already quantized ({', '.join(found)}): the router's TensorRT engine is "
            "FP16 or FP32 from model.plain.onnx. INT8 with TensorRT means explicit quantization (a "
            "QuantizeLinear/DequantizeLinear ONNX, e.g. from NVIDIA ModelOpt, built strongly typed; implicit "
            "INT8 calibration is deprecated since TensorRT 10.1 and removed in 11), which this project does "
            "not build; INT8 routing is ONNX Runtime's (export.int8)"
        )


def fp16_onnx(onnx_path: Path, out_dir: Path) -> Path:
    """The FP32 ONNX converted to FP16 for a strongly typed network: weights and activations in FP16 except
    FP32_OPS, graph inputs and outputs keep their types (int64 ids and mask in, FP32 logits out)."""
    import onnx

    try:
        from onnxruntime.transformers.float16 import DEFAULT_OP_BLOCK_LIST, convert_float_to_float16
    except ImportError as exc:
        raise EngineBuildError(
            "a strongly typed FP16 engine (TensorRT 11) needs the FP16 ONNX, converted with "
            "onnxruntime.transformers.float16: install onnxruntime (or onnxruntime-gpu) on the build host"
        ) from exc
    model = convert_float_to_float16(
        onnx.load(str(onnx_path)), keep_io_types=True, op_block_list=[*DEFAULT_OP_BLOCK_LIST, *FP32_OPS]
    )
    target = out_dir / (onnx_path.name.removesuffix(".onnx") + FP16_ONNX_SUFFIX)
    partial = target.with_name(target.name + ".partial")
    onnx.save(model, str(partial))
    os.replace(partial, target)
    return target


def build_engine(
    onnx_path: Path,
    out_dir: Path,
    config: TensorRTConfig,
    trt: Any | None = None,  # the tensorrt module, or a test double with its names
    identity: dict[str, str] | None = None,
    strongly_typed: bool | None = None,
) -> Path:
    """ONNX -> serialized plan + engine.json in `out_dir`. `strongly_typed`: None picks by the bindings
    (weakly typed with BuilderFlag.FP16 on 10.x, strongly typed where that flag is gone); True builds strongly
    typed on 10.x too. `trt` and `identity` are injectable for tests."""
    if trt is None:
        try:
            import tensorrt
        except ImportError as exc:
            raise EngineBuildError(
                "TensorRT is not installed. Build on the GPU host, e.g. in NVIDIA's TensorRT-LLM release "
                "container (docs/gpu.md); the ONNX router in the same directory serves meanwhile."
            ) from exc
        trt = tensorrt
    weak_typing = has_weak_typing(trt)
    if strongly_typed is None:
        strongly_typed = not weak_typing
    elif not strongly_typed and not weak_typing:
        raise EngineBuildError(
            f"TensorRT {trt.__version__} has no weakly typed networks (no BuilderFlag.FP16: removed in "
            "TensorRT 11); build strongly typed"
        )
    refuse_quantized(onnx_path)
    identity = identity or gpu_identity()
    out_dir.mkdir(parents=True, exist_ok=True)
    parsed = fp16_onnx(onnx_path, out_dir) if strongly_typed and config.fp16 else onnx_path
    precision = "fp16" if config.fp16 else "fp32"

    logger = trt.Logger(trt.Logger.WARNING)
    builder = trt.Builder(logger)
    network = builder.create_network(network_flags(trt, strongly_typed))
    parser = trt.OnnxParser(network, logger)
    if not parser.parse_from_file(str(parsed)):
        errors = "; ".join(str(parser.get_error(i)) for i in range(parser.num_errors))
        raise EngineBuildError(f"TensorRT could not parse {parsed}: {errors}")

    builder_config = builder.create_builder_config()
    builder_config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, config.workspace_mb << 20)
    builder_config.builder_optimization_level = config.builder_optimization_level
    if config.fp16 and not strongly_typed:
        builder_config.set_flag(trt.BuilderFlag.FP16)  # 10.x only; strongly typed, the ONNX carries the types

    profile = builder.create_optimization_profile()
    b, s = config.batch, config.sequence
    for name in INPUTS:
        profile.set_shape(name, (b.min, s.min), (b.opt, s.opt), (b.max, s.max))
    builder_config.add_optimization_profile(profile)

    cache_path = out_dir / config.timing_cache if config.timing_cache else None
    cache_bytes = cache_path.read_bytes() if cache_path and cache_path.is_file() else b""
    timing_cache = builder_config.create_timing_cache(cache_bytes)
    builder_config.set_timing_cache(timing_cache, ignore_mismatch=False)

    typing = "strongly_typed" if strongly_typed else "weakly_typed"
    print(
        f"[build-router-trt] building {precision} engine ({typing.replace('_', ' ')}, {parsed.name}) for "
        f"{identity['gpu_name']} (sm {identity['compute_capability']}), TensorRT {trt.__version__} ...",
        file=sys.stderr,
        flush=True,
    )
    plan = builder.build_serialized_network(network, builder_config)
    if plan is None:
        raise EngineBuildError("TensorRT returned no engine; see the TensorRT log above")
    engine_path = out_dir / ENGINE_FILE
    engine_path.write_bytes(bytes(plan))
    if cache_path is not None:
        cache_path.write_bytes(bytes(builder_config.get_timing_cache().serialize()))
    manifest = {
        "engine": ENGINE_FILE,
        "engine_sha256": _sha256(engine_path),
        "onnx": parsed.name,
        "onnx_sha256": _sha256(parsed),
        **(
            {"source_onnx": onnx_path.name, "source_onnx_sha256": _sha256(onnx_path)}
            if parsed != onnx_path
            else {}
        ),
        "tensorrt_version": str(trt.__version__),
        **identity,
        "precision": precision,
        "network": typing,
        "profile": {"batch": b.model_dump(), "sequence": s.model_dump()},
        "built_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    (out_dir / ENGINE_MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return engine_path


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
