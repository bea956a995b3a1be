"""Rendering of a `csreply eval router` result: the console summary, a Markdown report, the confusion PNG."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from serve.evaluation.plots import histograms_png, horizontal_bars_png, pyplot


def save_confusion_png(result: dict[str, Any], path: Path, title: str) -> None:
    plt = pyplot()
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
                ax.text(
                    j,
                    i,
                    str(int(matrix[i, j])),
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="white" if rows[i, j] > 0.5 else "black",
                )
    fig.colorbar(image, ax=ax, fraction=0.04)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def save_report_plots(result: dict[str, Any], report: Path) -> dict[str, Path]:
    """Per-intent F1 bars (worst first) and the latency histogram, beside the report OUT.md as OUT.f1.png
    and OUT.latency.png; the histogram only when the result kept its latency samples."""
    paths = {"f1": report.with_suffix(".f1.png")}
    ranked = sorted(result["per_intent"].items(), key=lambda kv: kv[1]["f1"])
    horizontal_bars_png(
        paths["f1"],
        {name: v["f1"] for name, v in ranked},
        f"{result['backend']}: F1 per intent (macro-F1 {result['macro_f1']:.3f})",
        "F1",
    )
    values = result["latency_ms"].get("values")
    if values:
        paths["latency"] = report.with_suffix(".latency.png")
        histograms_png(
            paths["latency"],
            [(f"{result['backend']}: one message at a time", "ms", {result["backend"]: values})],
            bins=30,
            ylabel="messages",
        )
    return paths


def _oos(part: dict[str, Any]) -> str:
    bits = []
    for key, name in (("out_of_scope_precision", "OOS P"), ("out_of_scope_recall", "OOS R")):
        if key in part:
            bits.append(f"{name} {part[key]:.4f}")
    return ("  " + "  ".join(bits)) if bits else ""


def print_summary(result: dict[str, Any], out: Any = sys.stdout) -> None:
    lat = result["latency_ms"]
    print(
        f"{result['backend']:14} n={result['n']}  accuracy {result['accuracy']:.4f}  macro-F1 "
        f"{result['macro_f1']:.4f}  uncertain {result['uncertain_rate']:.4f}  latency p50 "
        f"{lat['p50']:.2f} ms  p99 {lat['p99']:.2f} ms",
        file=out,
    )
    if "out_of_scope_recall" in result or "out_of_scope_precision" in result:
        print(f" {_oos(result)}", file=out)
    for lang, part in result.get("per_lang", {}).items():
        print(
            f"  {lang}: n={part['n']}  accuracy {part['accuracy']:.4f}  macro-F1 {part['macro_f1']:.4f}",
            file=out,
        )
    for source, part in result.get("per_source", {}).items():
        print(
            f"  source {source}: n={part['n']}  accuracy {part['accuracy']:.4f}  macro-F1 "
            f"{part['macro_f1']:.4f}  uncertain {part['uncertain_rate']:.4f}{_oos(part)}",
            file=out,
        )
    for err in result.get("errors", [])[:5]:
        print(
            f"  confused {err['gold']} -> {err['predicted']}: {err['count']}  e.g. "
            f"{err['examples'][0]['text']!r}",
            file=out,
        )


def md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + [
        "| " + " | ".join(r) + " |" for r in rows
    ]


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.1f}"


def markdown_report(result: dict[str, Any], data: str) -> str:
    """The result as a Markdown page: headline, per language and source, per intent, worst confusions."""
    lat = result["latency_ms"]
    lines = [f"# Router evaluation: `{result['backend']}` on `{data}`", ""]
    lines += md_table(
        ["n", "accuracy", "macro-F1", "uncertain", "OOS precision", "OOS recall", "p50 ms", "p99 ms"],
        [
            [
                str(result["n"]),
                _pct(result["accuracy"]),
                _pct(result["macro_f1"]),
                _pct(result["uncertain_rate"]),
                _pct(result.get("out_of_scope_precision")),
                _pct(result.get("out_of_scope_recall")),
                f"{lat['p50']:.2f}",
                f"{lat['p99']:.2f}",
            ]
        ],
    )
    for key, title in (("per_lang", "language"), ("per_source", result.get("source_field") or "source")):
        parts = result.get(key) or {}
        if not parts:
            continue
        lines += ["", f"## By {title}", ""]
        lines += md_table(
            [title, "n", "accuracy", "macro-F1", "uncertain", "OOS precision", "OOS recall"],
            [
                [
                    name,
                    str(p["n"]),
                    _pct(p["accuracy"]),
                    _pct(p["macro_f1"]),
                    _pct(p.get("uncertain_rate")),
                    _pct(p.get("out_of_scope_precision")),
                    _pct(p.get("out_of_scope_recall")),
                ]
                for name, p in parts.items()
            ],
        )
    lines += ["", "## By intent", ""]
    lines += md_table(
        ["intent", "support", "precision", "recall", "F1"],
        [
            [name, str(int(v["support"])), _pct(v["precision"]), _pct(v["recall"]), _pct(v["f1"])]
            for name, v in sorted(result["per_intent"].items(), key=lambda kv: kv[1]["f1"])
        ],
    )
    if result.get("errors"):
        lines += ["", "## Worst confusions (gold -> predicted)", ""]
        for err in result["errors"]:
            lines.append(f"- **{err['gold']} -> {err['predicted']}**: {err['count']}")
            for ex in err["examples"]:
                flag = ", uncertain" if ex["uncertain"] else ""
                text = ex["text"].replace("|", "\\|").replace("\n", " ")
                lines.append(f"  - `{text}` ({ex['confidence']:.2f}{flag})")
    for key, title in (
        ("confusion_png", "confusion matrix"),
        ("f1_png", "F1 per intent"),
        ("latency_png", "latency"),
    ):
        if result.get(key):
            lines += ["", f"![{title}]({Path(result[key]).name})"]
    return "\n".join(lines) + "\n"
