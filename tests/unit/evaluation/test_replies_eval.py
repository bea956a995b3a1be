from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from serve.evaluation.replies_eval import run_cases
from serve.evaluation.reply_cases import load_cases
from serve.evaluation.reply_summary import summarize
from serve.prompts import PromptLibrary

CASES = [
    {
        "messages": [{"role": "user", "content": "how much data do I have left?"}],
        "domain": "telecom",
        "lang": "en",
        "context": {"data_left": "3.2 GB"},
        "must_include": ["3.2 GB"],
        "reference": "You have 3.2 GB left.",
        "source": "team",
        "brand": "A",
    },
    {
        "messages": [{"role": "user", "content": "where is my parcel"}],
        "domain": "ecommerce",
        "lang": "en",
        "reference": "Your order is on its way.",
        "source": "team",
        "brand": "B",
    },
    {
        "messages": [{"role": "user", "content": "退货要多久"}],
        "domain": "ecommerce",
        "lang": "zh",
        "source": "real",
        "brand": "B",
    },
]
REPLIES = {
    "how much data do I have left?": ("You have 3.2 GB left this month.", "llm"),
    "where is my parcel": (
        "Your order ships in 2 days. Your order ships in 2 days. Your order ships in 2 days. Your order",
        "llm",
    ),
    "退货要多久": ("退货需要七天。", "template"),
}


@pytest.fixture
def cases_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in CASES) + "\n")
    return path


def test_unknown_fields_are_metadata_and_bad_cases_say_where(cases_file: Path, tmp_path: Path) -> None:
    cases, _ = load_cases(cases_file)
    assert cases[0].meta == {"source": "team", "brand": "A"} and cases[0].payload()["context"] == {
        "data_left": "3.2 GB"
    }
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"messages": [{"role": "assistant", "content": "hi"}], "domain": "telecom", "lang": "en"})
        + "\n"
    )
    with pytest.raises(ValueError, match=r"bad.jsonl:1: .*customer"):
        load_cases(bad)


def test_run_scores_every_case_concurrently_and_appends_results_as_it_goes(
    cases_file: Path, tmp_path: Path
) -> None:
    cases, _ = load_cases(cases_file)
    in_flight, peak = 0, 0

    async def answer(case):
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        reply, route = REPLIES[case.message]
        return {
            "reply": reply,
            "intent": {"label": "order_tracking", "route": route},
            "finish_reason": "stop",
        }

    results = tmp_path / "partial.jsonl"
    rows, latencies = asyncio.run(run_cases(cases, answer, PromptLibrary.load(), 3, results, progress=False))
    assert peak == 3 and len(rows) == 3
    assert sorted(json.loads(line)["index"] for line in results.read_text().splitlines()) == [0, 1, 2]
    summary = summarize(rows, latencies)
    generated = summary["generated"]
    assert generated["n"] == 2 and summary["per_route"]["template"]["n"] == 1
    assert generated["repetition_rate"] == 0.5 and generated["cut_mid_sentence_rate"] == 0.5
    assert generated["unsupported_fact_rate"] == 0.5  # "2 days" was given to nobody
    assert generated["must_include_rate"] == 1.0
    assert set(summary["per_meta"]["brand"]) == {"A", "B"}
    assert summary["per_context"]["True"]["n"] == 1
    # the template reply's 七天 is an unsupported fact too, reported under its own route
    assert summary["per_route"]["template"]["unsupported_fact_rate"] == 1.0


def test_one_failing_case_does_not_lose_the_others(cases_file: Path) -> None:
    cases, _ = load_cases(cases_file)

    async def answer(case):
        if case.lang == "zh":
            raise RuntimeError("engine died")
        return {"reply": "Fine.", "intent": {"label": "x", "route": "llm"}}

    rows, _ = asyncio.run(run_cases(cases, answer, PromptLibrary.load(), 2, None, progress=False))
    assert [bool(r.get("error")) for r in rows] == [False, False, True]
