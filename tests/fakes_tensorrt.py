"""Test doubles of the TensorRT Python bindings the router uses, one per API generation, and FakeCudaMemory, a
stand-in for CUDA device memory and streams. TensorRT and a GPU are not available on the development machines.

* `FakeTensorRT10`: TensorRT 10.14 (TensorRT-LLM 1.2.1 pins `tensorrt~=10.14.1`). Weak typing is still there:
  `BuilderFlag.FP16` / `INT8` / `BF16` / `FP8` (deprecated since 10.12, still working), and
  `NetworkDefinitionCreationFlag` has `EXPLICIT_BATCH = 0` (ignored) and `STRONGLY_TYPED = 1`.
* `FakeTensorRT11`: TensorRT 11 (what a plain `pip install tensorrt` resolves to today). Every network is
  strongly typed: `BuilderFlag` has no FP16, BF16, INT8 or FP8 member, `EXPLICIT_BATCH` is gone and
  `STRONGLY_TYPED` is kept at the value 0, deprecated and ignored; `IBuilderConfig.int8_calibrator` is gone.
  Asking for a removed name raises AttributeError, as the real (pybind11) bindings do.

The names and enum values are those of NVIDIA/TensorRT `python/src/infer/pyCore.cpp` and `include/NvInfer.h`
at the tags v10.14 and v11.1 (read in the upstream repository), and agree with the binding facts in the team's
reference (trtllm.md section 8: the 10.13 and 11.4 bindings). The doubles offer only those names
(tests/unit/router/test_tensorrt_with_fake.py checks them), so code that calls anything else fails here.
They behave as the real library does where the router's code depends on it:

* the "engine" runs the ONNX file the parser read with ONNX Runtime, so shapes, padding, batching and the FP16
  ONNX of the strongly typed path are checked against real logits;
* the plan records how the network was typed and what precision that gives: weakly typed (10.x only), FP16
  when `BuilderFlag.FP16` is set; strongly typed, the precision of the ONNX's own weights;
* `set_input_shape` returns False for a shape outside the optimisation profile (it does not raise);
* `execute_async_v3` reads and writes only device memory: addresses must come from FakeCudaMemory, whose
  addresses are opaque handles, not host pointers (a host pointer fails as it would on a GPU); it records the
  stream handle (0 being the legacy default stream) and the thread that called it;
* an IExecutionContext is not thread-safe (one context, its shapes and addresses, per thread at a time): from
  the first `set_input_shape` of a call until its `execute_async_v3` has run, a call on the same context from
  another thread is an overlap, counted in `overlaps` and raised as RuntimeError. `execute_async_v3` holds the
  context for `Engine.execute_s` seconds, the time the GPU would take, so that an unguarded race shows up.
"""

from __future__ import annotations

import enum
import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

FAKE_VERSION_10 = "10.14.1.48"  # include/NvInferVersion.h at v10.14; the TensorRT of TensorRT-LLM 1.2.1
FAKE_VERSION_11 = "11.1.0.106"  # include/NvInferVersion.h at v11.1


class Logger:
    WARNING = 2
    INFO = 3

    def __init__(self, severity: int = 2) -> None:
        self.severity = severity


class MemoryPoolType:
    WORKSPACE = "WORKSPACE"


class _BindingEnumType(enum.EnumMeta):
    """A missing member reads as it does from the pybind11 bindings: "type object 'BuilderFlag' has no
    attribute 'FP16'" (the plain Enum message would be just 'FP16')."""

    def __getattr__(cls, name: str) -> Any:
        base = getattr(super(), "__getattr__", None)  # EnumMeta has one up to Python 3.11
        if base is not None and not name.startswith("__"):
            try:
                return base(name)
            except AttributeError:
                pass
        raise AttributeError(f"type object '{cls.__name__}' has no attribute '{name}'")


class BuilderFlag10(enum.IntEnum, metaclass=_BindingEnumType):
    """A part of `tensorrt.BuilderFlag` in 10.14: the precision flags are there (deprecated since 10.12)."""

    FP16 = 0
    INT8 = 1
    DEBUG = 2
    GPU_FALLBACK = 3
    TF32 = 6
    FP8 = 15
    BF16 = 17
    STRIP_PLAN = 19


