"""FakeTensorRT: a test double of the TensorRT 10 Python API surface the router uses.

TensorRT cannot be installed on the development machines. This fake has only the names documented in
shared/reference/trtllm.md section 8 (tests/unit/test_router_tensorrt.py checks that), so code that calls
anything else fails here. Its "engine" runs the plain ONNX file with ONNX Runtime and enforces the
optimisation profile, so shapes, padding and batching logic are checked against real logits.
"""

from __future__ import annotations

import ctypes
import json
from pathlib import Path
from typing import Any

import numpy as np

FAKE_VERSION = "10.13.3.9"


class Logger:
    WARNING = 2
    INFO = 3

    def __init__(self, severity: int = 2) -> None:
        self.severity = severity


class MemoryPoolType:
    WORKSPACE = "WORKSPACE"


class BuilderFlag:
    FP16 = "FP16"
    INT8 = "INT8"


class TensorIOMode:
    INPUT = "INPUT"
    OUTPUT = "OUTPUT"


class DataType:
    FLOAT = "FLOAT"
    HALF = "HALF"
    INT64 = "INT64"


class IInt8EntropyCalibrator2:
    def __init__(self) -> None:
        pass


class _Network:
    def __init__(self, flags: int) -> None:
        self.flags = flags
        self.onnx_path: str | None = None


class OnnxParser:
    def __init__(self, network: _Network, logger: Logger) -> None:
        self.network = network
        self._errors: list[str] = []

    def parse_from_file(self, path: str) -> bool:
        import onnx

        try:
            model = onnx.load(path, load_external_data=False)
        except Exception as exc:  # noqa: BLE001
            self._errors = [f"cannot read {path}: {exc}"]
            return False
        unsupported = sorted({n.op_type for n in model.graph.node if n.domain not in ("", "ai.onnx")})
        if unsupported:  # TensorRT has no importer for ONNX Runtime's contrib ops (Attention, SkipLayerNorm ...)
            self._errors = [f"unsupported operator {op}" for op in unsupported]
            return False
        self.network.onnx_path = path
        return True

    @property
    def num_errors(self) -> int:
        return len(self._errors)

    def get_error(self, index: int) -> str:
        return self._errors[index]


class _Profile:
    def __init__(self) -> None:
        self.shapes: dict[str, tuple[tuple[int, ...], ...]] = {}

    def set_shape(self, name: str, min: tuple, opt: tuple, max: tuple) -> None:  # noqa: A002 - TensorRT's names
        if not all(a <= b <= c for a, b, c in zip(min, opt, max)):
            raise ValueError(f"profile for {name} is not ordered min <= opt <= max")
        self.shapes[name] = (tuple(min), tuple(opt), tuple(max))


class _TimingCache:
    def __init__(self, data: bytes) -> None:
        self.data = data or b"fake-timing-cache"

    def serialize(self) -> bytes:
        return self.data


class _BuilderConfig:
    def __init__(self) -> None:
        self.pools: dict[str, int] = {}
        self.flags: set[str] = set()
        self.profiles: list[_Profile] = []
        self.builder_optimization_level = 3
        self.int8_calibrator: Any = None
        self._cache: _TimingCache | None = None

    def set_memory_pool_limit(self, pool: str, size: int) -> None:
        self.pools[pool] = size

    def set_flag(self, flag: str) -> None:
        self.flags.add(flag)

    def add_optimization_profile(self, profile: _Profile) -> int:
        self.profiles.append(profile)
        return len(self.profiles) - 1

    def create_timing_cache(self, data: bytes) -> _TimingCache:
        return _TimingCache(bytes(data))

    def set_timing_cache(self, cache: _TimingCache, ignore_mismatch: bool) -> bool:
        self._cache = cache
        return True

    def get_timing_cache(self) -> _TimingCache:
        assert self._cache is not None
        return self._cache


class Builder:
    def __init__(self, logger: Logger) -> None:
        self.logger = logger
        self.last_config: _BuilderConfig | None = None

    def create_network(self, flags: int = 0) -> _Network:
        return _Network(flags)

    def create_builder_config(self) -> _BuilderConfig:
        self.last_config = _BuilderConfig()
        return self.last_config

    def create_optimization_profile(self) -> _Profile:
        return _Profile()

    def build_serialized_network(self, network: _Network, config: _BuilderConfig) -> bytes | None:
        if network.onnx_path is None or not config.profiles:
            return None
        plan = {"fake_plan": True, "onnx": network.onnx_path, "flags": sorted(config.flags),
                "profile": {k: v for k, v in config.profiles[0].shapes.items()}}
        return json.dumps(plan).encode()


