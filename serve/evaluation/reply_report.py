"""The Markdown report of a `csreply eval replies` run, with its PNG plots: a headline table, breakdowns
per route, domain x language and metadata field (`source`, `brand`, ...), the worst cases of every failed
check, and plots of reply time, the main checks per route and reply length.

Input is what `--json` holds: the summary of serve/evaluation/reply_summary.py plus `cases` (the scored
rows, in case order)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from serve.evaluation.plots import grouped_bars_png, histograms_png
from serve.evaluation.router_report import md_table

Row = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Check:
    name: str  # as the report names it
    applies: Callable[[Row], bool]
    failed: Callable[[Row], bool]
    detail: Callable[[Row], str]


def _has(key: str) -> Callable[[Row], bool]:
    return lambda r: key in r


# In the order a lead reads them: broken runs first, then what a customer would notice most.
CHECKS = (
    Check("error", lambda r: True, lambda r: bool(r.get("error")), lambda r: str(r.get("error", ""))[:160]),
    Check(
        "handoff",
        _has("handoff_ok"),
        lambda r: not r["handoff_ok"],
        lambda r: f"handoff {'offered' if r['handoff'] else 'not offered'}, expected the opposite",
    ),
    Check(
        "language",
        _has("language_match"),
        lambda r: not r["language_match"],
        lambda r: f"reply is not in `{r['lang']}`",
    ),
    Check(
        "canned verbatim",
        _has("canned_verbatim_ok"),
        lambda r: not r["canned_verbatim_ok"],
        lambda r: f"canned reply of `{r['intent']}` altered",
    ),
    Check(
        "must_include",
        _has("must_include_ok"),
        lambda r: not r["must_include_ok"],
        lambda r: "missing " + ", ".join(f"`{s}`" for s in r.get("must_include_missing", [])),
    ),
    Check(
        "must_not_include",
        _has("must_not_include_ok"),
        lambda r: not r["must_not_include_ok"],
        lambda r: "contains a forbidden string",
    ),
    Check(
        "unsupported fact",
        _has("has_unsupported_fact"),
        lambda r: bool(r["has_unsupported_fact"]),
        lambda r: "states " + ", ".join(f"`{f}`" for f in r.get("unsupported_facts", [])),
    ),
    Check("repetition", _has("repetition"), lambda r: bool(r["repetition"]), lambda r: "repeats itself"),
    Check(
        "cut mid-sentence",
        _has("complete"),
        lambda r: not r["complete"],
        lambda r: f"finish reason `{r.get('finish_reason')}`",
    ),
    Check(
        "intent",
        _has("intent_ok"),
        lambda r: not r["intent_ok"],
        lambda r: f"routed as `{r['intent']}`, expected `{r.get('intent_expected')}`",
    ),
)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def _num(value: float | None, fmt: str = ",.0f") -> str:
    return "n/a" if value is None else format(value, fmt)


def _excerpt(text: str, limit: int) -> str:
    flat = " ".join(str(text).split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def worst_cases(rows: list[Row], per_check: int) -> list[dict[str, Any]]:
    """Every check some case failed: how many of the cases it applies to failed, and up to `per_check` of
    them, lowest chrF first (the reply furthest from its reference), then in file order."""
    out = []
    for check in CHECKS:
        applies = [(i, r) for i, r in enumerate(rows) if check.applies(r)]
        failed = [(i, r) for i, r in applies if check.failed(r)]
        if not failed:
            continue
        failed.sort(key=lambda ir: (ir[1].get("chrf", float("inf")), ir[0]))
        out.append(
            {
                "check": check.name,
                "failed": len(failed),
                "of": len(applies),
                "cases": [
                    {
                        "index": i,
                        "message": r["message"],
                        "reply": r["reply"],
                        "route": r.get("route"),
                        "domain": r["domain"],
                        "lang": r["lang"],
                        "detail": check.detail(r),
                    }
                    for i, r in failed[:per_check]
                ],
            }
        )
    return out


_ONE = {"cases": "case", "llm replies": "llm reply", "references": "reference"}


def _headline(summary: dict[str, Any], rows: list[Row]) -> list[list[str]]:
    generated = summary["generated"]
    llm = [r for r in rows if r.get("route") == "llm"]

    def over(key: str, among: list[Row], what: str) -> str:
        n = sum(1 for r in among if key in r)
        return f"{n} {_ONE.get(what, what) if n == 1 else what}"

    lines = [
        ["language match", _pct(summary["language_match"]), over("language_match", rows, "cases")],
        ["handoff accuracy", _pct(summary["handoff_accuracy"]), over("handoff_ok", rows, "cases")],
        ["intent accuracy", _pct(summary["intent_accuracy"]), over("intent_ok", rows, "cases")],
        [
            "canned text verbatim",
            _pct(summary["canned_verbatim_rate"]),
            over("canned_verbatim_ok", rows, "cases"),
        ],
        ["must_include met", _pct(summary["must_include_rate"]), over("must_include_ok", rows, "cases")],
        [
            "must_not_include respected",
            _pct(summary["must_not_include_rate"]),
            over("must_not_include_ok", rows, "cases"),
        ],
        [
            "repetition (generated)",
            _pct(generated["repetition_rate"]),
            over("repetition", llm, "llm replies"),
        ],
        [
            "unsupported facts (generated)",
            _pct(generated["unsupported_fact_rate"]),
            over("has_unsupported_fact", llm, "llm replies"),
        ],
        [
            "cut mid-sentence (generated)",
            _pct(generated["cut_mid_sentence_rate"]),
            over("complete", llm, "llm replies"),
        ],
    ]
    # a stated-fact rate (the asked fact stated) is reported by summaries that measure it
    for key in ("stated_fact_rate",):
        if summary.get(key) is not None:
            lines.append([key.replace("_", " "), _pct(summary[key]), ""])
    lines += [
        ["chrF vs reference", _num(summary["chrf"], ".1f"), over("chrf", rows, "references")],
        [
            "median sentences (generated)",
            _num(generated["median_sentences"], ".1f"),
            over("sentences", llm, "llm replies"),
        ],
        [
            "reply time p50 / p90",
            f"{_num(summary['latency_ms']['p50'])} / {_num(summary['latency_ms']['p90'])} ms",
            over("latency_ms", rows, "cases"),
        ],
        [
            "reply time p50 / p90 (generated)",
            f"{_num(generated['median_latency_ms'])} / {_num(generated['p90_latency_ms'])} ms",
            over("latency_ms", llm, "llm replies"),
        ],
    ]
    if summary.get("ttft_ms"):
        ttft = summary["ttft_ms"]
        lines.append(
            [
                "first words (TTFT) p50 / p90",
                f"{_num(ttft['p50'])} / {_num(ttft['p90'])} ms",
                over("ttft_ms", rows, "cases"),
            ]
        )
        lines.append(
            [
                "first words (TTFT) p50 / p90 (generated)",
                f"{_num(generated['median_ttft_ms'])} / {_num(generated['p90_ttft_ms'])} ms",
                over("ttft_ms", llm, "llm replies"),
            ]
        )
    return lines


_GROUP_HEADER = [
    "n",
    "llm",
    "language",
    "handoff",
    "must_include",
    "must_not",
    "canned",
    "repetition",
    "unsupported",
    "cut",
    "sentences",
    "chrF",
    "p50 ms",
]


def _group_table(title: str, groups: dict[str, dict[str, Any]]) -> list[str]:
    return md_table(
        [title, *_GROUP_HEADER],
        [
            [
                name,
                str(m["n"]),
                str(m.get("routes", {}).get("llm", 0)),
                _pct(m["language_match"]),
                _pct(m.get("handoff_accuracy")),
                _pct(m["must_include_rate"]),
                _pct(m.get("must_not_include_rate")),
                _pct(m.get("canned_verbatim_rate")),
                _pct(m["repetition_rate"]),
                _pct(m["unsupported_fact_rate"]),
                _pct(m["cut_mid_sentence_rate"]),
                _num(m["median_sentences"], ".1f"),
                _num(m["chrf"], ".1f"),
                _num(m["median_latency_ms"]),
            ]
            for name, m in groups.items()
            if m["n"]
        ],
    )


def plot_paths(report: Path) -> dict[str, Path]:
    """The PNGs beside a report OUT.md: OUT.times.png, OUT.routes.png, OUT.sentences.png."""
    return {name: report.with_suffix(f".{name}.png") for name in ("times", "routes", "sentences")}


def save_plots(summary: dict[str, Any], rows: list[Row], paths: dict[str, Path]) -> None:
    routes = sorted({str(r.get("route")) for r in rows})

    def by_route(key: str, scale: float = 1.0) -> dict[str, list[float]]:
        return {
            route: [r[key] * scale for r in rows if str(r.get("route")) == route and key in r]
            for route in routes
        }

    panels = [("reply time", "seconds", by_route("latency_ms", 1e-3))]
    if any("ttft_ms" in r for r in rows):
        panels.append(("time to first words (TTFT)", "seconds", by_route("ttft_ms", 1e-3)))
    histograms_png(paths["times"], panels)
    measures = (
        ("language", "language_match"),
        ("must_include", "must_include_rate"),
        ("handoff", "handoff_accuracy"),
        ("repetition", "repetition_rate"),
        ("unsupported", "unsupported_fact_rate"),
        ("cut", "cut_mid_sentence_rate"),
    )
    bars = {
        route: {label: 100 * m[key] for label, key in measures if m.get(key) is not None}
        for route, m in summary["per_route"].items()
        if m["n"]
    }
    grouped_bars_png(
        paths["routes"],
        bars,
        "checks per route (language, must_include, handoff: higher is better; the rest: lower)",
        "% of the route's cases",
        [label for label, _ in measures],
    )
    most = max([r["sentences"] for r in rows if "sentences" in r], default=1)
    histograms_png(
        paths["sentences"],
        [("reply length", "sentences", by_route("sentences"))],
        bins=[b - 0.5 for b in range(most + 2)],
    )


def markdown_report(
    output: dict[str, Any], data: str, images: dict[str, Path] | None = None, worst_per_check: int = 3
) -> str:
    """The run as a Markdown page; `output` is what --json holds (summary and `cases`)."""
    rows: list[Row] = output.get("cases", [])
    routes = ", ".join(f"{route} {n}" for route, n in output["routes"].items())
    lines = [
        f"# Reply evaluation: `{data}`",
        "",
        f"{output['n']} cases (routes: {routes}); {output['errors']} failed to answer. "
        '"Generated" figures count the `llm` route only; canned and template replies are fixed text.',
        "",
    ]
    lines += md_table(["figure", "value", "over"], _headline(output, rows))
    lines += ["", "## By route", ""] + _group_table("route", output["per_route"])
    lines += ["", "## By domain and language", ""] + _group_table("domain / lang", output["per_domain_lang"])
    for field, groups in output.get("per_meta", {}).items():
        lines += ["", f"## By {field}", ""] + _group_table(field, groups)
    if output["generated"]["n"]:
        lines += ["", "## Generated replies with and without customer context", ""]
        lines += _group_table(
            "context",
            {
                ("with context" if k == "True" else "without context"): v
                for k, v in output["per_context"].items()
            },
        )
        reasons = ", ".join(f"{k} {v}" for k, v in output["generated"]["finish_reasons"].items())
        lines += ["", f"Finish reasons of generated replies: {reasons}."]
    worst = worst_cases(rows, worst_per_check)
    if worst:
        lines += ["", "## Worst cases per failed check", ""]
        for item in worst:
            lines += [f"### {item['check']}: {item['failed']} of {item['of']} failed", ""]
            for case in item["cases"]:
                lines.append(
                    f"- case {case['index']} ({case['route']}, {case['domain']}/{case['lang']}): "
                    f"{case['detail']}"
                )
                lines.append(f"  - message: {_excerpt(case['message'], 160)}")
                lines.append(f"  - reply: {_excerpt(case['reply'], 240) or '(empty)'}")
            lines.append("")
    if images:
        lines += ["## Plots", ""] if worst else ["", "## Plots", ""]
        lines += [f"![{name}]({path.name})" for name, path in images.items()]
    return "\n".join(lines).rstrip("\n") + "\n"


def write_report(
    output: dict[str, Any], data: str, report: Path, worst_per_check: int = 3
) -> dict[str, Path]:
    """The Markdown report at `report` and its PNGs beside it; returns the PNGs' paths."""
    report.parent.mkdir(parents=True, exist_ok=True)
    images = plot_paths(report)
    save_plots(output, output.get("cases", []), images)
    report.write_text(markdown_report(output, data, images, worst_per_check), encoding="utf-8")
    return images