class BuilderFlag11(enum.IntEnum, metaclass=_BindingEnumType):
    """A part of `tensorrt.BuilderFlag` in 11.x: no FP16, BF16, INT8 or FP8 (weak typing is gone)."""

    DEBUG = 2
    GPU_FALLBACK = 3
    TF32 = 6
    STRIP_PLAN = 18


class NetworkDefinitionCreationFlag10(enum.IntEnum, metaclass=_BindingEnumType):
    EXPLICIT_BATCH = 0  # deprecated: ignored, networks are always explicit-batch in 10.x
    STRONGLY_TYPED = 1
    PREFER_JIT_PYTHON_PLUGINS = 2
    PREFER_AOT_PYTHON_PLUGINS = 3


class NetworkDefinitionCreationFlag11(enum.IntEnum, metaclass=_BindingEnumType):
    STRONGLY_TYPED = 0  # deprecated: ignored, every network is strongly typed in 11.x
    PREFER_JIT_PYTHON_PLUGINS = 1
    PREFER_AOT_PYTHON_PLUGINS = 2


for _enum in (BuilderFlag10, BuilderFlag11):
    _enum.__name__ = _enum.__qualname__ = "BuilderFlag"  # so that AttributeError reads as the real one does
for _flags in (NetworkDefinitionCreationFlag10, NetworkDefinitionCreationFlag11):
    _flags.__name__ = _flags.__qualname__ = "NetworkDefinitionCreationFlag"


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
_DEVICE_LOCK = threading.Lock()


@dataclass
class FakeCudaMemory:
    """serve.router.tensorrt.DeviceBuffers over stand-in device memory, with one dedicated stream.
    `sync_threads`: the thread of every stream synchronisation (`to_host` waits for the stream)."""

    stream_handle: int = field(default_factory=lambda: next(_STREAM_IDS))
    allocations: list[int] = field(default_factory=list)
    sync_threads: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        _STREAMS.add(self.stream_handle)

    def _allocate(self, array: np.ndarray) -> FakeDeviceArray:
        with _DEVICE_LOCK:
            buffer = FakeDeviceArray(next(_ADDRESSES), array)
            _DEVICE[buffer.address] = buffer
            self.allocations.append(buffer.address)
        return buffer

    def to_device(self, array: np.ndarray) -> FakeDeviceArray:
        return self._allocate(np.array(array, copy=True))

    def empty(self, shape: tuple[int, ...], dtype: str) -> FakeDeviceArray:
        return self._allocate(np.empty(shape, dtype=dtype))

    def to_host(self, buffer: FakeDeviceArray) -> np.ndarray:
        self.sync_threads.append(threading.get_ident())
        return buffer.array.astype(np.float32)


@dataclass(frozen=True)
class _Generation:
    version: str
    builder_flag: type[enum.IntEnum]
    network_flag: type[enum.IntEnum]
    always_strongly_typed: bool


GENERATION_10 = _Generation(FAKE_VERSION_10, BuilderFlag10, NetworkDefinitionCreationFlag10, False)
GENERATION_11 = _Generation(FAKE_VERSION_11, BuilderFlag11, NetworkDefinitionCreationFlag11, True)
_PRECISION_FLAGS = {"FP16", "BF16", "INT8", "FP8"}


class _Network:
    def __init__(self, flags: int, generation: _Generation) -> None:
        known = sum(1 << int(member) for member in generation.network_flag)
        if flags & ~known:
            raise ValueError(f"invalid NetworkDefinitionCreationFlags {flags:#x}")
        self.flags = flags
        self.flag_names = sorted(m.name for m in generation.network_flag if flags & (1 << int(m)))
        strong = generation.network_flag.__members__.get("STRONGLY_TYPED")
        self.strongly_typed = generation.always_strongly_typed or bool(
            strong is not None and flags & (1 << int(strong))
        )
        self.onnx_path: str | None = None
        self.weights_dtype: str | None = None


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
        if (
            unsupported
        ):  # TensorRT has no importer for ONNX Runtime's contrib ops (Attention, SkipLayerNorm ...)
            self._errors = [f"unsupported operator {op}" for op in unsupported]
            return False
        types = {init.data_type for init in model.graph.initializer}
        self.network.weights_dtype = "fp16" if onnx.TensorProto.FLOAT16 in types else "fp32"
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
        if not all(a <= b <= c for a, b, c in zip(min, opt, max, strict=True)):
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

    def set_flag(self, flag: enum.IntEnum) -> None:
        self.flags.add(flag.name)

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


