"""`tensorrt` router backend: a TensorRT plan built by checkpoints/router_trt.py.

Name-based I/O, the same in TensorRT 10.14 and 11.1 (NVIDIA/TensorRT `python/src/infer/pyCore.cpp` at both
tags): `set_input_shape` (its False return, a shape outside the optimisation profile, becomes a ValueError
naming the shape), `set_tensor_address`, `execute_async_v3` on a CUDA stream of this session's own: on the
legacy default stream TensorRT adds device-wide synchronisations (the binding's docstring says so). Device
buffers are torch CUDA tensors allocated and copied on that stream. Inputs shorter than the profile's minimum
sequence are padded (attention mask 0, so mean pooling ignores them); batches larger than the profile's
maximum are split.

One IExecutionContext holds the input shapes and tensor addresses of the call under way, and it is not
thread-safe, so every call (shapes, addresses, enqueue and the read-back that waits for the stream) runs under
one lock: the micro-batcher's worker thread, the readiness check and the knowledge-base indexing may score at
the same time. Callers run it off the event loop (it blocks on the GPU).

Not runnable on the development machines (no TensorRT, no GPU): tested through the FakeTensorRT10 and
FakeTensorRT11 doubles and their stand-in device memory, and for real by tests/gpu.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from serve.engine_artifacts import EngineMismatch

__all__ = [
    "ENGINE_FILE",
    "ENGINE_MANIFEST",
    "EngineMismatch",
    "TensorRTSession",
    "TorchCudaBuffers",
    "check_engine_manifest",
]

logger = logging.getLogger(__name__)

ENGINE_FILE = "router.plan"
ENGINE_MANIFEST = "engine.json"


def check_engine_manifest(manifest: dict[str, Any], tensorrt_version: str, compute_capability: str) -> None:
    problems = []
    if manifest.get("tensorrt_version") != tensorrt_version:
        problems.append(
            f"TensorRT {manifest.get('tensorrt_version')} built it, this process runs {tensorrt_version}"
        )
    if manifest.get("compute_capability") != compute_capability:
        problems.append(
            f"it was built for compute capability {manifest.get('compute_capability')} "
            f"({manifest.get('gpu_name')}), this GPU is {compute_capability}"
        )
    if problems:
        raise EngineMismatch(
            "router TensorRT engine does not match this machine: "
            + "; ".join(problems)
            + ". Rebuild it here: python -m checkpoints build-router-trt build_configs/router/<name>.yaml"
        )


class DeviceBuffers(Protocol):
    """Device memory and the stream TensorRT runs on. Buffers expose `data_ptr()` (a device address)."""

    @property
    def stream_handle(self) -> int: ...

    def to_device(self, array: np.ndarray) -> Any: ...

    def empty(self, shape: tuple[int, ...], dtype: str) -> Any: ...

    def to_host(self, buffer: Any) -> np.ndarray:
        """Wait for the stream, then copy the buffer back."""
        ...


class TorchCudaBuffers:
    """torch CUDA tensors on a dedicated stream: copies, inference and the read-back are ordered on it."""

    def __init__(self, device: str) -> None:
        import torch

        self._torch = torch
        self._device = torch.device(device)
        self._stream = torch.cuda.Stream(device=self._device)

    @property
    def stream_handle(self) -> int:
        return int(self._stream.cuda_stream)

    def to_device(self, array: np.ndarray) -> Any:
        with self._torch.cuda.stream(self._stream):
            return self._torch.from_numpy(np.ascontiguousarray(array)).to(self._device, non_blocking=True)

    def empty(self, shape: tuple[int, ...], dtype: str) -> Any:
        with self._torch.cuda.stream(self._stream):
            return self._torch.empty(shape, dtype=getattr(self._torch, dtype), device=self._device)

    def to_host(self, buffer: Any) -> np.ndarray:
        with self._torch.cuda.stream(self._stream):
            host = buffer.float().cpu()  # a synchronous copy, ordered after the inference on this stream
        return host.numpy()


class TensorRTSession:
    def __init__(
        self,
        router_dir: Path,
        device: str = "cuda",
        trt: Any | None = None,  # the tensorrt module, or a test double with its names
        compute_capability: str | None = None,
        buffers: DeviceBuffers | None = None,
    ) -> None:
        if not device.startswith("cuda"):
            raise ValueError(f"TensorRT runs on CUDA devices only, not {device!r}")
        if trt is None:
            import tensorrt

            trt = tensorrt
        manifest_path = router_dir / ENGINE_MANIFEST
        if not manifest_path.is_file():
            raise FileNotFoundError(
                f"no TensorRT engine in {router_dir}: run build-router-trt on the GPU host"
            )
        manifest = json.loads(manifest_path.read_text())
        if compute_capability is None:
            from serve.engine_artifacts import compute_capability as lookup

            compute_capability = lookup(int(device.partition(":")[2] or 0))
        check_engine_manifest(manifest, str(trt.__version__), compute_capability)

        self._logger = trt.Logger(trt.Logger.WARNING)
        self._runtime = trt.Runtime(self._logger)
        self.engine = self._runtime.deserialize_cuda_engine((router_dir / manifest["engine"]).read_bytes())
        if self.engine is None:
            raise EngineMismatch(
                f"TensorRT could not deserialize {router_dir / manifest['engine']}; rebuild it"
            )
        self.context = self.engine.create_execution_context()
        self._lock = (
            threading.Lock()
        )  # one call at a time on the context and its buffers (see the module doc)
        self.buffers = buffers or TorchCudaBuffers(device)
        names = [self.engine.get_tensor_name(i) for i in range(self.engine.num_io_tensors)]
        self.inputs = [n for n in names if self.engine.get_tensor_mode(n) == trt.TensorIOMode.INPUT]
        self.outputs = [n for n in names if self.engine.get_tensor_mode(n) == trt.TensorIOMode.OUTPUT]
        min_shape, _, max_shape = self.engine.get_tensor_profile_shape("input_ids", 0)
        self.min_seq, self.max_batch, self.max_seq = int(min_shape[1]), int(max_shape[0]), int(max_shape[1])
        self._profile = (tuple(min_shape), tuple(max_shape))
        self._logits = "logits" if "logits" in self.outputs else self.outputs[0]
        self._output_dtype = _numpy_dtype(trt, self.engine.get_tensor_dtype(self._logits))

    def run(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> tuple[np.ndarray, None]:
        """Logits only: knowledge search uses the ONNX router's vectors (same build) or searches lexically."""
        return self.logits(input_ids, attention_mask), None

    def logits(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        if input_ids.shape[1] > self.max_seq:
            raise ValueError(f"sequence of {input_ids.shape[1]} tokens exceeds the engine's {self.max_seq}")
        if input_ids.shape[1] < self.min_seq:
            pad = self.min_seq - input_ids.shape[1]
            input_ids = np.pad(input_ids, ((0, 0), (0, pad)))
            attention_mask = np.pad(attention_mask, ((0, 0), (0, pad)))
        parts = [
            self._run(input_ids[i : i + self.max_batch], attention_mask[i : i + self.max_batch])
            for i in range(0, len(input_ids), self.max_batch)
        ]
        return np.concatenate(parts)

    def _run(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        with self._lock:
            return self._run_locked(input_ids, attention_mask)

    def _run_locked(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        feeds = {"input_ids": input_ids, "attention_mask": attention_mask}
        for name in self.inputs:
            shape = tuple(int(d) for d in feeds[name].shape)
            if not self.context.set_input_shape(name, shape):
                low, high = self._profile
                raise ValueError(
                    f"TensorRT refused input {name!r} of shape {shape}: the engine's optimisation "
                    f"profile allows {low} to {high}"
                )
        device = {name: self.buffers.to_device(feeds[name]) for name in self.inputs}
        for name in self.outputs:
            device[name] = self.buffers.empty(tuple(self.context.get_tensor_shape(name)), self._output_dtype)
        for name, buffer in device.items():
            self.context.set_tensor_address(name, int(buffer.data_ptr()))
        if not self.context.execute_async_v3(self.buffers.stream_handle):
            raise RuntimeError("TensorRT execute_async_v3 failed")
        return self.buffers.to_host(device[self._logits])


def _numpy_dtype(trt: Any, dtype: Any) -> str:
    mapping = {trt.DataType.FLOAT: "float32", trt.DataType.HALF: "float16"}
    if dtype not in mapping:
        raise EngineMismatch(f"unexpected TensorRT output dtype {dtype}")
    return mapping[dtype]
