"""The router's TensorRT engine, for real: build from the shipped ONNX, load, compare with ONNX Runtime."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from checkpoints.router_config import TensorRTConfig
from checkpoints.router_export import PLAIN_ONNX
from checkpoints.router_trt import build_engine
from serve.config import default_cache_dir
from serve.evaluation.datasets import load_intent_jsonl
from serve.router.encoding import TextEncoder
from serve.router.onnx import OnnxSession
from serve.router.tensorrt import TensorRTSession
from tests.conftest import REPO

pytestmark = [pytest.mark.gpu, pytest.mark.needs_module("tensorrt")]


def test_fp16_engine_agrees_with_onnx_runtime_and_is_fast(tmp_path: Path) -> None:
    router_dir = default_cache_dir() / "router" / "default"
    for name in (PLAIN_ONNX, "tokenizer.json"):
        (tmp_path / name).symlink_to(router_dir / name)
    build_engine(tmp_path / PLAIN_ONNX, tmp_path, TensorRTConfig(fp16=True))
    session = TensorRTSession(tmp_path)
    encoder = TextEncoder(tmp_path / "tokenizer.json", 128)
    texts = [e.text for e in load_intent_jsonl(REPO / "data/intents/heldout.jsonl")][:512]
    reference = OnnxSession(tmp_path / PLAIN_ONNX)
    agree = 0
    for i in range(0, len(texts), 32):
        batch = encoder.encode(texts[i : i + 32])
        got = session.logits(batch.input_ids, batch.attention_mask)
        want = reference.logits(batch.input_ids, batch.attention_mask)
        agree += int((got.argmax(1) == want.argmax(1)).sum())
    assert agree / len(texts) >= 0.99
    one = encoder.encode(["I was charged twice for my broadband bill this month, can you check why?"])
    for _ in range(20):
        session.logits(one.input_ids, one.attention_mask)
    started = time.perf_counter()
    for _ in range(200):
        session.logits(one.input_ids, one.attention_mask)
    print(f"TensorRT fp16 single query: {(time.perf_counter() - started) / 200 * 1000:.2f} ms")
