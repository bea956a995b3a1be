"""Bench reports: a table on screen, JSON (stable keys), Markdown, and PNG plots against load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

COLUMNS = (
    ("load", 8),
    ("req", 6),
    ("err", 5),
    ("req/s", 8),
    ("out tok/s", 10),
    ("TTFT p50", 9),
    ("TTFT p99", 9),
    ("ITL p50", 8),
    ("ITL p99", 8),
    ("E2E p50", 9),
    ("E2E p99", 9),
    ("tok/req", 8),
)


def load_label(point: dict[str, Any]) -> str:
    return f"{point['rate']:g}/s" if point.get("rate") else str(point["concurrency"])


def _fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def rows(points: list[dict[str, Any]]) -> list[list[str]]:
    return [
        [
            load_label(p),
            str(p["requests"]),
            str(p["errors"]),
            _fmt(p["requests_per_s"], 2),
            _fmt(p["output_tok_s"]),
            _fmt(p["ttft_ms"]["p50"]),
            _fmt(p["ttft_ms"]["p99"]),
            _fmt(p["itl_ms"]["p50"], 2),
            _fmt(p["itl_ms"]["p99"], 2),
            _fmt(p["e2e_ms"]["p50"], 0),
            _fmt(p["e2e_ms"]["p99"], 0),
            _fmt(p["output_tokens_mean"]),
        ]
        for p in points
    ]


def table(points: list[dict[str, Any]]) -> str:
    lines = ["".join(f"{name:>{width}}" for name, width in COLUMNS)]
    lines += [
        "".join(f"{cell:>{width}}" for cell, (_, width) in zip(row, COLUMNS, strict=True))
        for row in rows(points)
    ]
    return "\n".join(lines)


def markdown(result: dict[str, Any], plot: Path | None) -> str:
    cfg = result["config"]
    head = "| " + " | ".join(name for name, _ in COLUMNS) + " |"
    lines = [
        f"# csreply bench: {cfg['endpoint']} at {cfg['url']}",
        "",
        f"{result['started_at']} · model `{cfg.get('model') or '-'}` · {cfg['workload']} · "
        f"{cfg['requests_note']} · ignore_eos {'sent' if cfg['ignore_eos'] else 'not sent'}",
        "",
        "Times in ms (TTFT: first content; ITL: gap between content events; E2E: whole request); "
        "throughput counts completed requests only.",
        "",
        head,
        "|" + "---|" * len(COLUMNS),
        *("| " + " | ".join(row) + " |" for row in rows(result["points"])),
    ]
    short = [
        p for p in result["points"] if p["output_tokens_mean"] < 0.95 * p["output_tokens_requested_mean"]
    ]
    if short:
        lines += [
            "",
            f"Note: at {', '.join(load_label(p) for p in short)} requests returned fewer tokens than "
            "asked (the server stopped early: end of sequence or a limit), so tok/s compares less directly.",
        ]
    errors = [f"{load_label(p)}: {'; '.join(p['error_examples'])}" for p in result["points"] if p["errors"]]
    if errors:
        lines += ["", "Errors: " + " · ".join(errors)]
    if plot is not None:
        lines += ["", f"![latency and throughput]({plot.name})"]
    return "\n".join(lines) + "\n"


def plot(points: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_rate = bool(points and points[0].get("rate"))
    x = [p["rate"] if by_rate else p["concurrency"] for p in points]
    fig, (lat, thr) = plt.subplots(1, 2, figsize=(11, 4.2))
    for key, label in (("ttft_ms", "TTFT"), ("itl_ms", "ITL"), ("e2e_ms", "E2E")):
        for pct, style in (("p50", "-o"), ("p99", "--x")):
            ys = [p[key][pct] for p in points]
            if any(y is not None for y in ys):
                lat.plot(x, [float("nan") if y is None else y for y in ys], style, label=f"{label} {pct}")
    lat.set_yscale("log")
    lat.set_ylabel("ms")
    lat.set_title("latency")
    thr.plot(x, [p["output_tok_s"] for p in points], "-o", color="tab:green", label="output tok/s")
    thr.set_ylabel("output tokens/s")
    thr.set_title("throughput")
    rps = thr.twinx()
    rps.plot(x, [p["requests_per_s"] for p in points], "--s", color="tab:purple", label="requests/s")
    rps.set_ylabel("requests/s")
    for ax in (lat, thr):
        ax.set_xlabel("request rate (req/s)" if by_rate else "concurrency")
        if len(x) > 1 and min(x) > 0:
            ax.set_xscale("log", base=2)
        ax.grid(True, alpha=0.3)
    if lat.get_legend_handles_labels()[0]:
        lat.legend(fontsize=7)
    thr.legend(loc="upper left", fontsize=7)
    rps.legend(loc="lower right", fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write(
    result: dict[str, Any], json_path: Path | None, md_path: Path | None, png_path: Path | None
) -> None:
    if json_path is not None:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(result, indent=2) + "\n")
    if png_path is not None:
        png_path.parent.mkdir(parents=True, exist_ok=True)
        plot(result["points"], png_path, f"{result['config']['endpoint']} · {result['config']['url']}")
    if md_path is not None:
        md_path.parent.mkdir(parents=True, exist_ok=True)
        md_path.write_text(markdown(result, png_path))
