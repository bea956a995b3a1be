"""The offline A/B gate: side-by-side metrics and a non-zero exit on a planted regression."""

from __future__ import annotations

import json

import pytest

from serve.cli import main
from serve.evaluation.compare import REPLY_METRICS, ROUTER_METRICS, compare
from serve.evaluation.datasets import Example
from serve.evaluation.reply_summary import summarize
from serve.evaluation.router_eval import Prediction, score

ROUTER_A = {
    "accuracy": 0.95,
    "macro_f1": 0.94,
    "per_lang": {"en": {"macro_f1": 0.96}, "zh": {"macro_f1": 0.93}},
    "uncertain_rate": 0.05,
}


def test_an_equal_or_better_b_passes() -> None:
    better = {**ROUTER_A, "accuracy": 0.951, "uncertain_rate": 0.04}
    result = compare(ROUTER_A, better, ROUTER_METRICS)
    assert result.passed
    assert {r.metric for r in result.rows} == {
        "accuracy",
        "macro_f1",
        "per_lang.en.macro_f1",
        "per_lang.zh.macro_f1",
        "uncertain_rate",
    }


def test_a_drop_beyond_the_threshold_fails_and_one_within_it_passes() -> None:
    within = {**ROUTER_A, "per_lang": {"en": {"macro_f1": 0.956}, "zh": {"macro_f1": 0.93}}}  # -0.4 points
    assert compare(ROUTER_A, within, ROUTER_METRICS).passed
    beyond = {**ROUTER_A, "per_lang": {"en": {"macro_f1": 0.954}, "zh": {"macro_f1": 0.93}}}  # -0.6 points
    result = compare(ROUTER_A, beyond, ROUTER_METRICS)
    assert [r.metric for r in result.regressions] == ["per_lang.en.macro_f1"]


def test_lower_is_better_metrics_regress_when_they_rise() -> None:
    a = {"generated": {"repetition_rate": 0.01}, "chrf": 30.0}
    result = compare(a, {"generated": {"repetition_rate": 0.03}, "chrf": 30.2}, REPLY_METRICS)
    assert [r.metric for r in result.regressions] == ["generated.repetition_rate"]
    assert compare(
        a, {"generated": {"repetition_rate": 0.01}, "chrf": 29.6}, REPLY_METRICS
    ).passed  # chrF -0.4
    assert not compare(a, {"generated": {"repetition_rate": 0.01}, "chrf": 29.0}, REPLY_METRICS).passed


def test_the_gates_read_the_keys_the_evaluations_write() -> None:
    """Every compared metric names a key `csreply eval router` / `eval replies` actually write."""
    examples = [
        Example("where is my parcel", "order_tracking", "en"),
        Example("weather?", "out_of_scope", "en"),
    ]
    router = score(examples, [Prediction("order_tracking", 0.9, False), Prediction("refund", 0.6, True)])
    assert {r.metric for r in compare(router, router, ROUTER_METRICS).rows} >= {
        "accuracy",
        "out_of_scope_recall",
        "out_of_scope_precision",
        "uncertain_rate",
    }
    row = {
        "route": "llm",
        "domain": "telecom",
        "lang": "en",
        "has_context": False,
        "meta": {},
        "reply": "Hi.",
        "language_match": True,
        "repetition": False,
        "has_unsupported_fact": True,
        "sentences": 1,
        "complete": True,
        "chrf": 40.0,
    }
    replies = summarize([row], [10.0])
    keys = {r.metric for r in compare(replies, replies, REPLY_METRICS).rows}
    assert {
        "generated.repetition_rate",
        "generated.unsupported_fact_rate",
        "generated.cut_mid_sentence_rate",
        "chrf",
        "language_match",
    } <= keys


def test_the_reply_gate_links_both_evaluation_reports(tmp_path) -> None:
    a, b, report = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "gate.md"
    a.write_text(json.dumps({"language_match": 1.0, "report": "runs/a.md"}))
    b.write_text(json.dumps({"language_match": 1.0, "report": "runs/b.md"}))
    assert (
        main(["eval", "compare", "files", str(a), str(b), "--kind", "replies", "--report", str(report)]) == 0
    )
    assert "Full reports: [a](runs/a.md), [b](runs/b.md)." in report.read_text()


def test_results_without_common_metrics_are_refused() -> None:
    with pytest.raises(ValueError, match="share none"):
        compare({"x": 1}, {"y": 2}, ROUTER_METRICS)


def test_cli_compares_two_saved_results_and_exits_1_on_a_planted_regression(tmp_path, capsys) -> None:
    a, b, worse = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "worse.json"
    a.write_text(json.dumps(ROUTER_A))
    b.write_text(json.dumps(ROUTER_A))
    worse.write_text(json.dumps({**ROUTER_A, "macro_f1": 0.92}))
    report = tmp_path / "report.md"
    assert (
        main(["eval", "compare", "files", str(a), str(b), "--kind", "router", "--report", str(report)]) == 0
    )
    assert "pass" in report.read_text()
    out_json = tmp_path / "gate.json"
    assert (
        main(["eval", "compare", "files", str(a), str(worse), "--kind", "router", "--json", str(out_json)])
        == 1
    )
    gate = json.loads(out_json.read_text())
    assert gate["passed"] is False and gate["regressions"] == ["macro_f1"]
    assert "REGRESSION" in capsys.readouterr().out
