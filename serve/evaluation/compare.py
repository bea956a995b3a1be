"""`csreply eval compare`: two configurations on the same data, side by side, and a gate.

The offline A/B gate operators run before switching builds: every quality metric of B is set beside A's,
and the command exits 1 when any of them is worse by more than the threshold (default 0.5 points, the
field's usual rule for an INT8 build). Rates count in percentage points; chrF is already on a 0-100 scale.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

DEFAULT_THRESHOLD_POINTS = 0.5


@dataclass(frozen=True, slots=True)
class Metric:
    key: str  # dotted path into the evaluation's JSON, e.g. "per_lang.zh.macro_f1"
    higher_is_better: bool = True
    points: float = 100.0  # multiplier that turns the value into points (rates 0-1 -> 100; chrF -> 1)


ROUTER_METRICS = (
    Metric("accuracy"),
    Metric("macro_f1"),
    Metric("per_lang.en.macro_f1"),
    Metric("per_lang.zh.macro_f1"),
    Metric("out_of_scope_recall"),
    Metric("out_of_scope_precision"),
    Metric("uncertain_rate", higher_is_better=False),
)
REPLY_METRICS = (
    Metric("language_match"),
    Metric("handoff_accuracy"),
    Metric("must_include_rate"),
    Metric("must_not_include_rate"),
    Metric("canned_verbatim_rate"),
    Metric("intent_accuracy"),
    Metric("chrf", points=1.0),
    # text quality is measured on generated (`llm` route) replies; canned and template text is fixed
    Metric("generated.repetition_rate", higher_is_better=False),
    Metric("generated.unsupported_fact_rate", higher_is_better=False),
    Metric("generated.cut_mid_sentence_rate", higher_is_better=False),
)


@dataclass(frozen=True, slots=True)
class Row:
    metric: str
    a: float
    b: float
    delta_points: float  # b - a, in points; positive = b is better
    regression: bool


@dataclass(frozen=True, slots=True)
class Comparison:
    a_name: str
    b_name: str
    threshold_points: float
    rows: tuple[Row, ...]

    @property
    def regressions(self) -> list[Row]:
        return [r for r in self.rows if r.regression]

    @property
    def passed(self) -> bool:
        return not self.regressions

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a_name,
            "b": self.b_name,
            "threshold_points": self.threshold_points,
            "passed": self.passed,
            "regressions": [r.metric for r in self.regressions],
            "rows": [asdict(r) for r in self.rows],
        }


def lookup(result: dict[str, Any], key: str) -> float | None:
    value: Any = result
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def compare(
    a: dict[str, Any],
    b: dict[str, Any],
    metrics: tuple[Metric, ...],
    a_name: str = "A",
    b_name: str = "B",
    threshold_points: float = DEFAULT_THRESHOLD_POINTS,
) -> Comparison:
    """Every metric both results carry; a regression is B worse than A by more than the threshold."""
    rows = []
    for metric in metrics:
        va, vb = lookup(a, metric.key), lookup(b, metric.key)
        if va is None or vb is None:
            continue
        gain = (vb - va) * metric.points * (1 if metric.higher_is_better else -1)
        rows.append(Row(metric.key, va, vb, round(gain, 4), gain < -threshold_points))
    if not rows:
        raise ValueError("the two results share none of the compared metrics")
    return Comparison(a_name, b_name, threshold_points, tuple(rows))


def markdown(result: Comparison, reports: tuple[str | None, str | None] = (None, None)) -> str:
    """The comparison as Markdown; `reports` links each side's own evaluation report where it wrote one."""
    links = [
        f"[{name}]({path})"
        for name, path in zip((result.a_name, result.b_name), reports, strict=True)
        if path
    ]
    lines = [
        f"# {result.a_name} vs {result.b_name}",
        "",
        f"Gate: no metric may be worse by more than {result.threshold_points} points. "
        f"Result: **{'pass' if result.passed else 'FAIL'}**.",
        "",
        *([f"Full reports: {', '.join(links)}.", ""] if links else []),
        f"| metric | {result.a_name} | {result.b_name} | change (points, + = better) | |",
        "|---|---|---|---|---|",
    ]
    for row in result.rows:
        lines.append(
            f"| {row.metric} | {row.a:.4f} | {row.b:.4f} | {row.delta_points:+.2f} | "
            f"{'regression' if row.regression else ''} |"
        )
    return "\n".join(lines) + "\n"


def print_table(result: Comparison) -> None:
    width = max(len(r.metric) for r in result.rows)
    print(f"{'metric':{width}}  {result.a_name:>12}  {result.b_name:>12}  change(pts)")
    for row in result.rows:
        flag = "  REGRESSION" if row.regression else ""
        print(f"{row.metric:{width}}  {row.a:12.4f}  {row.b:12.4f}  {row.delta_points:+10.2f}{flag}")
    verdict = "pass" if result.passed else f"FAIL: {', '.join(r.metric for r in result.regressions)}"
    print(f"gate (threshold {result.threshold_points} points): {verdict}")


def finish(
    result: Comparison,
    json_out: Path | None,
    report: Path | None,
    reports: tuple[str | None, str | None] = (None, None),
) -> int:
    """Print, write the JSON and the Markdown report; the exit status of the gate."""
    print_table(result)
    for name, path in zip((result.a_name, result.b_name), reports, strict=True):
        if path:
            print(f"report of {name}: {path}")
    if json_out is not None:
        json_out.write_text(json.dumps(result.to_json(), indent=2) + "\n")
    if report is not None:
        report.write_text(markdown(result, reports))
    return 0 if result.passed else 1


def load_result(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a readable evaluation JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object written by `csreply eval ... --json`")
    return data
