"""The `csreply eval replies` report: hand-written replies scored by the real checks, summarised, and
rendered as Markdown plus PNGs."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from serve.evaluation.replies_eval import run_cases
from serve.evaluation.reply_cases import parse_case
from serve.evaluation.reply_report import markdown_report, worst_cases, write_report
from serve.evaluation.reply_summary import summarize
from serve.prompts import PromptLibrary


def _case(message: str, domain: str = "telecom", lang: str = "en", **extra: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": message}], "domain": domain, "lang": lang, **extra}


LIBRARY = PromptLibrary.load()
CANNED = LIBRARY.canned_reply("telecom", "en", "account_access")
# (case, reply, route, intent label, TTFT ms or None)
RUN = [
    (
        _case(
            "how much data do I have left?",
            context={"data_left": "3.2 GB"},
            must_include=["3.2 GB"],
            reference="You have 3.2 GB left this month.",
            source="team",
            brand="A",
        ),
        "You have 3.2 GB of data left this month.",
        "llm",
        "data_usage",
        310.0,
    ),
    (
        _case(
            "what is my balance",
            context={"balance": "$12.40"},
            must_include=["$12.40"],
            reference="Your balance is $12.40.",
            source="team",
            brand="B",
        ),
        "Your balance is available in the app. Your balance is available in the app. "
        "Your balance is available in the app. Your",
        "llm",
        "billing_question",
        290.0,
    ),
    (
        _case("where is my parcel", domain="ecommerce", reference="Your order is on its way.", source="real"),
        "Your order ships in 2 days.",
        "llm",
        "order_tracking",
        450.0,
    ),
    (
        _case("I can't log in", intent="account_access", source="real"),
        CANNED,
        "canned",
        "account_access",
        None,
    ),
    (
        _case("退货要多久", domain="ecommerce", lang="zh", expect_handoff=False, source="real"),
        "退货需要七天。",
        "template",
        "return_request",
        None,
    ),
]


def _scored(run: list[tuple[dict[str, Any], str, str, str, float | None]]) -> list[dict[str, Any]]:
    cases = [parse_case(case, f"case {i}") for i, (case, *_rest) in enumerate(run)]
    answers = {case.message: rest for case, (_c, *rest) in zip(cases, run, strict=True)}

    async def answer(case: Any) -> dict[str, Any]:
        reply, route, label, ttft = answers[case.message]
        response = {"reply": reply, "intent": {"label": label, "route": route}, "finish_reason": "stop"}
        return response if ttft is None else {**response, "timings": {"router_ms": 5.0, "ttft_ms": ttft}}

    rows, _ = asyncio.run(run_cases(cases, answer, LIBRARY, 2, None, progress=False))
    return rows


@pytest.fixture(scope="module")
def output() -> dict[str, Any]:
    rows = _scored(RUN)
    # reply times stand in for measured ones (the answers above return at once); TTFT comes from the run
    for row, ms in zip(rows, (1200.0, 900.0, 2500.0, 40.0, 35.0), strict=True):
        row["latency_ms"] = ms
    return {**summarize(rows, [r["latency_ms"] for r in rows]), "cases": rows}


def _row(markdown: str, first_cell: str) -> list[str]:
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no table row {first_cell!r}")


def _pct(value: float) -> str:
    return f"{100 * value:.1f} %"


def test_headline_and_tables_carry_the_summary_figures(output: dict[str, Any]) -> None:
    md = markdown_report(output, "cases.jsonl")
    generated = output["generated"]
    assert generated["n"] == 3 and 0 < generated["repetition_rate"] < 1
    assert _row(md, "language match")[1] == _pct(output["language_match"])
    assert _row(md, "must_include met")[1:] == [_pct(output["must_include_rate"]), "2 cases"]
    assert _row(md, "repetition (generated)")[1:] == [_pct(generated["repetition_rate"]), "3 llm replies"]
    assert _row(md, "unsupported facts (generated)")[1] == _pct(generated["unsupported_fact_rate"])
    assert _row(md, "chrF vs reference")[1] == f"{output['chrf']:.1f}"
    assert _row(md, "canned text verbatim")[1] == "100.0 %"
    p50, p90 = output["latency_ms"]["p50"], output["latency_ms"]["p90"]
    assert _row(md, "reply time p50 / p90")[1] == f"{p50:,.0f} / {p90:,.0f} ms"
    assert _row(md, "first words (TTFT) p50 / p90")[2] == "3 cases"
    ttft = [310.0, 290.0, 450.0]  # what the llm answers reported
    assert _row(md, "first words (TTFT) p50 / p90 (generated)")[1:] == [
        f"{sorted(ttft)[1]:,.0f} / {max(ttft):,.0f} ms",
        "3 llm replies",
    ]
    for heading in ("## By route", "## By domain and language", "## By source", "## By brand"):
        assert heading in md
    llm = _row(md, "llm")
    assert llm[1:3] == ["3", "3"] and llm[8] == _pct(output["per_route"]["llm"]["repetition_rate"])
    assert _row(md, "ecommerce / zh")[1:3] == ["1", "0"]


def test_a_source_table_appears_only_when_cases_carry_one(output: dict[str, Any]) -> None:
    md = markdown_report(output, "cases.jsonl")
    real = _row(md, "real")
    assert real[1] == "3" and real[2] == "1"  # three real cases, one of them generated
    assert real[3] == _pct(output["per_meta"]["source"]["real"]["language_match"])
    plain = [
        (_case(c["messages"][0]["content"], c["domain"], c["lang"]), reply, route, label, ttft)
        for c, reply, route, label, ttft in RUN
    ]
    rows = _scored(plain)
    bare = markdown_report({**summarize(rows, [1.0] * len(rows)), "cases": rows}, "cases.jsonl")
    assert "## By source" not in bare and "## By brand" not in bare


def test_worst_cases_name_the_replies_that_failed(output: dict[str, Any]) -> None:
    worst = {item["check"]: item for item in worst_cases(output["cases"], per_check=3)}
    assert set(worst) >= {"must_include", "repetition", "unsupported fact", "cut mid-sentence"}
    assert worst["must_include"]["failed"] == 1 and worst["must_include"]["of"] == 2
    assert worst["must_include"]["cases"][0]["message"] == "what is my balance"
    assert "`$12.40`" in worst["must_include"]["cases"][0]["detail"]
    facts = {c["message"]: c["detail"] for c in worst["unsupported fact"]["cases"]}
    assert "`2`" in facts["where is my parcel"] and "七" in facts["退货要多久"]
    md = markdown_report(output, "cases.jsonl")
    section = md.split("### must_include: 1 of 2 failed", 1)[1].split("###", 1)[0]
    assert "what is my balance" in section and "missing `$12.40`" in section
    assert "handoff:" not in md  # the one handoff case passed, so no section for it


def test_write_report_puts_valid_pngs_beside_the_markdown(output: dict[str, Any], tmp_path: Path) -> None:
    report = tmp_path / "run.md"
    images = write_report(output, "cases.jsonl", report)
    assert set(images) == {"times", "routes", "sentences"}
    md = report.read_text(encoding="utf-8")
    for path in images.values():
        assert path.parent == tmp_path and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert path.stat().st_size > 5_000
        with Image.open(path) as image:
            assert image.width > 300 and image.height > 200
        assert f"]({path.name})" in md
    assert re.search(r"^# Reply evaluation: `cases.jsonl`", md, re.M)
