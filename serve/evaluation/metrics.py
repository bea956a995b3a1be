"""Classification metrics without heavy dependencies (used by router builds and `csreply eval router`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class ClassificationReport:
    labels: list[str]
    n: int
    accuracy: float
    macro_f1: float
    per_label: dict[str, dict[str, float]] = field(default_factory=dict)
    confusion: list[list[int]] = field(default_factory=list)  # rows: gold, columns: predicted


def classification_report(
    gold: Sequence[str], pred: Sequence[str], labels: Sequence[str]
) -> ClassificationReport:
    """Accuracy, macro-F1 over the labels present in gold, per-label precision/recall/F1, confusion matrix."""
    if len(gold) != len(pred):
        raise ValueError("gold and predictions differ in length")
    index = {label: i for i, label in enumerate(labels)}
    confusion = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, pred, strict=True):
        confusion[index[g]][index[p]] += 1
    per_label: dict[str, dict[str, float]] = {}
    f1s = []
    for label, i in index.items():
        tp = confusion[i][i]
        support = sum(confusion[i])
        predicted = sum(row[i] for row in confusion)
        precision = tp / predicted if predicted else 0.0
        recall = tp / support if support else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_label[label] = {"precision": precision, "recall": recall, "f1": f1, "support": support}
        if support:
            f1s.append(f1)
    n = len(gold)
    accuracy = sum(g == p for g, p in zip(gold, pred, strict=True)) / n if n else 0.0
    return ClassificationReport(
        list(labels), n, accuracy, sum(f1s) / len(f1s) if f1s else 0.0, per_label, confusion
    )


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile, q in [0, 1]."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]
