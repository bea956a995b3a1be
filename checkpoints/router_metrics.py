"""Accuracy and macro-F1 of router predictions, overall and per language: the numbers a build records.

Its own module because both the training loop (router.py) and the ONNX evaluation (router_export.py) need
it, and router.py already imports router_export.py."""

from __future__ import annotations

from typing import Any

from serve.evaluation.datasets import Example
from serve.evaluation.metrics import classification_report
from serve.taxonomy import INTENTS


def summarize(examples: list[Example], pred: list[str]) -> dict[str, Any]:
    """Accuracy and macro-F1 overall, per language and (when the rows come from several files) per source."""
    gold = [e.intent for e in examples]
    overall = classification_report(gold, pred, INTENTS)
    result: dict[str, Any] = {"n": overall.n, "accuracy": overall.accuracy, "macro_f1": overall.macro_f1}
    for lang in sorted({e.lang for e in examples}):
        idx = [i for i, e in enumerate(examples) if e.lang == lang]
        part = classification_report([gold[i] for i in idx], [pred[i] for i in idx], INTENTS)
        result[lang] = {"n": part.n, "accuracy": part.accuracy, "macro_f1": part.macro_f1}
    sources = sorted({e.source for e in examples})
    if len(sources) > 1:  # which data each number comes from: a dev split mixes the team's and extra files
        for source in sources:
            idx = [i for i, e in enumerate(examples) if e.source == source]
            part = classification_report([gold[i] for i in idx], [pred[i] for i in idx], INTENTS)
            result.setdefault("by_source", {})[source or "(none)"] = {
                "n": part.n,
                "accuracy": part.accuracy,
                "macro_f1": part.macro_f1,
            }
    return result
