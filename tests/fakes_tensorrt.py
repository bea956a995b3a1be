"""FakeTensorRT: a test double of the TensorRT 10 Python API surface the router uses, and FakeCudaMemory,
a stand-in for CUDA device memory and streams.

TensorRT and a GPU are not available on the development machines. The fake has only names the TensorRT 10
reference lists (tests/data/trtllm_api.json; tests/unit/router/test_tensorrt_with_fake.py checks that), so
code that calls anything else fails here. It behaves as the real library does where the router's code
depends on it:

* its "engine" runs the plain ONNX file with ONNX Runtime, so shapes, padding and batching are checked
  against real logits;
* `set_input_shape` returns False for a shape outside the optimisation profile (it does not raise);
* `execute_async_v3` reads and writes only device memory: addresses must come from FakeCudaMemory, whose
  addresses are opaque handles, not host pointers (a host pointer fails as it would on a GPU); it records the
  stream handle, 0 being the legacy default stream;
* there is no INT8 calibrator: the project does not build INT8 engines.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
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


class TensorIOMode:
    INPUT = "INPUT"
    OUTPUT = "OUTPUT"


class DataType:
    FLOAT = "FLOAT"
    HALF = "HALF"
    INT64 = "INT64"


@dataclass
class FakeDeviceArray:
    address: int
    array: np.ndarray

    def data_ptr(self) -> int:
        return self.address


_DEVICE: dict[int, FakeDeviceArray] = {}  # address -> allocation, as the driver knows device memory
_STREAMS: set[int] = {0}  # 0: the legacy default stream
_ADDRESSES = itertools.count(0x7F3A_0000_0000, 0x1_0000)
_STREAM_IDS = itertools.count(0x5A00_0001)


@dataclass
class FakeCudaMemory:
    """serve.router.tensorrt.DeviceBuffers over stand-in device memory, with one dedicated stream."""

    stream_handle: int = field(default_factory=lambda: next(_STREAM_IDS))
    allocations: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        _STREAMS.add(self.stream_handle)

    def _allocate(self, array: np.ndarray) -> FakeDeviceArray:
        buffer = FakeDeviceArray(next(_ADDRESSES), array)
        _DEVICE[buffer.address] = buffer
        self.allocations.append(buffer.address)
        return buffer

    def to_device(self, array: np.ndarray) -> FakeDeviceArray:
        return self._allocate(np.array(array, copy=True))

    def empty(self, shape: tuple[int, ...], dtype: str) -> FakeDeviceArray:
        return self._allocate(np.empty(shape, dtype=dtype))

    def to_host(self, buffer: FakeDeviceArray) -> np.ndarray:
        return buffer.array.astype(np.float32)


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
        self.streams: list[int] = []

    def set_input_shape(self, name: str, shape: tuple[int, ...]) -> bool:
        low, _, high = self.engine.get_tensor_profile_shape(name, 0)
        if len(shape) != len(low) or not all(lo <= s <= hi for lo, s, hi in zip(low, shape, high)):
            return False  # TensorRT logs the error and returns False; the shape is not set
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
        if stream_handle not in _STREAMS:
            raise RuntimeError(f"invalid CUDA stream handle {stream_handle:#x}")
        buffers = {}
        for name in ("input_ids", "attention_mask", "logits"):
            address = self.addresses.get(name)
            if address not in _DEVICE:
                raise RuntimeError(f"an illegal memory access was encountered: {name} at {address!r} is not device "
                                   "memory")
            buffers[name] = _DEVICE[address]
        for name in ("input_ids", "attention_mask"):
            if buffers[name].array.shape != self.shapes[name]:
                raise RuntimeError(f"{name}: buffer shape {buffers[name].array.shape} != input shape {self.shapes[name]}")
        logits = self.engine.session.logits(buffers["input_ids"].array, buffers["attention_mask"].array)
        out = buffers["logits"].array
        if out.shape != logits.shape:
            raise RuntimeError(f"logits buffer {out.shape} does not fit the output {logits.shape}")
        out[...] = logits
        self.streams.append(stream_handle)
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


# Every name the fake offers, for the conformance check against the reference.
FAKE_SURFACE = {
    "module": ["Logger", "Builder", "OnnxParser", "Runtime", "MemoryPoolType", "BuilderFlag", "TensorIOMode",
               "DataType"],
    "members": ["create_network", "create_builder_config", "create_optimization_profile",
                "build_serialized_network", "parse_from_file", "num_errors", "get_error", "set_shape",
                "set_memory_pool_limit", "set_flag", "add_optimization_profile", "create_timing_cache",
                "set_timing_cache", "get_timing_cache", "serialize", "builder_optimization_level",
                "deserialize_cuda_engine", "create_execution_context", "num_io_tensors",
                "get_tensor_name", "get_tensor_mode", "get_tensor_dtype", "get_tensor_profile_shape",
                "set_input_shape", "get_tensor_shape", "set_tensor_address", "execute_async_v3",
                "WORKSPACE", "FP16", "INPUT", "OUTPUT", "FLOAT", "HALF", "INT64", "WARNING"],
}
