"""`csreply eval router`: worst confusions, per-source breakdown, OOS precision/recall, Markdown report, and
evaluation of sets labelled in another scheme through a label-mapping CSV."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from serve.cli import main
from serve.evaluation.datasets import Example
from serve.evaluation.label_mapping import load_label_mapping, load_mapped_jsonl
from serve.evaluation.router_eval import Prediction, score


def _ex(text: str, intent: str, source: str = "") -> Example:
    return Example(text, intent, "en", source)


def test_score_ranks_confusions_and_breaks_down_by_source() -> None:
    examples = [
        _ex("a", "refund", "shop"),
        _ex("b", "refund", "shop"),
        _ex("c", "refund", "bank"),
        _ex("d", "out_of_scope", "bank"),
        _ex("e", "out_of_scope", "bank"),
        _ex("f", "order_tracking", "shop"),
    ]
    preds = [
        Prediction("billing_dispute", 0.6, False),
        Prediction("billing_dispute", 0.9, False),
        Prediction("refund", 0.8, False),
        Prediction("refund", 0.7, True),
        Prediction("out_of_scope", 0.9, False),
        Prediction("out_of_scope", 0.5, True),
    ]
    result = score(examples, preds, errors=5)
    assert result["accuracy"] == pytest.approx(2 / 6)
    top = result["errors"][0]
    assert (top["gold"], top["predicted"], top["count"]) == ("refund", "billing_dispute", 2)
    assert [e["text"] for e in top["examples"]] == ["b", "a"]  # most confident mistake first
    assert {(e["gold"], e["predicted"]) for e in result["errors"]} == {
        ("refund", "billing_dispute"),
        ("out_of_scope", "refund"),
        ("order_tracking", "out_of_scope"),
    }
    assert result["out_of_scope_recall"] == pytest.approx(0.5)
    assert result["out_of_scope_precision"] == pytest.approx(0.5)
    assert result["uncertain_rate"] == pytest.approx(2 / 6)
    assert result["per_source"]["shop"]["accuracy"] == 0.0
    assert result["per_source"]["bank"]["accuracy"] == pytest.approx(2 / 3)
    assert result["per_source"]["bank"]["out_of_scope_recall"] == pytest.approx(0.5)


def test_no_source_field_means_no_source_breakdown() -> None:
    result = score([_ex("a", "refund")], [Prediction("refund", 0.9, False)], errors=3)
    assert "per_source" not in result and result["errors"] == []


def _mapping_csv(tmp_path: Path) -> Path:
    path = tmp_path / "map.csv"
    path.write_text(
        "dataset,source_label,target_intent,note\n"
        "shop,where_is_it,order_tracking,\n"
        "shop,money_back,refund,\n"
        "shop,either,order_tracking or refund,ambiguous: skipped\n"
        "shop,*all other labels*,out_of_scope,\n"
        "bank,money_back,billing_dispute,\n"
    )
    return path


def test_label_mapping_maps_skips_and_falls_back(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    rows = [
        {"text": "where is it", "label": "where_is_it"},
        {"text": "money pls", "label": "money_back"},
        {"text": "hmm", "label": "either"},
        {"text": "weather?", "label": "weather"},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    examples = load_mapped_jsonl(data, load_label_mapping(_mapping_csv(tmp_path), "shop"), source="shop")
    assert [(e.text, e.intent) for e in examples] == [
        ("where is it", "order_tracking"),
        ("money pls", "refund"),
        ("weather?", "out_of_scope"),
    ]
    assert {e.source for e in examples} == {"shop"}
    with pytest.raises(ValueError, match="3 labels are not in the label mapping: either .*where_is_it"):
        load_mapped_jsonl(data, load_label_mapping(_mapping_csv(tmp_path), "bank"))


def test_cli_writes_errors_sources_and_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "set.jsonl"
    rows = [
        ("where is my parcel", "where_is_it", "a"),
        ("I want my money back for the order", "money_back", "a"),
        ("what's the weather in paris", "weather", "b"),
        ("hello there", "hi", "b"),
    ]
    data.write_text(
        "".join(json.dumps({"text": t, "source_label": lab, "source": s}) + "\n" for t, lab, s in rows)
    )
    out = tmp_path / "r.json"
    code = main(
        [
            "eval",
            "router",
            "--data",
            str(data),
            "--backend",
            "rules",
            "--label-map",
            str(_mapping_csv(tmp_path)),
            "--dataset",
            "shop",
            "--label-field",
            "source_label",
            "--json",
            str(out),
            "--errors",
            "2",
            "--latency-samples",
            "2",
        ]
    )
    assert code == 0
    result = json.loads(out.read_text())
    assert result["n"] == 4 and set(result["per_source"]) == {"a", "b"}
    assert len(result["errors"]) <= 2 and "out_of_scope_precision" in result
    report = out.with_suffix(".md").read_text()
    assert "## By source" in report and "## By intent" in report
    assert out.with_suffix(".confusion.png").is_file()
    assert len(result["latency_ms"]["values"]) == 2
    for suffix in (".f1.png", ".latency.png"):
        png = out.with_suffix(suffix)
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5_000
        assert f"]({png.name})" in report


def test_cli_breaks_down_by_another_field(tmp_path: Path) -> None:
    """`--by source_label`: accuracy per foreign label, the error analysis a mapped set needs."""
    data = tmp_path / "set.jsonl"
    rows = [
        ("where is my parcel", "where_is_it"),
        ("parcel where", "where_is_it"),
        ("I want my money back for the order", "money_back"),
        ("what's the weather in paris", "weather"),
    ]
    data.write_text(
        "".join(json.dumps({"text": t, "source_label": lab, "source": "x"}) + "\n" for t, lab in rows)
    )
    out = tmp_path / "r.json"
    code = main(
        [
            "eval",
            "router",
            "--data",
            str(data),
            "--backend",
            "rules",
            "--label-map",
            str(_mapping_csv(tmp_path)),
            "--dataset",
            "shop",
            "--label-field",
            "source_label",
            "--by",
            "source_label",
            "--json",
            str(out),
            "--latency-samples",
            "2",
        ]
    )
    assert code == 0
    result = json.loads(out.read_text())
    assert result["source_field"] == "source_label"
    assert set(result["per_source"]) == {"where_is_it", "money_back", "weather"}
    assert result["per_source"]["where_is_it"]["n"] == 2
    assert "## By source_label" in out.with_suffix(".md").read_text()
