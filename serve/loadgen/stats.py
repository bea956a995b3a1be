"""Summaries of one load point: TTFT, ITL, E2E (mean, p50, p90, p99, in ms), throughput and errors."""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from serve.loadgen.client import RequestRecord

PERCENTILES = (50, 90, 99)


def distribution_ms(values_s: list[float]) -> dict[str, float | None]:
    """mean and percentiles in milliseconds (linear interpolation, as numpy's default)."""
    if not values_s:
        return {"mean": None, **{f"p{p}": None for p in PERCENTILES}}
    ordered = sorted(v * 1000 for v in values_s)
    out: dict[str, float | None] = {"mean": round(statistics.fmean(ordered), 3)}
    for p in PERCENTILES:
        rank = (len(ordered) - 1) * p / 100
        low = int(rank)
        high = min(low + 1, len(ordered) - 1)
        out[f"p{p}"] = round(ordered[low] + (ordered[high] - ordered[low]) * (rank - low), 3)
    return out


def summarise(records: list[RequestRecord], duration_s: float, requested_tokens: int) -> dict[str, Any]:
    ok = [r for r in records if r.ok]
    tokens = sum(r.output_tokens for r in ok)
    tpot = [
        (r.e2e_s - r.ttft_s) / (r.output_tokens - 1)
        for r in ok
        if r.ttft_s is not None and r.output_tokens > 1
    ]
    errors = Counter(r.error for r in records if not r.ok)
    return {
        "requests": len(records),
        "completed": len(ok),
        "errors": len(records) - len(ok),
        "error_examples": [f"{n}x {e}" for e, n in errors.most_common(3)],
        "duration_s": round(duration_s, 6),
        "requests_per_s": round(len(ok) / duration_s, 3) if duration_s else 0.0,
        "output_tok_s": round(tokens / duration_s, 1) if duration_s else 0.0,
        "output_tokens": tokens,
        "output_tokens_mean": round(tokens / len(ok), 1) if ok else 0.0,
        "output_tokens_requested_mean": round(requested_tokens / len(records), 1) if records else 0.0,
        "tokens_per_event": round(tokens / max(1, sum(r.content_events for r in ok)), 2),
        "ttft_ms": distribution_ms([r.ttft_s for r in ok if r.ttft_s is not None]),
        "itl_ms": distribution_ms([g for r in ok for g in r.itl_s]),
        "tpot_ms": distribution_ms(tpot),
        "e2e_ms": distribution_ms([r.e2e_s for r in ok]),
    }
