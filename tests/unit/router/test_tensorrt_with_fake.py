"""The TensorRT router path, through the FakeTensorRT10 / FakeTensorRT11 doubles and FakeCudaMemory (TensorRT
and a GPU are not available here; tests/gpu runs it for real)."""

from __future__ import annotations

import ast
import importlib.util
import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

from checkpoints.router_config import ConfigError, TensorRTConfig, load_router_config
from checkpoints.router_export import PLAIN_ONNX
from checkpoints.router_trt import EngineBuildError, build_engine
from serve.router.encoding import TextEncoder
from serve.router.onnx import OnnxSession
from serve.router.tensorrt import EngineMismatch, TensorRTSession, check_engine_manifest
from tests.conftest import REPO, lifespan
from tests.fakes_tensorrt import (
    FAKE_SURFACE,
    FAKE_VERSION_10,
    FAKE_VERSION_11,
    FakeCudaMemory,
    FakeTensorRT10,
    FakeTensorRT11,
    enum_members,
)
from tests.fakes_trtllm import API

IDENTITY = {"gpu_name": "NVIDIA H200 (fake)", "compute_capability": "9.0"}
GENERATIONS = [pytest.param(FakeTensorRT10, id="tensorrt10"), pytest.param(FakeTensorRT11, id="tensorrt11")]
# Enum members read in NVIDIA/TensorRT python/src/infer/pyCore.cpp at v10.14 and v11.1 that the team's
# reference (a 10.13 transcription) does not name.
READ_UPSTREAM = {"PREFER_JIT_PYTHON_PLUGINS", "PREFER_AOT_PYTHON_PLUGINS"}
# Absent from the TensorRT 11 bindings (reference trtllm.md 8.3 for 11.4; pyCore.cpp at v11.0 and v11.1).
GONE_IN_11 = {"FP16", "BF16", "INT8", "FP8", "EXPLICIT_BATCH"}
REMOVED_OR_IMPLICIT_INT8 = {
    "max_workspace_size",
    "build_engine",
    "execute_async_v2",
    "get_binding_shape",
    "num_bindings",
    "set_binding_shape",
    "binding_is_input",
    "EXPLICIT_BATCH",
    "int8_calibrator",
    "IInt8EntropyCalibrator2",
    "INT8",
}


def test_doubles_offer_only_documented_names() -> None:
    documented = set(API["tensorrt"]["identifiers"])
    shared = FAKE_SURFACE["module"] + FAKE_SURFACE["members"]
    for trt in (FakeTensorRT10, FakeTensorRT11):
        missing = [n for n in shared + sorted(enum_members(trt)) if n not in documented | READ_UPSTREAM]
        assert not missing, f"{trt.__name__}: not in the TensorRT reference: {missing}"
        assert all(hasattr(trt, n) for n in FAKE_SURFACE["module"])
    assert {"max_workspace_size", "build_engine", "execute_async_v2", "get_binding_shape"} <= set(
        API["tensorrt"]["removed_in_10"]
    )


def test_the_11_double_has_no_weak_typing_and_raises_attribute_error_like_the_bindings() -> None:
    assert {"FP16", "INT8", "BF16", "FP8"} <= set(FakeTensorRT10.BuilderFlag.__members__)
    assert {"EXPLICIT_BATCH", "STRONGLY_TYPED"} <= set(
        FakeTensorRT10.NetworkDefinitionCreationFlag.__members__
    )
    assert not GONE_IN_11 & enum_members(FakeTensorRT11)
    with pytest.raises(AttributeError, match="BuilderFlag.* has no attribute 'FP16'"):
        FakeTensorRT11.BuilderFlag.FP16  # noqa: B018 - the attribute access is what is tested
    with pytest.raises(AttributeError):
        FakeTensorRT11.NetworkDefinitionCreationFlag.EXPLICIT_BATCH  # noqa: B018
    # renumbered in 11: STRONGLY_TYPED 1 -> 0 (deprecated, ignored); bit 1 is PREFER_JIT_PYTHON_PLUGINS there
    assert int(FakeTensorRT10.NetworkDefinitionCreationFlag.STRONGLY_TYPED) == 1
    assert int(FakeTensorRT11.NetworkDefinitionCreationFlag.STRONGLY_TYPED) == 0
    assert int(FakeTensorRT11.NetworkDefinitionCreationFlag.PREFER_JIT_PYTHON_PLUGINS) == 1


