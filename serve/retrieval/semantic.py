"""The English search encoder at run time: sentence vectors from the shipped all-MiniLM-L6-v2 (ONNX, INT8),
a second dense signal for English knowledge and reply-bank search beside the router's own vectors.

The router's vectors are trained to separate intents; these were trained on paraphrases, so they tell which
entry inside an intent a message asks about. `csreply prepare` exports the model
(checkpoints/search_encoder.py); without the file, search runs on the router's vectors and words alone.
"""

from __future__ import annotations

import hashlib
import logging
from functools import lru_cache
from pathlib import Path

import numpy as np

from serve.router.encoding import Batch, TextEncoder

logger = logging.getLogger(__name__)

SEARCH_ENCODER_DIRNAME = "all-minilm-l6-v2-search"
MODEL_FILE = "model.int8.onnx"
LANGS = ("en",)  # the model's vocabulary and training are English
MAX_TOKENS = 128
_ENCODING = 2  # 2: every text encoded alone (1 batched them)


class SemanticEncoder:
    def __init__(self, model_dir: Path, threads: int | None = None) -> None:
        from serve.router.onnx import OnnxSession

        self._encoder = self.tokenizer_only(model_dir)
        self._session = OnnxSession(model_dir / MODEL_FILE, threads=threads).session
        digest = hashlib.sha256((model_dir / MODEL_FILE).read_bytes()).hexdigest()[:16]
        # the vectors' cache key: another model file (or way of encoding), other vectors
        self.space = f"search{_ENCODING}-{digest}"
        # the knowledge base and the reply bank search with the same message: it is encoded once
        self.encode_one = lru_cache(maxsize=256)(self._encode_one)

    @staticmethod
    def tokenizer_only(model_dir: Path) -> TextEncoder:
        return TextEncoder(model_dir / "tokenizer.json", MAX_TOKENS)

    def embed(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised row per text, each encoded alone as a message is at search time: dynamic INT8
        scales every run's activations by their range over the whole batch, padding included, so a short text
        batched with long ones came out at cosine 0.97 to its own vector (tests/unit/test_search_encoder.py).
        About 2 ms a text on two cores; the index's vectors are cached on disk."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._encode_one(text) for text in texts])

    def _encode_one(self, text: str) -> np.ndarray:
        return self._run(self._encoder.encode([text]))[0]

    def _run(self, batch: Batch) -> np.ndarray:
        (vectors,) = self._session.run(
            ["embedding"], {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask}
        )
        return np.asarray(vectors, dtype=np.float32)


def load_semantic(cache_dir: Path, enabled: bool = True) -> SemanticEncoder | None:
    """The prepared search encoder in `cache_dir`, or None (disabled, not prepared, or unreadable: search
    then runs without it, and the log says why)."""
    if not enabled:
        return None
    model_dir = cache_dir / "models" / SEARCH_ENCODER_DIRNAME
    if not (model_dir / MODEL_FILE).is_file():
        logger.warning(
            "retrieval.semantic no search encoder in %s (run `csreply prepare`): English search uses the "
            "router's vectors and words only",
            model_dir,
        )
        return None
    try:
        # one thread: a message is encoded alone, where a second thread costs more than it saves (3.1 ms
        # against 2.6 ms on two cores), and the router runs beside it
        return SemanticEncoder(model_dir, threads=1)
    except Exception as exc:  # a damaged file must not stop the server; search works without it
        logger.warning(
            "retrieval.semantic cannot load %s (%s): English search runs without it", model_dir, exc
        )
        return None
