"""`csreply eval router`: accuracy, macro-F1, per-intent precision/recall, confusion matrix, latency.

Backends: onnx (the build's default file, or `--variant fp32|int8`), tensorrt, rules, and torch (PyTorch
eager on the same weights, for comparison). Latency is single-message, end to end through the backend
(tokenise, run, decide), measured one message at a time after a warm-up.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from serve.config import Settings
from serve.evaluation.datasets import Example, load_intent_jsonl
from serve.evaluation.metrics import classification_report, percentile
from serve.router.base import IntentClassifier
from serve.taxonomy import INTENTS

BACKENDS = ("onnx", "onnx-fp32", "onnx-int8", "tensorrt", "rules", "torch")


class TorchSession:
    """PyTorch eager on the build's saved weights (the baseline the ONNX variants are measured against)."""

    def __init__(self, router_dir: Path, threads: int | None = None) -> None:
        import torch

        from serve.router.torch_model import load_torch

        if threads:
            torch.set_num_threads(threads)
        self._torch = torch
        self.model = load_torch(router_dir / "pytorch")

    def logits(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        with self._torch.inference_mode():
            out = self.model(self._torch.from_numpy(input_ids), self._torch.from_numpy(attention_mask))
        return out.numpy()


def make_backend(name: str, settings: Settings) -> IntentClassifier:
    from serve.router.loading import model_router, onnx_router, tensorrt_router, thresholds_for
    from serve.router.manifest import read_manifest
    from serve.router.rules import RulesRouter

    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    if name == "rules":
        return RulesRouter(thresholds_for(settings.router, None))
    router_dir = settings.router_dir
    manifest = read_manifest(router_dir)
    config = settings.router.model_copy(update={"max_wait_ms": 0.0})
    if name.startswith("onnx"):
        variant = name.split("-", 1)[1] if "-" in name else "auto"
        return onnx_router(router_dir, manifest, config.model_copy(update={"variant": variant}))
    if name == "tensorrt":
        return tensorrt_router(router_dir, manifest, config)
    return model_router("torch-eager", TorchSession(router_dir, config.threads), router_dir, manifest, config)


async def _predict(backend: IntentClassifier, examples: list[Example], batch: int = 64) -> tuple[list[str], int]:
    labels: list[str] = []
    uncertain = 0
    for i in range(0, len(examples), batch):
        results = await backend.classify([e.text for e in examples[i : i + batch]], top_k=2)
        labels.extend(r.label for r in results)
        uncertain += sum(r.uncertain for r in results)
    return labels, uncertain


async def _latencies(backend: IntentClassifier, texts: list[str], warmup: int = 10) -> list[float]:
    for text in texts[:warmup]:
        await backend.classify([text])
    times = []
    for text in texts:
        started = time.perf_counter()
        await backend.classify([text])
        times.append((time.perf_counter() - started) * 1000)
    return times


def evaluate(backend: IntentClassifier, examples: list[Example], latency_samples: int = 200) -> dict[str, Any]:
    async def run() -> tuple[list[str], int, list[float]]:
        preds, uncertain = await _predict(backend, examples)
        lat = await _latencies(backend, [e.text for e in examples[:latency_samples]])
        await backend.aclose()
        return preds, uncertain, lat

    preds, uncertain, lat = asyncio.run(run())
    gold = [e.intent for e in examples]
    report = classification_report(gold, preds, INTENTS)
    result: dict[str, Any] = {
        "backend": backend.name,
        "n": report.n,
        "accuracy": report.accuracy,
        "macro_f1": report.macro_f1,
        "uncertain_rate": uncertain / max(1, report.n),
        "latency_ms": {"p50": percentile(lat, 0.5), "p99": percentile(lat, 0.99), "samples": len(lat)},
        "per_intent": {k: v for k, v in report.per_label.items() if v["support"]},
        "confusion": {"labels": report.labels, "matrix": report.confusion},
    }
    oos = report.per_label["out_of_scope"]
    if oos["support"]:
        result["out_of_scope_recall"] = oos["recall"]
    for lang in sorted({e.lang for e in examples}):
        idx = [i for i, e in enumerate(examples) if e.lang == lang]
        part = classification_report([gold[i] for i in idx], [preds[i] for i in idx], INTENTS)
        result.setdefault("per_lang", {})[lang] = {"n": part.n, "accuracy": part.accuracy, "macro_f1": part.macro_f1}
    return result


def save_confusion_png(result: dict[str, Any], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = result["confusion"]["labels"]
    matrix = np.array(result["confusion"]["matrix"], dtype=float)
    keep = [i for i in range(len(labels)) if matrix[i].sum() or matrix[:, i].sum()]
    matrix = matrix[np.ix_(keep, keep)]
    names = [labels[i] for i in keep]
    rows = matrix / np.maximum(matrix.sum(axis=1, keepdims=True), 1)
    fig, ax = plt.subplots(figsize=(12, 10))
    image = ax.imshow(rows, cmap="Blues", vmin=0, vmax=1)
    ax.set_xticks(range(len(names)), names, rotation=90, fontsize=8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_xlabel("predicted")
    ax.set_ylabel("gold")
    ax.set_title(f"{title}  (accuracy {result['accuracy']:.3f}, macro-F1 {result['macro_f1']:.3f})")
    for i in range(len(names)):
        for j in range(len(names)):
            if matrix[i, j]:
                ax.text(j, i, int(matrix[i, j]), ha="center", va="center", fontsize=6,
                        color="white" if rows[i, j] > 0.5 else "black")
    fig.colorbar(image, ax=ax, fraction=0.04)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def print_summary(result: dict[str, Any], out: Any = sys.stdout) -> None:
    lat = result["latency_ms"]
    print(f"{result['backend']:14} n={result['n']}  accuracy {result['accuracy']:.4f}  macro-F1 "
          f"{result['macro_f1']:.4f}  latency p50 {lat['p50']:.2f} ms  p99 {lat['p99']:.2f} ms", file=out)
    for lang, part in result.get("per_lang", {}).items():
        print(f"  {lang}: n={part['n']}  accuracy {part['accuracy']:.4f}  macro-F1 {part['macro_f1']:.4f}", file=out)
    if "out_of_scope_recall" in result:
        print(f"  out_of_scope recall {result['out_of_scope_recall']:.4f}", file=out)


def run_eval(data: Path, backend: str, settings: Settings, json_out: Path | None, compare: str | None,
             confusion: Path | None, latency_samples: int) -> int:
    examples = load_intent_jsonl(data)
    if not examples:
        print(f"{data}: no labelled rows", file=sys.stderr)
        return 2
    first = evaluate(make_backend(backend, settings), examples, latency_samples)
    print_summary(first)
    output: dict[str, Any] = {**first, "data": str(data)}
    png = confusion or (json_out.with_suffix(".confusion.png") if json_out else None)
    if png:
        save_confusion_png(first, png, f"{first['backend']} on {data.name}")
        output["confusion_png"] = str(png)
    if compare:
        second = evaluate(make_backend(compare, settings), examples, latency_samples)
        print_summary(second)
        delta = 100 * (second["accuracy"] - first["accuracy"])
        speed = first["latency_ms"]["p50"] / max(second["latency_ms"]["p50"], 1e-9)
        print(f"accuracy delta ({second['backend']} - {first['backend']}): {delta:+.2f} points; "
              f"p50 latency ratio ({first['backend']} / {second['backend']}): {speed:.2f}x")
        output["compare"] = {"backend": second["backend"], "accuracy": second["accuracy"],
                             "macro_f1": second["macro_f1"], "latency_ms": second["latency_ms"],
                             "per_lang": second.get("per_lang", {}), "accuracy_delta_points": delta,
                             "p50_speedup": speed}
    if json_out:
        json_out.write_text(json.dumps(output, indent=2, ensure_ascii=False) + "\n")
    return 0