class _Builder:
    generation: ClassVar[_Generation]

    def __init__(self, logger: Logger) -> None:
        self.logger = logger
        self.last_config: _BuilderConfig | None = None
        self.last_network: _Network | None = None

    def create_network(self, flags: int = 0) -> _Network:
        self.last_network = _Network(flags, self.generation)
        return self.last_network

    def create_builder_config(self) -> _BuilderConfig:
        self.last_config = _BuilderConfig()
        return self.last_config

    def create_optimization_profile(self) -> _Profile:
        return _Profile()

    def build_serialized_network(self, network: _Network, config: _BuilderConfig) -> bytes | None:
        if network.onnx_path is None or not config.profiles:
            return None
        if network.strongly_typed:
            precision = network.weights_dtype  # the types are the network's own
        else:
            precision = "fp16" if "FP16" in config.flags else "fp32"
        plan = {
            "fake_plan": True,
            "tensorrt": self.generation.version,
            "onnx": network.onnx_path,
            "network": "strongly_typed" if network.strongly_typed else "weakly_typed",
            "network_flags": network.flag_names,
            "flags": sorted(config.flags),
            "precision_flags": sorted(config.flags & _PRECISION_FLAGS),
            "precision": precision,
            "profile": {k: v for k, v in config.profiles[0].shapes.items()},
        }
        return json.dumps(plan).encode()


class Builder10(_Builder):
    generation = GENERATION_10


class Builder11(_Builder):
    generation = GENERATION_11


class _Engine:
    execute_s = 0.0  # how long execute_async_v3 holds the context (the GPU's time); tests raise it

    def __init__(self, plan: dict[str, Any]) -> None:
        from serve.router.onnx import OnnxSession

        self.plan = plan
        self.session = OnnxSession(Path(plan["onnx"]))
        self._names = ["input_ids", "attention_mask", "logits"]
        self.contexts: list[_Context] = []

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
        context = _Context(self)
        self.contexts.append(context)
        return context


class _Context:
    def __init__(self, engine: _Engine) -> None:
        self.engine = engine
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.addresses: dict[str, int] = {}
        self.executions = 0
        self.streams: list[int] = []
        self.execute_threads: list[int] = []
        self.overlaps = 0
        self._user: int | None = (
            None  # the thread whose call (set_input_shape .. execute_async_v3) is under way
        )
        self._book = threading.Lock()  # guards the double's own bookkeeping, not the caller

    def _use(self, method: str) -> None:
        me = threading.get_ident()
        with self._book:
            if self._user is not None and self._user != me:
                self.overlaps += 1
                raise RuntimeError(
                    f"IExecutionContext.{method} from thread {me} while thread {self._user} is "
                    "between set_input_shape and execute_async_v3 on the same context: an "
                    "execution context is not thread-safe"
                )
            self._user = me

    def _release(self) -> None:
        with self._book:
            if self._user == threading.get_ident():
                self._user = None

    def set_input_shape(self, name: str, shape: tuple[int, ...]) -> bool:
        self._use("set_input_shape")
        low, _, high = self.engine.get_tensor_profile_shape(name, 0)
        if len(shape) != len(low) or not all(
            lo <= s <= hi for lo, s, hi in zip(low, shape, high, strict=True)
        ):
            self._release()  # the call ends here: the caller reports the error
            return False  # TensorRT logs the error and returns False; the shape is not set
        self.shapes[name] = tuple(shape)
        return True

    def get_tensor_shape(self, name: str) -> tuple[int, ...]:
        self._use("get_tensor_shape")
        if name == "logits":
            return (self.shapes["input_ids"][0], 25)
        return self.shapes[name]

    def set_tensor_address(self, name: str, address: int) -> bool:
        self._use("set_tensor_address")
        self.addresses[name] = address
        return True

    def execute_async_v3(self, stream_handle: int) -> bool:
        self._use("execute_async_v3")
        try:
            return self._execute(stream_handle)
        finally:
            self._release()

    def _execute(self, stream_handle: int) -> bool:
        if stream_handle not in _STREAMS:
            raise RuntimeError(f"invalid CUDA stream handle {stream_handle:#x}")
        buffers = {}
        for name in ("input_ids", "attention_mask", "logits"):
            address = self.addresses.get(name)
            if address not in _DEVICE:
                raise RuntimeError(
                    f"an illegal memory access was encountered: {name} at {address!r} is not device memory"
                )
            buffers[name] = _DEVICE[address]
        for name in ("input_ids", "attention_mask"):
            if buffers[name].array.shape != self.shapes[name]:
                raise RuntimeError(
                    f"{name}: buffer shape {buffers[name].array.shape} != input shape {self.shapes[name]}"
                )
        if self.engine.execute_s:
            time.sleep(self.engine.execute_s)
        logits = self.engine.session.logits(buffers["input_ids"].array, buffers["attention_mask"].array)
        out = buffers["logits"].array
        if out.shape != logits.shape:
            raise RuntimeError(f"logits buffer {out.shape} does not fit the output {logits.shape}")
        out[...] = logits
        self.streams.append(stream_handle)
        self.execute_threads.append(threading.get_ident())
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


