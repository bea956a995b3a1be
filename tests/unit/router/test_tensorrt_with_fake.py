"""The TensorRT router path, through FakeTensorRT and FakeCudaMemory (TensorRT and a GPU are not available here;
tests/gpu runs it for real)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from checkpoints.router_config import ConfigError, TensorRTConfig, load_router_config
from checkpoints.router_export import PLAIN_ONNX
from checkpoints.router_trt import EngineBuildError, build_engine
from serve.router.encoding import TextEncoder
from serve.router.onnx import OnnxSession
from serve.router.tensorrt import EngineMismatch, TensorRTSession, check_engine_manifest
from tests.conftest import REPO
from tests.fakes_tensorrt import FAKE_SURFACE, FAKE_VERSION, FakeCudaMemory, FakeTensorRT
from tests.fakes_trtllm import API

IDENTITY = {"gpu_name": "NVIDIA H200 (fake)", "compute_capability": "9.0"}


def test_fake_offers_only_names_documented_for_tensorrt_10() -> None:
    documented = set(API["tensorrt"]["identifiers"])
    missing = [n for n in FAKE_SURFACE["module"] + FAKE_SURFACE["members"] if n not in documented]
    assert not missing, f"not in the TensorRT 10 reference: {missing}"
    removed = API["tensorrt"]["removed_in_10"]
    assert {"max_workspace_size", "build_engine", "execute_async_v2", "get_binding_shape"} <= set(removed)
    source = (REPO / "checkpoints" / "router_trt.py").read_text() + (REPO / "serve/router/tensorrt.py").read_text()
    for name in ("max_workspace_size =", ".build_engine(", "execute_async_v2", "get_binding_shape",
                 "num_bindings", "EXPLICIT_BATCH", ".int8_calibrator =", "trt.IInt8EntropyCalibrator2", "BuilderFlag.INT8"):
        assert name not in source  # removed in 10.x, or deprecated implicit INT8


@pytest.fixture
def engine_dir(router_dir: Path, tmp_path: Path) -> Path:
    (tmp_path / PLAIN_ONNX).symlink_to(router_dir / PLAIN_ONNX)
    (tmp_path / "tokenizer.json").symlink_to(router_dir / "tokenizer.json")
    return tmp_path


def test_builder_writes_plan_and_manifest_with_profile_and_precision(engine_dir: Path) -> None:
    trt = FakeTensorRT()
    config = TensorRTConfig()
    plan = build_engine(engine_dir / PLAIN_ONNX, engine_dir, config, trt=trt, identity=IDENTITY)
    manifest = json.loads((engine_dir / "engine.json").read_text())
    assert plan.is_file() and manifest["engine"] == plan.name
    assert manifest["tensorrt_version"] == FAKE_VERSION and manifest["compute_capability"] == "9.0"
    assert manifest["precision"] == "fp16"
    assert manifest["profile"]["sequence"] == {"min": 16, "opt": 64, "max": 128}
    body = json.loads(plan.read_bytes())
    assert body["flags"] == ["FP16"]
    assert body["profile"]["input_ids"] == [[1, 16], [8, 64], [32, 128]]
    assert (engine_dir / "timing.cache").is_file()  # timing cache saved for the next build


def test_builder_refuses_the_onnx_runtime_fused_graph(router_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(EngineBuildError, match="unsupported operator"):
        build_engine(router_dir / "model.onnx", tmp_path, TensorRTConfig(), trt=FakeTensorRT(), identity=IDENTITY)


def test_an_int8_tensorrt_router_is_refused_with_the_reason(tmp_path: Path) -> None:
    config = tmp_path / "router.yaml"
    text = (REPO / "build_configs/router/default.yaml").read_text()
    config.write_text(text.replace("tensorrt:\n  fp16: true\n  int8: false", "tensorrt:\n  fp16: true\n  int8: true"))
    assert config.read_text() != text
    with pytest.raises(ConfigError, match=r"tensorrt.int8: .*INT8 TensorRT router engines are not supported: "
                                          r".*deprecated since 10.1 and removed in 11; use export.int8"):
        load_router_config(config)


@pytest.mark.skipif(importlib.util.find_spec("tensorrt") is not None, reason="TensorRT is installed here")
def test_builder_without_tensorrt_says_where_to_build(engine_dir: Path) -> None:
    with pytest.raises(EngineBuildError, match="not installed.*container"):
        build_engine(engine_dir / PLAIN_ONNX, engine_dir, TensorRTConfig(), identity=IDENTITY)


def test_session_pads_short_inputs_and_splits_big_batches_without_changing_logits(engine_dir: Path) -> None:
    trt = FakeTensorRT()
    build_engine(engine_dir / PLAIN_ONNX, engine_dir, TensorRTConfig(), trt=trt, identity=IDENTITY)
    memory = FakeCudaMemory()
    session = TensorRTSession(engine_dir, device="cuda:0", trt=trt, compute_capability="9.0", buffers=memory)
    assert (session.min_seq, session.max_batch, session.max_seq) == (16, 32, 128)
    encoder = TextEncoder(engine_dir / "tokenizer.json", 128)
    texts = ["hi", "我的快递到哪了"] + [f"order {i} has not arrived yet, where is it?" for i in range(38)]
    batch = encoder.encode(texts)
    assert batch.input_ids.shape[1] < 16 and len(texts) > 32
    expected = OnnxSession(engine_dir / PLAIN_ONNX).logits(batch.input_ids, batch.attention_mask)
    got = session.logits(batch.input_ids, batch.attention_mask)
    assert np.allclose(got, expected, atol=1e-4)
    assert session.context.executions == 2  # 40 rows in batches of at most 32
    # every execution on the session's own stream, never the legacy default stream (handle 0)
    assert session.context.streams == [memory.stream_handle] * 2 and memory.stream_handle != 0


def test_a_shape_outside_the_profile_is_reported_with_the_shape(engine_dir: Path) -> None:
    trt = FakeTensorRT()
    build_engine(engine_dir / PLAIN_ONNX, engine_dir, TensorRTConfig(), trt=trt, identity=IDENTITY)
    session = TensorRTSession(engine_dir, device="cuda", trt=trt, compute_capability="9.0", buffers=FakeCudaMemory())
    ids = np.ones((33, 16), dtype=np.int64)  # one row over the profile's maximum batch of 32
    with pytest.raises(ValueError, match=r"refused input 'input_ids' of shape \(33, 16\): .*\(1, 16\) to \(32, 128\)"):
        session._run(ids, np.ones_like(ids))
    assert session.context.executions == 0


def test_tensorrt_runs_on_cuda_only_and_reads_device_memory_only(engine_dir: Path) -> None:
    trt = FakeTensorRT()
    build_engine(engine_dir / PLAIN_ONNX, engine_dir, TensorRTConfig(), trt=trt, identity=IDENTITY)
    with pytest.raises(ValueError, match="CUDA devices only, not 'cpu'"):
        TensorRTSession(engine_dir, device="cpu", trt=trt, compute_capability="9.0", buffers=FakeCudaMemory())
    session = TensorRTSession(engine_dir, device="cuda", trt=trt, compute_capability="9.0", buffers=FakeCudaMemory())
    ids = np.ones((2, 16), dtype=np.int64)
    context = session.context
    assert context.set_input_shape("input_ids", ids.shape) and context.set_input_shape("attention_mask", ids.shape)
    host = np.zeros((2, 25), dtype=np.float32)
    for name, array in (("input_ids", ids), ("attention_mask", ids), ("logits", host)):
        context.set_tensor_address(name, array.ctypes.data)  # host pointers, as a CPU tensor would give
    with pytest.raises(RuntimeError, match="illegal memory access"):
        context.execute_async_v3(session.buffers.stream_handle)


def test_session_refuses_an_engine_built_elsewhere(engine_dir: Path) -> None:
    trt = FakeTensorRT()
    build_engine(engine_dir / PLAIN_ONNX, engine_dir, TensorRTConfig(), trt=trt, identity=IDENTITY)
    with pytest.raises(EngineMismatch, match=r"compute capability 9.0 .*this GPU is 8.9.*build-router-trt"):
        TensorRTSession(engine_dir, device="cuda", trt=trt, compute_capability="8.9", buffers=FakeCudaMemory())


def test_manifest_check_names_the_tensorrt_version_that_differs() -> None:
    with pytest.raises(EngineMismatch, match=r"TensorRT 10.13.3.9 built it, this process runs 10.14.1"):
        check_engine_manifest({"tensorrt_version": "10.13.3.9", "compute_capability": "9.0"}, "10.14.1", "9.0")
    check_engine_manifest({"tensorrt_version": "10.14.1", "compute_capability": "9.0"}, "10.14.1", "9.0")