def test_the_code_uses_no_removed_api_nor_implicit_int8() -> None:
    for path in (REPO / "checkpoints/router_trt.py", REPO / "serve/router/tensorrt.py"):
        used = {
            node.attr for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Attribute)
        }
        assert not used & REMOVED_OR_IMPLICIT_INT8, f"{path.name} uses {used & REMOVED_OR_IMPLICIT_INT8}"


@pytest.fixture
def engine_dir(router_dir: Path, tmp_path: Path) -> Path:
    (tmp_path / PLAIN_ONNX).symlink_to(router_dir / PLAIN_ONNX)
    (tmp_path / "tokenizer.json").symlink_to(router_dir / "tokenizer.json")
    return tmp_path


def _plan(engine_dir: Path) -> dict[str, Any]:
    return json.loads((engine_dir / "router.plan").read_bytes())


def _manifest(engine_dir: Path) -> dict[str, Any]:
    return json.loads((engine_dir / "engine.json").read_text())


def test_on_tensorrt_10_the_builder_keeps_the_weakly_typed_fp16_path(engine_dir: Path) -> None:
    plan = build_engine(
        engine_dir / PLAIN_ONNX, engine_dir, TensorRTConfig(), trt=FakeTensorRT10(), identity=IDENTITY
    )
    manifest, body = _manifest(engine_dir), _plan(engine_dir)
    assert plan.is_file() and manifest["engine"] == plan.name
    assert manifest["tensorrt_version"] == FAKE_VERSION_10 and manifest["compute_capability"] == "9.0"
    assert (manifest["precision"], manifest["network"], manifest["onnx"]) == (
        "fp16",
        "weakly_typed",
        PLAIN_ONNX,
    )
    assert "source_onnx" not in manifest
    assert manifest["profile"]["sequence"] == {"min": 16, "opt": 64, "max": 128}
    assert body["network"] == "weakly_typed" and body["network_flags"] == [] and body["flags"] == ["FP16"]
    assert body["precision"] == "fp16" and Path(body["onnx"]).name == PLAIN_ONNX
    assert body["profile"]["input_ids"] == [[1, 16], [8, 64], [32, 128]]
    assert (engine_dir / "timing.cache").is_file()  # timing cache saved for the next build
    assert not list(engine_dir.glob("*.fp16.onnx"))


def _fp16_onnx_is_half_but_layernorm_and_io(path: Path) -> None:
    model = onnx.load(str(path))
    types = {i.name: i.data_type for i in model.graph.initializer}
    assert sum(t == onnx.TensorProto.FLOAT16 for t in types.values()) > 50  # the weights are FP16
    for node in model.graph.node:
        if node.op_type == "LayerNormalization":  # kept in FP32: its variance overflows FP16
            assert all(
                types.get(name, onnx.TensorProto.FLOAT) == onnx.TensorProto.FLOAT for name in node.input[1:]
            )
    assert {i.name: i.type.tensor_type.elem_type for i in model.graph.input} == {
        "input_ids": onnx.TensorProto.INT64,
        "attention_mask": onnx.TensorProto.INT64,
    }
    outputs = {o.name: o.type.tensor_type.elem_type for o in model.graph.output}
    assert outputs["logits"] == onnx.TensorProto.FLOAT


def test_on_tensorrt_11_the_builder_builds_strongly_typed_from_an_fp16_onnx(engine_dir: Path) -> None:
    trt = FakeTensorRT11()
    build_engine(engine_dir / PLAIN_ONNX, engine_dir, TensorRTConfig(), trt=trt, identity=IDENTITY)
    manifest, body = _manifest(engine_dir), _plan(engine_dir)
    assert manifest["tensorrt_version"] == FAKE_VERSION_11
    assert (manifest["precision"], manifest["network"]) == ("fp16", "strongly_typed")
    assert manifest["onnx"] == "model.plain.fp16.onnx" and manifest["source_onnx"] == PLAIN_ONNX
    assert body["network"] == "strongly_typed" and body["precision"] == "fp16"  # the types come from the ONNX
    assert body["flags"] == [] and body["precision_flags"] == []
    # no creation flag: 11 ignores STRONGLY_TYPED (now 0), and 1 << 1 would ask for JIT Python plugins there
    assert body["network_flags"] == []
    _fp16_onnx_is_half_but_layernorm_and_io(engine_dir / manifest["onnx"])
    session = TensorRTSession(
        engine_dir, device="cuda", trt=trt, compute_capability="9.0", buffers=FakeCudaMemory()
    )
    batch = TextEncoder(engine_dir / "tokenizer.json", 128).encode(
        ["where is my parcel", "我的快递到哪了", "I was charged twice for my broadband bill this month"]
    )
    expected = OnnxSession(engine_dir / PLAIN_ONNX).logits(batch.input_ids, batch.attention_mask)
    got = session.logits(batch.input_ids, batch.attention_mask)
    assert np.allclose(got, expected, atol=0.02) and (got.argmax(1) == expected.argmax(1)).all()


