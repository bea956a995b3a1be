"""`onnx` router backend: ONNX Runtime (CPU, or CUDA where onnxruntime-gpu is installed)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)


class OnnxSession:
    def __init__(
        self, model_path: Path, threads: int | None = None, device: str = "cpu", spin_wait: bool = False
    ) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or max(1, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Spinning keeps every intra-op thread busy-waiting for a while after each run: on a server the event
        # loop needs that core, and one classification cost twice the CPU with it (docs/performance.md).
        options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin_wait else "0")
        providers = ["CPUExecutionProvider"]
        if device.startswith("cuda"):
            if "CUDAExecutionProvider" not in ort.get_available_providers():
                raise RuntimeError(
                    "router device is cuda but onnxruntime has no CUDAExecutionProvider "
                    "(install onnxruntime-gpu)"
                )
            providers.insert(0, "CUDAExecutionProvider")
        self.session = ort.InferenceSession(str(model_path), options, providers=providers)
        self.model_path = model_path
        names = [o.name for o in self.session.get_outputs()]
        self._logits = "logits" if "logits" in names else names[0]
        # builds before the sentence-vector output have logits only: they still classify, retrieval is lexical
        self._outputs = [self._logits, "embedding"] if "embedding" in names else [self._logits]
        self.has_embedding = len(self._outputs) == 2

    def logits(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        return self.run(input_ids, attention_mask)[0]

    def run(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Logits and, where the model has them, the L2-normalised sentence vectors (one pass)."""
        result = self.session.run(self._outputs, {"input_ids": input_ids, "attention_mask": attention_mask})
        return np.asarray(result[0]), (np.asarray(result[1]) if self.has_embedding else None)
