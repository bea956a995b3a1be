"""`tensorrt` router backend: a TensorRT 10 plan built by checkpoints/router_trt.py.

TensorRT 10 name-based I/O (shared/reference/trtllm.md section 8.2): `set_input_shape`, `set_tensor_address`,
`execute_async_v3` on a CUDA stream. Device buffers are torch tensors. Inputs shorter than the profile's
minimum sequence are padded (attention mask 0, so mean pooling ignores them); batches larger than the
profile's maximum are split. Not runnable on the development machines (no TensorRT): tested through
`FakeTensorRT`, and for real by tests/gpu.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

ENGINE_FILE = "router.plan"
ENGINE_MANIFEST = "engine.json"


class EngineMismatch(RuntimeError):
    """The plan was built for another GPU or TensorRT version."""


def check_engine_manifest(manifest: dict[str, Any], tensorrt_version: str, compute_capability: str) -> None:
    problems = []
    if manifest.get("tensorrt_version") != tensorrt_version:
        problems.append(f"TensorRT {manifest.get('tensorrt_version')} built it, this process runs {tensorrt_version}")
    if manifest.get("compute_capability") != compute_capability:
        problems.append(
            f"it was built for compute capability {manifest.get('compute_capability')} "
            f"({manifest.get('gpu_name')}), this GPU is {compute_capability}"
        )
    if problems:
        raise EngineMismatch(
            "router TensorRT engine does not match this machine: " + "; ".join(problems)
            + ". Rebuild it here: python -m checkpoints build-router-trt build_configs/router/<name>.yaml"
        )


class TensorRTSession:
    def __init__(self, router_dir: Path, device: str = "cuda", trt: ModuleType | None = None,
                 compute_capability: str | None = None) -> None:
        import torch

        if trt is None:
            import tensorrt as trt
        self._torch = torch
        self.device = device
        manifest_path = router_dir / ENGINE_MANIFEST
        if not manifest_path.is_file():
            raise FileNotFoundError(f"no TensorRT engine in {router_dir}: run build-router-trt on the GPU host")
        manifest = json.loads(manifest_path.read_text())
        if compute_capability is None:
            major, minor = torch.cuda.get_device_capability(0)
            compute_capability = f"{major}.{minor}"
        check_engine_manifest(manifest, str(trt.__version__), compute_capability)

        self._logger = trt.Logger(trt.Logger.WARNING)
        self._runtime = trt.Runtime(self._logger)
        self.engine = self._runtime.deserialize_cuda_engine((router_dir / manifest["engine"]).read_bytes())
        if self.engine is None:
            raise EngineMismatch(f"TensorRT could not deserialize {router_dir / manifest['engine']}; rebuild it")
        self.context = self.engine.create_execution_context()
        names = [self.engine.get_tensor_name(i) for i in range(self.engine.num_io_tensors)]
        self.inputs = [n for n in names if self.engine.get_tensor_mode(n) == trt.TensorIOMode.INPUT]
        self.outputs = [n for n in names if self.engine.get_tensor_mode(n) == trt.TensorIOMode.OUTPUT]
        min_shape, _, max_shape = self.engine.get_tensor_profile_shape("input_ids", 0)
        self.min_seq, self.max_batch, self.max_seq = int(min_shape[1]), int(max_shape[0]), int(max_shape[1])
        self._output_dtype = _torch_dtype(torch, trt, self.engine.get_tensor_dtype(self.outputs[0]))

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
        torch = self._torch
        feeds = {"input_ids": input_ids, "attention_mask": attention_mask}
        tensors = {name: torch.from_numpy(np.ascontiguousarray(feeds[name])).to(self.device) for name in self.inputs}
        for name, tensor in tensors.items():
            self.context.set_input_shape(name, tuple(tensor.shape))
        outputs = {}
        for name in self.outputs:
            shape = tuple(self.context.get_tensor_shape(name))
            outputs[name] = torch.empty(shape, dtype=self._output_dtype, device=self.device)
        for name, tensor in {**tensors, **outputs}.items():
            self.context.set_tensor_address(name, int(tensor.data_ptr()))
        stream = torch.cuda.current_stream() if self.device.startswith("cuda") else None
        ok = self.context.execute_async_v3(stream.cuda_stream if stream is not None else 0)
        if stream is not None:
            stream.synchronize()
        if not ok:
            raise RuntimeError("TensorRT execute_async_v3 failed")
        return outputs[self.outputs[0]].float().cpu().numpy()


def _torch_dtype(torch: Any, trt: ModuleType, dtype: Any) -> Any:
    mapping = {trt.DataType.FLOAT: torch.float32, trt.DataType.HALF: torch.float16}
    if dtype not in mapping:
        raise EngineMismatch(f"unexpected TensorRT output dtype {dtype}")
    return mapping[dtype]
