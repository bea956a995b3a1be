"""`csreply eval replies`: run a reply set through /v1/reply (a running server with --url, or in process)
and report language match, handoff correctness, must_include / must_not_include, canned-verbatim
correctness, intent accuracy and chrF against `reference` where given.

Case format (one JSON object per line, DESIGN.md section 5): {"messages": [{"role", "content"}...],
"domain", "lang", "reference"?, "intent"?, "must_include"?, "must_not_include"?, "expect_handoff"?}.
The last message is the customer's; earlier ones are the history.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serve.config import Settings
from serve.evaluation.metrics import percentile
from serve.prompts import PROMPTS_DIR, PromptLibrary
from serve.router.encoding import detect_lang


@dataclass
class ReplyCase:
    messages: list[dict[str, str]]
    domain: str
    lang: str
    reference: str | None = None
    intent: str | None = None
    must_include: list[str] = field(default_factory=list)
    must_not_include: list[str] = field(default_factory=list)
    expect_handoff: bool | None = None

    @property
    def payload(self) -> dict[str, Any]:
        *history, last = self.messages
        return {"domain": self.domain, "lang": self.lang, "message": last["content"], "history": history,
                "stream": False}


def load_cases(path: Path) -> list[ReplyCase]:
    cases = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            case = ReplyCase(**row)
        except (json.JSONDecodeError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not a reply case ({exc})") from exc
        if not case.messages or case.messages[-1].get("role") != "user":
            raise ValueError(f"{path}:{n}: the last message must be the customer's (role user)")
        cases.append(case)
    return cases


def chrf(hypothesis: str, reference: str, max_n: int = 6, beta: float = 2.0) -> float:
    """chrF (Popovic 2015): character n-gram F-beta, n = 1..6, whitespace ignored; 0-100."""
    hyp, ref = "".join(hypothesis.split()), "".join(reference.split())
    precisions, recalls = [], []
    for n in range(1, max_n + 1):
        h = Counter(hyp[i : i + n] for i in range(len(hyp) - n + 1))
        r = Counter(ref[i : i + n] for i in range(len(ref) - n + 1))
        if not h or not r:
            continue
        overlap = sum((h & r).values())
        precisions.append(overlap / sum(h.values()))
        recalls.append(overlap / sum(r.values()))
    if not precisions:
        return 0.0
    p, r = sum(precisions) / len(precisions), sum(recalls) / len(recalls)
    if p + r == 0:
        return 0.0
    return 100 * (1 + beta**2) * p * r / (beta**2 * p + r)


def score_case(case: ReplyCase, response: dict[str, Any], library: PromptLibrary) -> dict[str, Any]:
    reply = response.get("reply", "")
    intent = response.get("intent", {})
    handoff = response.get("handoff", {}).get("needed", False)
    out: dict[str, Any] = {
        "message": case.messages[-1]["content"], "domain": case.domain, "lang": case.lang, "reply": reply,
        "intent": intent.get("label"), "route": intent.get("route"), "reason": intent.get("reason"),
        "handoff": handoff, "language_match": bool(reply.strip()) and detect_lang(reply) == case.lang,
    }
    low = reply.lower()
    if case.must_include:
        out["must_include_ok"] = all(s.lower() in low for s in case.must_include)
    if case.must_not_include:
        out["must_not_include_ok"] = not any(s.lower() in low for s in case.must_not_include)
    if case.expect_handoff is not None:
        out["handoff_ok"] = handoff == case.expect_handoff
    if case.intent:
        out["intent_ok"] = intent.get("label") == case.intent
    if out["route"] == "canned" and out["intent"]:
        out["canned_verbatim_ok"] = reply == library.canned_reply(case.domain, case.lang, out["intent"])
    if case.reference:
        out["chrf"] = chrf(reply, case.reference)
    if "error" in response:
        out["error"] = response["error"]
    return out


def _rate(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in rows if key in r]
    return sum(values) / len(values) if values else None


def summarize(rows: list[dict[str, Any]], latencies: list[float]) -> dict[str, Any]:
    chrfs = [r["chrf"] for r in rows if "chrf" in r]
    summary: dict[str, Any] = {
        "n": len(rows),
        "language_match": _rate(rows, "language_match"),
        "handoff_accuracy": _rate(rows, "handoff_ok"),
        "must_include_rate": _rate(rows, "must_include_ok"),
        "must_not_include_rate": _rate(rows, "must_not_include_ok"),
        "canned_verbatim_rate": _rate(rows, "canned_verbatim_ok"),
        "intent_accuracy": _rate(rows, "intent_ok"),
        "chrf": sum(chrfs) / len(chrfs) if chrfs else None,
        "latency_ms": {"p50": percentile(latencies, 0.5), "p99": percentile(latencies, 0.99)},
        "routes": dict(Counter(r["route"] for r in rows)),
    }
    for lang in sorted({r["lang"] for r in rows}):
        part = [r for r in rows if r["lang"] == lang]
        summary.setdefault("per_lang", {})[lang] = {
            "n": len(part), "language_match": _rate(part, "language_match"),
            "intent_accuracy": _rate(part, "intent_ok"), "must_include_rate": _rate(part, "must_include_ok"),
        }
    return summary


async def _run_http(cases: list[ReplyCase], url: str) -> tuple[list[dict[str, Any]], list[float]]:
    import httpx

    responses, latencies = [], []
    async with httpx.AsyncClient(base_url=url.rstrip("/"), timeout=300) as client:
        for case in cases:
            started = time.perf_counter()
            response = await client.post("/v1/reply", json=case.payload)
            latencies.append((time.perf_counter() - started) * 1000)
            if response.status_code != 200:
                responses.append({"reply": "", "error": response.text[:300]})
            else:
                responses.append(response.json())
    return responses, latencies


async def _run_in_process(cases: list[ReplyCase], settings: Settings) -> tuple[list[dict[str, Any]], list[float]]:
    from serve.api.reply_models import DoneOut, IntentOut, ReplyBody
    from serve.pipeline import DeltaEvent, DoneEvent, IntentEvent
    from serve.services import build_services

    services = await build_services(settings)
    responses, latencies = [], []
    try:
        for case in cases:
            started = time.perf_counter()
            result: dict[str, Any] = {"reply": ""}
            async for event in services.pipeline.reply(ReplyBody.model_validate(case.payload).to_request()):
                if isinstance(event, IntentEvent):
                    result["intent"] = IntentOut.of_event(event).model_dump()
                elif isinstance(event, DeltaEvent):
                    result["reply"] += event.text
                elif isinstance(event, DoneEvent):
                    result.update(DoneOut.of(event).model_dump())
            latencies.append((time.perf_counter() - started) * 1000)
            responses.append(result)
    finally:
        await services.aclose()
    return responses, latencies


def run_eval(data: Path, url: str | None, settings: Settings, json_out: Path | None) -> int:
    cases = load_cases(data)
    library = PromptLibrary.load(settings.prompts_dir or PROMPTS_DIR)
    if url:
        responses, latencies = asyncio.run(_run_http(cases, url))
    else:
        responses, latencies = asyncio.run(_run_in_process(cases, settings))
    rows = [score_case(c, r, library) for c, r in zip(cases, responses)]
    summary = summarize(rows, latencies)

    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{100 * value:.1f}%"

    print(f"{summary['n']} cases  routes {summary['routes']}")
    for key in ("language_match", "handoff_accuracy", "must_include_rate", "must_not_include_rate",
                "canned_verbatim_rate", "intent_accuracy"):
        print(f"  {key:24} {pct(summary[key])}")
    chrf_text = "n/a" if summary["chrf"] is None else f"{summary['chrf']:.1f}"
    print(f"  {'chrf':24} {chrf_text}")
    print(f"  latency p50 {summary['latency_ms']['p50']:.0f} ms, p99 {summary['latency_ms']['p99']:.0f} ms")
    if json_out:
        json_out.write_text(json.dumps({**summary, "data": str(data), "cases": rows}, indent=2,
                                       ensure_ascii=False) + "\n")
    failures = [r for r in rows if r.get("error")]
    if failures:
        print(f"{len(failures)} cases failed with HTTP errors", file=sys.stderr)
    return 0
