"""ONNX export of the router: FP32 graph fused by ONNX Runtime's transformer optimizer, and INT8 (dynamic)."""

from __future__ import annotations

import hashlib
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from checkpoints.router_config import RouterBuildConfig
from checkpoints.router_data import Example
from checkpoints.router_metrics import summarize
from serve.router.encoding import TextEncoder
from serve.router.torch_model import WithEmbedding
from serve.taxonomy import INTENTS

# The unfused export: standard ONNX operators only, the input TensorRT needs (the fused FP32 graph uses ONNX
# Runtime's contrib ops, which TensorRT's parser does not know).
PLAIN_ONNX = "model.plain.onnx"
PARITY_TEXTS = ["where is my parcel", "我的话费余额还有多少？", "cancel my broadband contract please thx"]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export_variants(model: Any, out_dir: Path, config: RouterBuildConfig) -> dict[str, dict[str, Any]]:
    import torch
    from onnxruntime.transformers import optimizer

    encoder = TextEncoder(out_dir / "tokenizer.json", config.export.max_length)
    plain = out_dir / PLAIN_ONNX
    # Eager attention exports as plain MatMul/Softmax, which the optimizer fuses into its Attention op;
    # the sdpa graph is left unfused (measured in reference/embedded-default.md).
    model.encoder.set_attn_implementation("eager")
    model.eval()
    sample = encoder.encode(PARITY_TEXTS)
    ids, mask = torch.from_numpy(sample.input_ids), torch.from_numpy(sample.attention_mask)
    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")
        # eval() on the wrapper: the exporter restores the top module's training flag afterwards, recursively,
        # so a wrapper left in training mode would switch the router's dropout back on
        torch.onnx.export(
            WithEmbedding(model).eval(),
            (ids, mask),
            str(plain),
            dynamo=False,
            opset_version=config.export.opset,
            input_names=["input_ids", "attention_mask"],
            output_names=["logits", "embedding"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "sequence"},
                "attention_mask": {0: "batch", 1: "sequence"},
                "logits": {0: "batch"},
                "embedding": {0: "batch"},
            },
        )
        reference = model(ids, mask).numpy()
    hidden = model.encoder.config.hidden_size
    heads = model.encoder.config.num_attention_heads
    optimized = optimizer.optimize_model(str(plain), model_type="bert", num_heads=heads, hidden_size=hidden)
    fp32 = out_dir / "model.onnx"
    optimized.save_model_to_file(str(fp32))
    fused = {k: int(v) for k, v in optimized.get_fused_operator_statistics().items() if v}
    print(f"[build-router] ONNX FP32 fused operators: {fused}", file=sys.stderr)
    variants = {"fp32": _variant(fp32, "fp32", reference, encoder, fused=fused)}
    if config.export.int8.enabled:
        int8 = out_dir / "model.int8.onnx"
        quantize_int8(fp32, int8, config.export.int8.per_channel)
        variants["int8"] = _variant(
            int8, "int8", reference, encoder, per_channel=config.export.int8.per_channel
        )
    model.encoder.set_attn_implementation("sdpa")
    return variants


def quantize_int8(source: Path, target: Path, per_channel: bool) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # DefaultTensorType: the fused graph has tensors shape inference cannot type; without it quantize_dynamic
    # fails with "Unable to find data type for weight_name=..." (reference/embedded-default.md).
    quantize_dynamic(
        str(source),
        str(target),
        weight_type=QuantType.QInt8,
        per_channel=per_channel,
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )


def _variant(path: Path, precision: str, reference: np.ndarray, encoder: TextEncoder, **extra: Any) -> dict:
    from serve.router.onnx import OnnxSession

    sample = encoder.encode(PARITY_TEXTS)
    logits = OnnxSession(path).logits(sample.input_ids, sample.attention_mask)
    diff = float(np.abs(logits - reference).max())
    if precision == "fp32" and diff > 1e-3:
        raise RuntimeError(f"ONNX FP32 logits differ from PyTorch by {diff}; export is broken")
    return {
        "file": path.name,
        "sha256": sha256(path),
        "precision": precision,
        "bytes": path.stat().st_size,
        "max_abs_logit_diff_vs_torch": diff,
        **extra,
    }


def length_sorted_logits(
    encoder: TextEncoder,
    texts: list[str],
    forward: Callable[[np.ndarray, np.ndarray], np.ndarray],
    batch_size: int = 64,
) -> np.ndarray:
    """`forward(input_ids, attention_mask)` over `texts` in batches of similar length (little padding), the
    logits returned in the order of `texts`."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros((len(texts), len(INTENTS)), dtype=np.float32)
    for i in range(0, len(texts), batch_size):
        idx = order[i : i + batch_size]
        batch = encoder.encode([texts[j] for j in idx])
        out[idx] = forward(batch.input_ids, batch.attention_mask)
    return out


def variant_logits(path: Path, encoder: TextEncoder, texts: list[str]) -> np.ndarray:
    """Logits of one ONNX file for `texts`, in their order."""
    from serve.router.onnx import OnnxSession

    return length_sorted_logits(encoder, texts, OnnxSession(path, torch_threads()).logits)


def score_variant(
    logits: np.ndarray, calibration: Any, examples: list[Example], thresholds: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Accuracy and macro-F1 through the serving path's calibration and ensemble; with `thresholds`, also
    the uncertain rate (the share that would get a clarifying question)."""
    from checkpoints.router_decision import uncertain_mask

    probs = calibration.probabilities(logits, [e.text for e in examples])
    result = summarize(examples, [INTENTS[j] for j in probs.argmax(axis=1)])
    if thresholds:
        flagged = int(uncertain_mask(probs, thresholds["min_confidence"], thresholds["min_margin"]).sum())
        result["uncertain_rate"] = flagged / max(1, len(examples))
    return result


def torch_threads() -> int:
    """The build's thread count (set once from the load, checkpoints/router.py) for ONNX Runtime as well."""
    import torch

    return torch.get_num_threads()