def test_on_tensorrt_10_the_strongly_typed_path_sets_strongly_typed(engine_dir: Path) -> None:
    build_engine(
        engine_dir / PLAIN_ONNX,
        engine_dir,
        TensorRTConfig(),
        trt=FakeTensorRT10(),
        identity=IDENTITY,
        strongly_typed=True,
    )
    body = _plan(engine_dir)
    assert body["network"] == "strongly_typed" and body["network_flags"] == ["STRONGLY_TYPED"]
    assert body["precision_flags"] == [] and body["precision"] == "fp16"
    assert _manifest(engine_dir)["onnx"] == "model.plain.fp16.onnx"


def test_tensorrt_11_has_no_weakly_typed_build(engine_dir: Path) -> None:
    with pytest.raises(
        EngineBuildError, match=r"TensorRT 11.1.0.106 has no weakly typed networks .*build strongly"
    ):
        build_engine(
            engine_dir / PLAIN_ONNX,
            engine_dir,
            TensorRTConfig(),
            trt=FakeTensorRT11(),
            identity=IDENTITY,
            strongly_typed=False,
        )


@pytest.mark.parametrize("trt", GENERATIONS)
def test_an_fp32_engine_parses_the_fp32_onnx(engine_dir: Path, trt: Any) -> None:
    build_engine(
        engine_dir / PLAIN_ONNX, engine_dir, TensorRTConfig(fp16=False), trt=trt(), identity=IDENTITY
    )
    body, manifest = _plan(engine_dir), _manifest(engine_dir)
    assert body["precision"] == manifest["precision"] == "fp32" and body["flags"] == []
    assert manifest["onnx"] == PLAIN_ONNX and body["network_flags"] == []


@pytest.mark.parametrize("trt", GENERATIONS)
def test_builder_refuses_the_onnx_runtime_fused_graph(router_dir: Path, tmp_path: Path, trt: Any) -> None:
    with pytest.raises(EngineBuildError, match="unsupported operator"):
        build_engine(router_dir / "model.onnx", tmp_path, TensorRTConfig(), trt=trt(), identity=IDENTITY)


@pytest.mark.parametrize("trt", GENERATIONS)
def test_a_quantized_onnx_is_refused_with_what_int8_needs(router_dir: Path, tmp_path: Path, trt: Any) -> None:
    with pytest.raises(
        EngineBuildError,
        match=r"model.int8.onnx is already quantized \(.*MatMulInteger.*\).*"
        r"explicit quantization.*QuantizeLinear/DequantizeLinear.*removed in 11",
    ):
        build_engine(router_dir / "model.int8.onnx", tmp_path, TensorRTConfig(), trt=trt(), identity=IDENTITY)
    assert not (tmp_path / "router.plan").exists()


def test_an_int8_tensorrt_router_is_refused_with_the_reason(tmp_path: Path) -> None:
    config = tmp_path / "router.yaml"
    text = (REPO / "build_configs/router/default.yaml").read_text()
    config.write_text(
        text.replace("tensorrt:\n  fp16: true\n  int8: false", "tensorrt:\n  fp16: true\n  int8: true")
    )
    assert config.read_text() != text
    with pytest.raises(
        ConfigError,
        match=r"tensorrt.int8: .*INT8 TensorRT router engines are not supported: "
        r".*deprecated since 10.1 and removed in 11; use export.int8",
    ):
        load_router_config(config)


