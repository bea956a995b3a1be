"""The router's TensorRT engine, for real: build from the shipped ONNX, load, compare with ONNX Runtime.

Both FP16 paths of checkpoints/router_trt.py where the installed TensorRT has them: weakly typed with
BuilderFlag.FP16 (TensorRT 10.x only) and strongly typed from the FP16 ONNX (10.x with STRONGLY_TYPED; the
only one on 11)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from checkpoints.router_config import TensorRTConfig
from checkpoints.router_export import PLAIN_ONNX
from checkpoints.router_trt import build_engine, has_weak_typing
from serve.config import default_cache_dir
from serve.evaluation.datasets import load_intent_jsonl
from serve.router.encoding import TextEncoder
from serve.router.onnx import OnnxSession
from serve.router.tensorrt import TensorRTSession
from tests.conftest import REPO

pytestmark = [pytest.mark.gpu, pytest.mark.needs_module("tensorrt")]


@pytest.mark.parametrize("strongly_typed", [False, True], ids=["weakly-typed", "strongly-typed"])
def test_fp16_engine_agrees_with_onnx_runtime_and_is_fast(tmp_path: Path, strongly_typed: bool) -> None:
    import tensorrt

    if not strongly_typed and not has_weak_typing(tensorrt):
        pytest.skip(f"TensorRT {tensorrt.__version__} has no weakly typed networks (BuilderFlag.FP16)")
    router_dir = default_cache_dir() / "router" / "default"
    for name in (PLAIN_ONNX, "tokenizer.json"):
        (tmp_path / name).symlink_to(router_dir / name)
    build_engine(tmp_path / PLAIN_ONNX, tmp_path, TensorRTConfig(fp16=True), strongly_typed=strongly_typed)
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
    print(
        f"TensorRT fp16 ({'strongly' if strongly_typed else 'weakly'} typed) single query: "
        f"{(time.perf_counter() - started) / 200 * 1000:.2f} ms"
    )
    # two threads on the one session (the batcher's worker and the readiness check): same logits as alone
    batch = encoder.encode(texts[:32])
    alone = session.logits(batch.input_ids, batch.attention_mask)
    results: list[np.ndarray] = []

    def score() -> None:
        for _ in range(50):
            results.append(session.logits(batch.input_ids, batch.attention_mask))

    threads = [threading.Thread(target=score) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 100 and all(np.allclose(r, alone, atol=1e-3) for r in results)