class FakeTensorRT10:
    """Test double of the `tensorrt` module, 10.14: pass an instance where the code takes `trt`."""

    __version__ = FAKE_VERSION_10
    Logger = Logger
    Builder = Builder10
    OnnxParser = OnnxParser
    Runtime = Runtime
    MemoryPoolType = MemoryPoolType
    BuilderFlag = BuilderFlag10
    NetworkDefinitionCreationFlag = NetworkDefinitionCreationFlag10
    TensorIOMode = TensorIOMode
    DataType = DataType


class FakeTensorRT11:
    """Test double of the `tensorrt` module, 11.x: always strongly typed, no precision builder flags."""

    __version__ = FAKE_VERSION_11
    Logger = Logger
    Builder = Builder11
    OnnxParser = OnnxParser
    Runtime = Runtime
    MemoryPoolType = MemoryPoolType
    BuilderFlag = BuilderFlag11
    NetworkDefinitionCreationFlag = NetworkDefinitionCreationFlag11
    TensorIOMode = TensorIOMode
    DataType = DataType


# Every name the doubles offer, for the conformance check against the reference. Both generations share these;
# the enum members differ (listed by `enum_members`).
FAKE_SURFACE = {
    "module": [
        "Logger",
        "Builder",
        "OnnxParser",
        "Runtime",
        "MemoryPoolType",
        "BuilderFlag",
        "NetworkDefinitionCreationFlag",
        "TensorIOMode",
        "DataType",
    ],
    "members": [
        "create_network",
        "create_builder_config",
        "create_optimization_profile",
        "build_serialized_network",
        "parse_from_file",
        "num_errors",
        "get_error",
        "set_shape",
        "set_memory_pool_limit",
        "set_flag",
        "add_optimization_profile",
        "create_timing_cache",
        "set_timing_cache",
        "get_timing_cache",
        "serialize",
        "builder_optimization_level",
        "deserialize_cuda_engine",
        "create_execution_context",
        "num_io_tensors",
        "get_tensor_name",
        "get_tensor_mode",
        "get_tensor_dtype",
        "get_tensor_profile_shape",
        "set_input_shape",
        "get_tensor_shape",
        "set_tensor_address",
        "execute_async_v3",
        "WORKSPACE",
        "INPUT",
        "OUTPUT",
        "FLOAT",
        "HALF",
        "INT64",
        "WARNING",
    ],
}


def enum_members(trt: Any) -> set[str]:
    return {*trt.BuilderFlag.__members__, *trt.NetworkDefinitionCreationFlag.__members__}
