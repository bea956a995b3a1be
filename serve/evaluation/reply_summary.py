"""Scoring a reply case's response and summarising a run: overall, per route, language, domain and any
metadata field of the cases (`source`, `brand`, `has_context`, ...)."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from serve.evaluation.metrics import percentile
from serve.evaluation.reply_cases import ReplyCase
from serve.evaluation.reply_checks import check_reply, includes
from serve.prompts import PromptLibrary
from serve.router.encoding import detect_lang

# metadata fields with too many distinct values to be a useful breakdown
_MAX_GROUPS = 12
_STYLE = ("Style:", "风格：")


def sources_of(
    case: ReplyCase,
    intent: str | None,
    library: PromptLibrary,
    retrieved: list[str] | None = None,
) -> list[str]:
    """What the reply may draw on: the system prompt as the pipeline renders it (guidance, customer
    context), every message of the conversation, and the retrieved texts (cited knowledge entries, the
    selected bank reply)."""
    sources = [m["content"] for m in case.messages] + list(retrieved or [])
    sources.append(" ".join(f"{k} {v}" for k, v in case.context.items()))
    if intent:
        try:
            prompt = library.system_prompt(case.domain, case.lang, intent, case.context)
        except KeyError:
            return sources
        # the style line's "2 to 4 sentences" is an instruction, not a fact the reply may state
        sources.append(
            "\n".join(line for line in prompt.splitlines() if not line.lstrip().startswith(_STYLE))
        )
    return sources


def bank_reply_of(reason: str | None, case: ReplyCase, library: PromptLibrary) -> Any:
    """The reply-bank entry a `selected` reply came from (its reason is `reply_bank:<id>`), or None."""
    if not reason or not reason.startswith("reply_bank:"):
        return None
    wanted = reason.split(":", 1)[1]
    return next((r for r in library.bank(case.domain, case.lang) if r.id == wanted), None)


def knowledge_texts(citations: list[dict[str, Any]], case: ReplyCase) -> list[str]:
    """The cited entries' texts, from the knowledge base on disk (the server's own, unless configured
    elsewhere); an id that is not there any more contributes nothing."""
    if not citations:
        return []
    from serve.knowledge.entries import KnowledgeError, load_entries

    try:
        entries = {(e.domain, e.id): e for e in load_entries().entries}
    except KnowledgeError:
        return []
    found = [entries.get((case.domain, str(c.get("id")))) for c in citations]
    return [f"{e.title} {e.text}" for e in found if e is not None]


def score_case(
    case: ReplyCase, response: dict[str, Any], library: PromptLibrary, latency_ms: float | None = None
) -> dict[str, Any]:
    reply = response.get("reply", "")
    intent = response.get("intent", {})
    handoff = response.get("handoff", {}).get("needed", False)
    citations = response.get("citations") or []
    route, reason = intent.get("route"), intent.get("reason")
    bank = bank_reply_of(reason, case, library)
    out: dict[str, Any] = {
        "message": case.message,
        "domain": case.domain,
        "lang": case.lang,
        "reply": reply,
        "intent": intent.get("label"),
        "route": route,
        "reason": reason,
        "match_score": intent.get("match_score"),
        "finish_reason": response.get("finish_reason"),
        "cached": response.get("cached"),
        "handoff": handoff,
        "language_match": bool(reply.strip()) and detect_lang(reply) == case.lang,
        "has_context": bool(case.context),
        "meta": case.meta,
        "cited": [c.get("id") for c in citations],
        # the out-of-scope reply: the router's out_of_scope on a fixed route, or a bank reply for it
        "refusal": (bank.intent == "out_of_scope")
        if bank is not None
        else (
            intent.get("label") == "out_of_scope"
            and route in ("canned", "template", "llm")
            and reason != "general_acknowledgement"
        ),
        "clarify": route == "clarify",
    }
    if route == "act":
        out["act"] = reason
    if latency_ms is not None:
        out["latency_ms"] = round(latency_ms, 1)
    ttft = (response.get("timings") or {}).get("ttft_ms")
    if ttft is not None and "error" not in response:
        # the server's own figure (in process and over HTTP alike): when the first words of the reply were
        # released to the stream, counted from the request's start
        out["ttft_ms"] = round(float(ttft), 1)
    retrieved = knowledge_texts(citations, case) + ([bank.reply] if bank is not None else [])
    out.update(
        check_reply(
            reply,
            sources=sources_of(case, out["intent"], library, retrieved),
            must_include=case.must_include,
            reference=case.reference,
        )
    )
    if not out.get("must_include_ok", True):
        # which strings were missed, for the report's worst cases
        out["must_include_missing"] = [s for s in case.must_include if not includes(reply, s)]
    if case.must_not_include:
        out["must_not_include_ok"] = not any(includes(reply, s) for s in case.must_not_include)
    if case.expect_handoff is not None:
        out["handoff_ok"] = handoff == case.expect_handoff
    if case.intent:
        out["intent_ok"] = intent.get("label") == case.intent
        out["intent_expected"] = case.intent
    if out["route"] == "canned" and out["intent"]:
        out["canned_verbatim_ok"] = reply == library.canned_reply(case.domain, case.lang, out["intent"])
    if "error" in response:
        out["error"] = response["error"]
    return out


def _rate(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [bool(r[key]) for r in rows if key in r]
    return sum(values) / len(values) if values else None


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _spread(values: list[float]) -> dict[str, float | None]:
    return {
        "p50": percentile(values, 0.5) if values else None,
        "p90": percentile(values, 0.9) if values else None,
        "p99": percentile(values, 0.99) if values else None,
    }


def _label(value: Any) -> str:
    return "(none)" if value is None else str(value)


def group_metrics(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The reply-quality figures of one group of scored cases."""
    chrfs = [r["chrf"] for r in rows if "chrf" in r]
    latencies = [r["latency_ms"] for r in rows if "latency_ms" in r]
    ttfts = [r["ttft_ms"] for r in rows if "ttft_ms" in r]
    incomplete = _rate(rows, "complete")
    return {
        "n": len(rows),
        "routes": dict(Counter(str(r["route"]) for r in rows)),
        "language_match": _rate(rows, "language_match"),
        "refusal_rate": _rate(rows, "refusal"),
        "clarify_rate": _rate(rows, "clarify"),
        "handoff_accuracy": _rate(rows, "handoff_ok"),
        "must_not_include_rate": _rate(rows, "must_not_include_ok"),
        "canned_verbatim_rate": _rate(rows, "canned_verbatim_ok"),
        "repetition_rate": _rate(rows, "repetition"),
        "unsupported_fact_rate": _rate(rows, "has_unsupported_fact"),
        "cut_mid_sentence_rate": None if incomplete is None else 1 - incomplete,
        "median_sentences": _median([r["sentences"] for r in rows if "sentences" in r]),
        "must_include_rate": _rate(rows, "must_include_ok"),
        "must_include_n": sum(1 for r in rows if "must_include_ok" in r),
        "intent_accuracy": _rate(rows, "intent_ok"),
        "chrf": sum(chrfs) / len(chrfs) if chrfs else None,
        "chrf_n": len(chrfs),
        "median_latency_ms": _median(latencies),
        "p90_latency_ms": percentile(latencies, 0.9) if latencies else None,
        "median_ttft_ms": _median(ttfts),
        "p90_ttft_ms": percentile(ttfts, 0.9) if ttfts else None,
        "finish_reasons": dict(Counter(r.get("finish_reason") for r in rows)),
    }


