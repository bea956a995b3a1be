"""`csreply eval router`: accuracy, macro-F1, per-intent precision/recall, confusion matrix, latency, the
uncertain rate, out-of-scope precision/recall, the worst confusions with examples, and a breakdown by the
rows' `source` field; JSON, Markdown and a confusion-matrix PNG.

Backends: onnx (the build's default file, or `--variant fp32|int8`), tensorrt, rules, and torch (PyTorch
eager on the same weights, for comparison). Latency is single-message, end to end through the backend
(tokenise, run, decide), measured one message at a time after a warm-up.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from serve.config import Settings
from serve.evaluation.datasets import Example, load_intent_jsonl
from serve.evaluation.metrics import classification_report, percentile
from serve.evaluation.router_report import (
    markdown_report,
    print_summary,
    save_confusion_png,
    save_report_plots,
)
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

    def run(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        from serve.router.torch_model import WithEmbedding

        with self._torch.inference_mode():
            logits, vectors = WithEmbedding(self.model).eval()(
                self._torch.from_numpy(input_ids), self._torch.from_numpy(attention_mask)
            )
        return logits.numpy(), vectors.numpy()


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


@dataclass(frozen=True, slots=True)
class Prediction:
    label: str
    confidence: float
    uncertain: bool


async def _predict(backend: IntentClassifier, examples: list[Example], batch: int = 64) -> list[Prediction]:
    out: list[Prediction] = []
    for i in range(0, len(examples), batch):
        results = await backend.classify([e.text for e in examples[i : i + batch]], top_k=2)
        out.extend(Prediction(r.label, r.confidence, r.uncertain) for r in results)
    return out


async def _latencies(backend: IntentClassifier, texts: list[str], warmup: int = 10) -> list[float]:
    for text in texts[:warmup]:
        await backend.classify([text])
    times = []
    for text in texts:
        started = time.perf_counter()
        await backend.classify([text])
        times.append((time.perf_counter() - started) * 1000)
    return times


def _metrics(examples: list[Example], preds: list[Prediction]) -> dict[str, Any]:
    """Accuracy, macro-F1, uncertain rate and out-of-scope precision/recall of one slice."""
    gold = [e.intent for e in examples]
    report = classification_report(gold, [p.label for p in preds], INTENTS)
    part: dict[str, Any] = {
        "n": report.n,
        "accuracy": report.accuracy,
        "macro_f1": report.macro_f1,
        "uncertain_rate": sum(p.uncertain for p in preds) / max(1, report.n),
    }
    oos = report.per_label["out_of_scope"]
    if oos["support"]:
        part["out_of_scope_recall"] = oos["recall"]
    if oos["support"] or any(p.label == "out_of_scope" for p in preds):
        part["out_of_scope_precision"] = oos["precision"]
    return part


def worst_confusions(
    examples: list[Example], preds: list[Prediction], top: int, per_pair: int = 3
) -> list[dict[str, Any]]:
    """The `top` most frequent (gold, predicted) error pairs, each with its most confident wrong examples
    (confident mistakes are the ones no clarifying question catches)."""
    pairs: dict[tuple[str, str], list[tuple[Example, Prediction]]] = defaultdict(list)
    for ex, p in zip(examples, preds, strict=True):
        if p.label != ex.intent:
            pairs[(ex.intent, p.label)].append((ex, p))
    ranked = sorted(pairs.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:top]
    out = []
    for (gold, predicted), items in ranked:
        items = sorted(items, key=lambda item: -item[1].confidence)[:per_pair]
        out.append(
            {
                "gold": gold,
                "predicted": predicted,
                "count": len(pairs[(gold, predicted)]),
                "examples": [
                    {
                        "text": ex.text,
                        "confidence": p.confidence,
                        "uncertain": p.uncertain,
                        **({"source": ex.source} if ex.source else {}),
                    }
                    for ex, p in items
                ],
            }
        )
    return out


def score(examples: list[Example], preds: list[Prediction], errors: int = 10) -> dict[str, Any]:
    """Every metric of `csreply eval router` except latency: overall, per intent, per language, per source."""
    gold = [e.intent for e in examples]
    report = classification_report(gold, [p.label for p in preds], INTENTS)
    result: dict[str, Any] = {
        **_metrics(examples, preds),
        "per_intent": {k: v for k, v in report.per_label.items() if v["support"]},
        "confusion": {"labels": report.labels, "matrix": report.confusion},
    }
    for key, attr in (("per_lang", "lang"), ("per_source", "source")):
        values = sorted({getattr(e, attr) for e in examples})
        if attr == "source" and values in ([], [""]):
            continue
        for value in values:
            idx = [i for i, e in enumerate(examples) if getattr(e, attr) == value]
            result.setdefault(key, {})[value or "(none)"] = _metrics(
                [examples[i] for i in idx], [preds[i] for i in idx]
            )
    if errors:
        result["errors"] = worst_confusions(examples, preds, errors)
    return result


def evaluate(
    backend: IntentClassifier, examples: list[Example], latency_samples: int = 200, errors: int = 10
) -> dict[str, Any]:
    async def run() -> tuple[list[Prediction], list[float]]:
        preds = await _predict(backend, examples)
        lat = await _latencies(backend, [e.text for e in examples[:latency_samples]])
        await backend.aclose()
        return preds, lat

    preds, lat = asyncio.run(run())
    result = score(examples, preds, errors)
    return {
        "backend": backend.name,
        **result,
        "latency_ms": {
            "p50": percentile(lat, 0.5),
            "p99": percentile(lat, 0.99),
            "samples": len(lat),
            "values": [round(x, 3) for x in lat],
        },
    }


def load_examples(
    data: Path,
    label_map: Path | None = None,
    label_field: str = "label",
    dataset: str | None = None,
    by: str = "source",
) -> list[Example]:
    """Our own `intent`-labelled JSONL, or (with `label_map`) a set labelled in another scheme; `by` names the
    field the per-source breakdown groups on (with a label map, the foreign label itself is a useful one)."""
    if label_map is None:
        return load_intent_jsonl(data, by)
    from serve.evaluation.label_mapping import load_label_mapping, load_mapped_jsonl

    return load_mapped_jsonl(data, load_label_mapping(label_map, dataset), label_field, source_field=by)


def run_eval(
    data: Path,
    backend: str,
    settings: Settings,
    json_out: Path | None,
    compare: str | None,
    confusion: Path | None,
    latency_samples: int,
    errors: int = 10,
    report: Path | None = None,
    label_map: Path | None = None,
    label_field: str = "label",
    dataset: str | None = None,
    by: str = "source",
) -> int:
    try:
        examples = load_examples(data, label_map, label_field, dataset, by)
    except ValueError as exc:
        print(f"csreply eval router: {exc}", file=sys.stderr)
        return 2
    if not examples:
        print(f"{data}: no labelled rows", file=sys.stderr)
        return 2
    first = evaluate(make_backend(backend, settings), examples, latency_samples, errors)
    print_summary(first)
    output: dict[str, Any] = {**first, "data": str(data), "source_field": by}
    if label_map:
        output["label_map"] = {"file": str(label_map), "field": label_field, "dataset": dataset}
    md = report or (json_out.with_suffix(".md") if json_out else None)
    beside = json_out or md
    png = confusion or (beside.with_suffix(".confusion.png") if beside else None)
    if png:
        save_confusion_png(first, png, f"{first['backend']} on {data.name}")
        output["confusion_png"] = str(png)
    if compare:
        second = evaluate(make_backend(compare, settings), examples, latency_samples, errors=0)
        print_summary(second)
        delta = 100 * (second["accuracy"] - first["accuracy"])
        speed = first["latency_ms"]["p50"] / max(second["latency_ms"]["p50"], 1e-9)
        print(
            f"accuracy delta ({second['backend']} - {first['backend']}): {delta:+.2f} points; "
            f"p50 latency ratio ({first['backend']} / {second['backend']}): {speed:.2f}x"
        )
        output["compare"] = {
            "backend": second["backend"],
            "accuracy": second["accuracy"],
            "macro_f1": second["macro_f1"],
            "latency_ms": second["latency_ms"],
            "per_lang": second.get("per_lang", {}),
            "accuracy_delta_points": delta,
            "p50_speedup": speed,
        }
    if md:
        output.update({f"{name}_png": str(path) for name, path in save_report_plots(first, md).items()})
        output["report"] = str(md)
    if json_out:
        json_out.write_text(json.dumps(output, indent=2, ensure_ascii=False) + "\n")
    if md:
        md.write_text(markdown_report(output, str(data)))
    return 0