@pytest.mark.skipif(importlib.util.find_spec("tensorrt") is not None, reason="TensorRT is installed here")
def test_builder_without_tensorrt_says_where_to_build(engine_dir: Path) -> None:
    with pytest.raises(EngineBuildError, match="not installed.*container"):
        build_engine(engine_dir / PLAIN_ONNX, engine_dir, TensorRTConfig(), identity=IDENTITY)


def _session(engine_dir: Path, trt: Any, memory: FakeCudaMemory | None = None) -> TensorRTSession:
    build_engine(engine_dir / PLAIN_ONNX, engine_dir, TensorRTConfig(), trt=trt, identity=IDENTITY)
    return TensorRTSession(
        engine_dir, device="cuda:0", trt=trt, compute_capability="9.0", buffers=memory or FakeCudaMemory()
    )


@pytest.mark.parametrize("trt", GENERATIONS)
def test_session_pads_short_inputs_and_splits_big_batches_without_changing_logits(
    engine_dir: Path, trt: Any
) -> None:
    memory = FakeCudaMemory()
    session = _session(engine_dir, trt(), memory)
    assert (session.min_seq, session.max_batch, session.max_seq) == (16, 32, 128)
    encoder = TextEncoder(engine_dir / "tokenizer.json", 128)
    texts = ["hi", "我的快递到哪了"] + [f"order {i} has not arrived yet, where is it?" for i in range(38)]
    batch = encoder.encode(texts)
    assert batch.input_ids.shape[1] < 16 and len(texts) > 32
    expected = OnnxSession(engine_dir / PLAIN_ONNX).logits(batch.input_ids, batch.attention_mask)
    got = session.logits(batch.input_ids, batch.attention_mask)
    assert np.allclose(got, expected, atol=1e-4 if trt is FakeTensorRT10 else 0.02)
    assert session.context.executions == 2  # 40 rows in batches of at most 32
    # every execution on the session's own stream, never the legacy default stream (handle 0)
    assert session.context.streams == [memory.stream_handle] * 2 and memory.stream_handle != 0


@pytest.mark.parametrize("trt", GENERATIONS)
def test_a_shape_outside_the_profile_is_reported_with_the_shape(engine_dir: Path, trt: Any) -> None:
    session = _session(engine_dir, trt())
    ids = np.ones((33, 16), dtype=np.int64)  # one row over the profile's maximum batch of 32
    with pytest.raises(
        ValueError, match=r"refused input 'input_ids' of shape \(33, 16\): .*\(1, 16\) to \(32, 128\)"
    ):
        session._run(ids, np.ones_like(ids))
    assert session.context.executions == 0


def test_tensorrt_runs_on_cuda_only_and_reads_device_memory_only(engine_dir: Path) -> None:
    trt = FakeTensorRT10()
    build_engine(engine_dir / PLAIN_ONNX, engine_dir, TensorRTConfig(), trt=trt, identity=IDENTITY)
    with pytest.raises(ValueError, match="CUDA devices only, not 'cpu'"):
        TensorRTSession(engine_dir, device="cpu", trt=trt, compute_capability="9.0", buffers=FakeCudaMemory())
    session = TensorRTSession(
        engine_dir, device="cuda", trt=trt, compute_capability="9.0", buffers=FakeCudaMemory()
    )
    ids = np.ones((2, 16), dtype=np.int64)
    context = session.context
    assert context.set_input_shape("input_ids", ids.shape) and context.set_input_shape(
        "attention_mask", ids.shape
    )
    host = np.zeros((2, 25), dtype=np.float32)
    for name, array in (("input_ids", ids), ("attention_mask", ids), ("logits", host)):
        context.set_tensor_address(name, array.ctypes.data)  # host pointers, as a CPU tensor would give
    with pytest.raises(RuntimeError, match="illegal memory access"):
        context.execute_async_v3(session.buffers.stream_handle)


def test_the_double_detects_two_threads_inside_one_context(engine_dir: Path) -> None:
    context = _session(engine_dir, FakeTensorRT10()).context
    assert context.set_input_shape("input_ids", (2, 16))  # this thread's call is under way
    caught: list[BaseException] = []

    def other() -> None:
        try:
            context.set_input_shape("input_ids", (4, 16))
        except RuntimeError as exc:
            caught.append(exc)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert context.overlaps == 1 and "not thread-safe" in str(caught[0])
    assert context.shapes["input_ids"] == (2, 16)