def summarize(rows: list[dict[str, Any]], latencies: list[float]) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "n": len(rows),
        "language_match": _rate(rows, "language_match"),
        "handoff_accuracy": _rate(rows, "handoff_ok"),
        "must_include_rate": _rate(rows, "must_include_ok"),
        "must_not_include_rate": _rate(rows, "must_not_include_ok"),
        "canned_verbatim_rate": _rate(rows, "canned_verbatim_ok"),
        "intent_accuracy": _rate(rows, "intent_ok"),
        "chrf": group_metrics(rows)["chrf"],
        "latency_ms": _spread(latencies),
        "routes": dict(Counter(r["route"] for r in rows)),
        "refusal_rate": _rate(rows, "refusal"),
        "clarify_rate": _rate(rows, "clarify"),
        "cited_rate": sum(1 for r in rows if r.get("cited")) / len(rows) if rows else None,
        "acts": dict(Counter(r["act"] for r in rows if r.get("act"))),
        "errors": sum(1 for r in rows if r.get("error")),
    }
    ttfts = [r["ttft_ms"] for r in rows if "ttft_ms" in r]
    if ttfts:
        summary["ttft_ms"] = _spread(ttfts)
    generated = [r for r in rows if r["route"] == "llm"]
    summary["generated"] = group_metrics(generated)
    summary["per_route"] = {
        route: group_metrics([r for r in rows if r["route"] == route])
        for route in sorted({str(r["route"]) for r in rows})
    }
    for name, key in (("per_lang", "lang"), ("per_domain", "domain"), ("per_context", "has_context")):
        summary[name] = {
            str(v): group_metrics([r for r in generated if r[key] == v])
            for v in sorted({r[key] for r in generated}, key=str)
        }
    pairs = sorted({(r["domain"], r["lang"]) for r in rows})
    summary["per_domain_lang"] = {
        f"{d} / {lang}": group_metrics([r for r in rows if (r["domain"], r["lang"]) == (d, lang)])
        for d, lang in pairs
    }
    # every route: "how did the cases from source X do" is asked of the whole set; each group's `routes`
    # says how many of its replies were generated
    per_meta: dict[str, Any] = {}
    for field in sorted({k for r in rows for k in r.get("meta", {})}):
        values = {_label(r["meta"].get(field)) for r in rows}
        if 1 < len(values) <= _MAX_GROUPS:
            per_meta[field] = {
                v: group_metrics([r for r in rows if _label(r["meta"].get(field)) == v])
                for v in sorted(values)
            }
    summary["per_meta"] = per_meta
    return summary