class _Engine:
    def __init__(self, plan: dict[str, Any]) -> None:
        from serve.router.onnx import OnnxSession

        self.plan = plan
        self.session = OnnxSession(Path(plan["onnx"]))
        self._names = ["input_ids", "attention_mask", "logits"]
        self.contexts_created = 0

    @property
    def num_io_tensors(self) -> int:
        return len(self._names)

    def get_tensor_name(self, index: int) -> str:
        return self._names[index]

    def get_tensor_mode(self, name: str) -> str:
        return TensorIOMode.OUTPUT if name == "logits" else TensorIOMode.INPUT

    def get_tensor_dtype(self, name: str) -> str:
        return DataType.FLOAT if name == "logits" else DataType.INT64

    def get_tensor_profile_shape(self, name: str, profile_index: int) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(s) for s in self.plan["profile"][name])

    def create_execution_context(self) -> _Context:
        self.contexts_created += 1
        return _Context(self)


class _Context:
    def __init__(self, engine: _Engine) -> None:
        self.engine = engine
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.addresses: dict[str, int] = {}
        self.executions = 0

    def set_input_shape(self, name: str, shape: tuple[int, ...]) -> bool:
        low, _, high = self.engine.get_tensor_profile_shape(name, 0)
        if not all(lo <= s <= hi for lo, s, hi in zip(low, shape, high)):
            raise RuntimeError(f"shape {shape} of {name} is outside the optimisation profile {low}..{high}")
        self.shapes[name] = tuple(shape)
        return True

    def get_tensor_shape(self, name: str) -> tuple[int, ...]:
        if name == "logits":
            return (self.shapes["input_ids"][0], 25)
        return self.shapes[name]

    def set_tensor_address(self, name: str, address: int) -> bool:
        self.addresses[name] = address
        return True

    def execute_async_v3(self, stream_handle: int) -> bool:
        def read(name: str) -> np.ndarray:
            count = int(np.prod(self.shapes[name]))
            buffer = (ctypes.c_int64 * count).from_address(self.addresses[name])
            return np.ctypeslib.as_array(buffer).reshape(self.shapes[name]).copy()

        logits = self.engine.session.logits(read("input_ids"), read("attention_mask")).astype(np.float32)
        out = (ctypes.c_float * logits.size).from_address(self.addresses["logits"])
        np.ctypeslib.as_array(out)[:] = logits.ravel()
        self.executions += 1
        return True


class Runtime:
    def __init__(self, logger: Logger) -> None:
        self.logger = logger
        self.engines: list[_Engine] = []

    def deserialize_cuda_engine(self, plan: bytes) -> _Engine | None:
        try:
            data = json.loads(plan)
        except (ValueError, UnicodeDecodeError):
            return None
        engine = _Engine(data)
        self.engines.append(engine)
        return engine


class FakeTensorRT:
    """Module-shaped namespace: pass an instance where the code takes `trt`."""

    __version__ = FAKE_VERSION
    Logger = Logger
    Builder = Builder
    OnnxParser = OnnxParser
    Runtime = Runtime
    MemoryPoolType = MemoryPoolType
    BuilderFlag = BuilderFlag
    TensorIOMode = TensorIOMode
    DataType = DataType
    IInt8EntropyCalibrator2 = IInt8EntropyCalibrator2


# Every name the fake offers, for the conformance check against the reference.
FAKE_SURFACE = {
    "module": ["Logger", "Builder", "OnnxParser", "Runtime", "MemoryPoolType", "BuilderFlag", "TensorIOMode",
               "DataType", "IInt8EntropyCalibrator2"],
    "members": ["create_network", "create_builder_config", "create_optimization_profile",
                "build_serialized_network", "parse_from_file", "num_errors", "get_error", "set_shape",
                "set_memory_pool_limit", "set_flag", "add_optimization_profile", "create_timing_cache",
                "set_timing_cache", "get_timing_cache", "serialize", "builder_optimization_level",
                "int8_calibrator", "deserialize_cuda_engine", "create_execution_context", "num_io_tensors",
                "get_tensor_name", "get_tensor_mode", "get_tensor_dtype", "get_tensor_profile_shape",
                "set_input_shape", "get_tensor_shape", "set_tensor_address", "execute_async_v3",
                "WORKSPACE", "FP16", "INT8", "INPUT", "OUTPUT", "FLOAT", "HALF", "INT64", "WARNING"],
}
