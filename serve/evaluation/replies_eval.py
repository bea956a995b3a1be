"""`csreply eval replies`: run a reply set through /v1/reply (a running server with --url, or in process),
score every reply (serve/evaluation/reply_checks.py) and report overall, per route, language, domain and
metadata field, on the console and as a Markdown report with plots (reply_report.py). Cases run
`--concurrency` at a time; each scored case is appended to `--results` (JSONL) as soon as it is done, so an
interrupted run keeps what it measured. Case format: reply_cases.py.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from serve.config import Settings
from serve.evaluation.judging import key_path, sample_cases, write_packet
from serve.evaluation.reply_cases import ReplyCase, load_cases
from serve.evaluation.reply_checks import chrf
from serve.evaluation.reply_report import write_report
from serve.evaluation.reply_summary import score_case, summarize
from serve.prompts import PROMPTS_DIR, PromptLibrary

__all__ = ["chrf", "load_cases", "run_eval", "score_case", "summarize"]

Answer = Callable[[ReplyCase], Awaitable[dict[str, Any]]]


async def run_cases(
    cases: list[ReplyCase],
    answer: Answer,
    library: PromptLibrary,
    concurrency: int,
    results: Path | None,
    progress: bool = True,
) -> tuple[list[dict[str, Any]], list[float]]:
    """Answer and score every case, `concurrency` at a time; rows come back in case order."""
    from tqdm import tqdm

    rows: list[dict[str, Any] | None] = [None] * len(cases)
    latencies: list[float] = [0.0] * len(cases)
    gate = asyncio.Semaphore(max(1, concurrency))
    bar = tqdm(total=len(cases), desc="replies", unit="case", disable=not progress, file=sys.stderr)
    sink = results.open("a", encoding="utf-8") if results else None

    async def one(i: int, case: ReplyCase) -> None:
        async with gate:
            started = time.perf_counter()
            try:
                response = await answer(case)
            except Exception as exc:  # one failed case must not lose the others' results
                response = {"reply": "", "error": f"{type(exc).__name__}: {exc}"[:300]}
            latencies[i] = (time.perf_counter() - started) * 1000
        row = score_case(case, response, library, latencies[i])
        rows[i] = row
        if sink is not None:
            sink.write(json.dumps({"index": i, **row}, ensure_ascii=False) + "\n")
            sink.flush()
        bar.update(1)

    try:
        await asyncio.gather(*(one(i, c) for i, c in enumerate(cases)))
    finally:
        bar.close()
        if sink is not None:
            sink.close()
    return [r for r in rows if r is not None], latencies


def http_answer(client: Any, auto_lang: bool = False) -> Answer:
    async def answer(case: ReplyCase) -> dict[str, Any]:
        response = await client.post("/v1/reply", json=case.payload(auto_lang))
        if response.status_code != 200:
            return {"reply": "", "error": response.text[:300]}
        body = response.json()
        return {**body, "finish_reason": body.get("finish_reason")}

    return answer


def pipeline_answer(pipeline: Any, auto_lang: bool = False) -> Answer:
    from serve.api.reply_models import DoneOut, IntentOut, ReplyBody
    from serve.reply_events import DeltaEvent, DoneEvent, IntentEvent

    async def answer(case: ReplyCase) -> dict[str, Any]:
        result: dict[str, Any] = {"reply": ""}
        async for event in pipeline.reply(ReplyBody.model_validate(case.payload(auto_lang)).to_request()):
            if isinstance(event, IntentEvent):
                result["intent"] = IntentOut.of_event(event).model_dump()
            elif isinstance(event, DeltaEvent):
                result["reply"] += event.text
            elif isinstance(event, DoneEvent):
                result.update(DoneOut.of(event).model_dump())
        return result

    return answer


async def _run(
    cases: list[ReplyCase],
    url: str | None,
    settings: Settings,
    library: PromptLibrary,
    concurrency: int,
    results: Path | None,
    variant: str | None = None,
    auto_lang: bool = False,
) -> tuple[list[dict[str, Any]], list[float]]:
    if url:
        import httpx

        # A pinned engine-pool variant scores one build of an A/B pair (header read by /v1/reply).
        headers = {"x-csreply-variant": variant} if variant else {}
        async with httpx.AsyncClient(base_url=url.rstrip("/"), timeout=600, headers=headers) as client:
            return await run_cases(cases, http_answer(client, auto_lang), library, concurrency, results)
    from serve.services import build_services

    services = await build_services(settings)
    try:
        return await run_cases(
            cases, pipeline_answer(services.pipeline, auto_lang), library, concurrency, results
        )
    finally:
        await services.aclose()


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None, fmt: str = ".1f") -> str:
    return "n/a" if value is None else format(value, fmt)


def print_summary(summary: dict[str, Any]) -> None:
    print(f"{summary['n']} cases  routes {summary['routes']}")
    for key in (
        "language_match",
        "refusal_rate",
        "clarify_rate",
        "cited_rate",
        "handoff_accuracy",
        "must_include_rate",
        "must_not_include_rate",
        "canned_verbatim_rate",
        "intent_accuracy",
    ):
        print(f"  {key:24} {_pct(summary[key])}")
    print(f"  {'chrf':24} {_num(summary['chrf'])}")
    print(
        f"  latency p50 {_num(summary['latency_ms']['p50'], '.0f')} ms, "
        f"p90 {_num(summary['latency_ms']['p90'], '.0f')} ms, p99 "
        f"{_num(summary['latency_ms']['p99'], '.0f')} ms"
    )
    groups = [(f"route {route}", metrics) for route, metrics in summary["per_route"].items()]
    groups += [("generated (llm route)", summary["generated"])]
    groups += [
        (f"  llm {name}={value}", metrics)
        for name in ("per_lang", "per_domain", "per_context")
        for value, metrics in summary[name].items()
    ]
    groups += [
        (f"{field}={value}", metrics)
        for field, values in summary["per_meta"].items()
        for value, metrics in values.items()
    ]
    print(
        f"{'group':28} {'n':>4} {'lang':>6} {'repeat':>7} {'unsup':>7} {'cut':>6} {'sent':>5} "
        f"{'must':>6} {'chrF':>5} {'p50 ms':>7}"
    )
    for name, m in groups:
        if not m["n"]:
            continue
        print(
            f"{name[:28]:28} {m['n']:>4} {_pct(m['language_match']):>6} {_pct(m['repetition_rate']):>7} "
            f"{_pct(m['unsupported_fact_rate']):>7} {_pct(m['cut_mid_sentence_rate']):>6} "
            f"{_num(m['median_sentences']):>5} {_pct(m['must_include_rate']):>6} {_num(m['chrf']):>5} "
            f"{_num(m['median_latency_ms'], '.0f'):>7}"
        )
    print(f"  generated finish reasons {summary['generated']['finish_reasons']}")
    if summary.get("acts"):
        print(f"  conversation acts {summary['acts']}")


def run_eval(
    data: Path,
    url: str | None,
    settings: Settings,
    json_out: Path | None,
    concurrency: int = 1,
    results: Path | None = None,
    limit: int | None = None,
    variant: str | None = None,
    report: Path | None = None,
    worst: int = 3,
    auto_lang: bool = False,
    other_domain: str | None = None,
    sample: int | None = None,
    seed: int = 0,
    judge_packet: Path | None = None,
) -> int:
    cases, skipped = load_cases(data, other_domain)
    if skipped:
        print(f"{skipped} cases of other domains skipped (--other-domain runs them as telecom or ecommerce)")
    if sample:
        cases = sample_cases(cases, sample, seed)
    cases = cases[:limit] if limit else cases
    library = PromptLibrary.load(settings.prompts_dir or PROMPTS_DIR)
    if results is None and json_out is not None:
        results = json_out.with_suffix(".cases.jsonl")
    if results is not None:
        results.parent.mkdir(parents=True, exist_ok=True)
        results.write_text("")
    if variant and not url:
        print(
            "csreply eval replies: --variant needs --url (it pins an engine-pool member of a running server)",
            file=sys.stderr,
        )
        return 2
    rows, latencies = asyncio.run(
        _run(cases, url, settings, library, concurrency, results, variant, auto_lang)
    )
    summary = summarize(rows, latencies)
    print_summary(summary)
    output = {**summary, "data": str(data), "cases": rows}
    md = report or (json_out.with_suffix(".md") if json_out else None)
    if md:
        images = write_report(output, str(data), md, worst)
        output["report"] = str(md)
        print(f"report {md} (plots {', '.join(p.name for p in images.values())})")
    if json_out:
        json_out.write_text(json.dumps(output, indent=2, ensure_ascii=False) + "\n")
    if judge_packet is not None:
        write_packet(cases, rows, judge_packet, seed)
        print(
            f"judge packet {judge_packet} ({len(rows)} replies, blind) and its key {key_path(judge_packet)}"
        )
    failures = [r for r in rows if r.get("error")]
    if failures:
        print(f"{len(failures)} cases failed: first error {failures[0]['error']}", file=sys.stderr)
    return 0