@pytest.mark.parametrize("trt", GENERATIONS)
def test_concurrent_scoring_never_overlaps_inside_the_context(engine_dir: Path, trt: Any) -> None:
    session = _session(engine_dir, trt())
    session.engine.execute_s = 0.002  # the GPU's time: an unguarded second thread would come in meanwhile
    batch = TextEncoder(engine_dir / "tokenizer.json", 128).encode(["where is my parcel", "refund please"])
    expected = session.logits(batch.input_ids, batch.attention_mask)
    start = threading.Barrier(2)
    errors: list[BaseException] = []
    results: list[np.ndarray] = []

    def score() -> None:
        start.wait()
        try:
            for _ in range(15):
                results.append(session.logits(batch.input_ids, batch.attention_mask))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=score) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors[0]
    assert session.context.overlaps == 0 and len(results) == 30
    assert all(np.array_equal(r, expected) for r in results)
    assert len(set(session.context.execute_threads[1:])) == 2  # both threads did score


def test_session_refuses_an_engine_built_elsewhere(engine_dir: Path) -> None:
    trt = FakeTensorRT10()
    build_engine(engine_dir / PLAIN_ONNX, engine_dir, TensorRTConfig(), trt=trt, identity=IDENTITY)
    with pytest.raises(EngineMismatch, match=r"compute capability 9.0 .*this GPU is 8.9.*build-router-trt"):
        TensorRTSession(
            engine_dir, device="cuda", trt=trt, compute_capability="8.9", buffers=FakeCudaMemory()
        )
    with pytest.raises(EngineMismatch, match=r"TensorRT 10.14.1.48 built it, this process runs 11.1.0.106"):
        TensorRTSession(
            engine_dir,
            device="cuda",
            trt=FakeTensorRT11(),
            compute_capability="9.0",
            buffers=FakeCudaMemory(),
        )


def test_manifest_check_names_the_tensorrt_version_that_differs() -> None:
    with pytest.raises(EngineMismatch, match=r"TensorRT 10.13.3.9 built it, this process runs 10.14.1"):
        check_engine_manifest(
            {"tensorrt_version": "10.13.3.9", "compute_capability": "9.0"}, "10.14.1", "9.0"
        )
    check_engine_manifest({"tensorrt_version": "10.14.1", "compute_capability": "9.0"}, "10.14.1", "9.0")


async def test_ready_scores_the_tensorrt_router_off_the_event_loop(
    engine_dir: Path, router_dir: Path, settings: Any, fake_generator: Any
) -> None:
    import httpx

    from serve.app import create_app
    from serve.router.base import Thresholds
    from serve.router.model import Calibration, ModelRouter

    memory = FakeCudaMemory()
    session = _session(engine_dir, FakeTensorRT10(), memory)
    labels = tuple(json.loads((router_dir / "router.json").read_text())["labels"])
    router = ModelRouter(
        "tensorrt",
        session,
        TextEncoder(engine_dir / "tokenizer.json", 128),
        labels,
        Calibration(),
        Thresholds(),
    )
    app = create_app(settings, generator=fake_generator, router=router)
    async with lifespan(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            loop_thread = threading.get_ident()
            executed, synced = len(session.context.execute_threads), len(memory.sync_threads)
            ready = await client.get("/ready")
    assert ready.json()["router"] == {"chain": ["tensorrt"], "open_breakers": [], "healthy": True}
    checks = session.context.execute_threads[executed:]
    assert checks and loop_thread not in checks  # the check ran the engine, on a worker thread
    assert (
        memory.sync_threads[synced:] and loop_thread not in memory.sync_threads[synced:]
    )  # so did the GPU sync


def test_the_extras_pin_the_tensorrt_of_tensorrt_llm_1_2_1_which_the_10_double_models() -> None:
    import tomllib
    from packaging.requirements import Requirement

    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    pins = {
        req.name: req.specifier for group in ("tensorrt", "trtllm") for req in map(Requirement, extras[group])
    }
    assert str(pins["tensorrt"]) == "~=10.14.1" and str(pins["tensorrt-llm"]) == "==1.2.1"
    assert API["tensorrt_llm_version"] == "1.2.1"
    assert FAKE_VERSION_10 in pins["tensorrt"] and FAKE_VERSION_11 not in pins["tensorrt"]
