"""What knowledge-base retrieval adds to a reply: the routing step (classification, conversation reading,
knowledge and reply-bank search, route decision) timed with and without the knowledge base, interleaved in
one process on the same messages.

    python bench/knowledge.py [--messages data/eval/kb_questions.jsonl] [--rounds 5] [--limit 200]

The generator is not involved (the routing step runs before any engine call), so the figure is the cost the
knowledge base adds to every reply, whatever the route. Absolute times depend on the machine; the difference
and the ratio, measured side by side, are what to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from serve.config import GeneratorSettings, KnowledgeSettings, Settings  # noqa: E402
from serve.reply_events import ReplyRequest  # noqa: E402
from serve.services import build_services  # noqa: E402
from tests.fakes import ScriptedFakeGenerator  # noqa: E402


async def timed_plans(services, requests: list[ReplyRequest]) -> list[float]:
    out = []
    for request in requests:
        started = time.perf_counter()
        await services.pipeline.plan(request, None, ())
        out.append((time.perf_counter() - started) * 1000)
    return out


async def main(args: argparse.Namespace) -> None:
    rows = [
        json.loads(line) for line in args.messages.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    requests = [ReplyRequest(domain=r["domain"], message=r["text"]) for r in rows][: args.limit]
    on, off = [
        await build_services(
            Settings(generator=GeneratorSettings(warmup=False), knowledge=KnowledgeSettings(enabled=enabled)),
            generator=ScriptedFakeGenerator(),
        )
        for enabled in (True, False)
    ]
    try:
        await timed_plans(on, requests[:20])  # warm-up: first ONNX runs, caches
        await timed_plans(off, requests[:20])
        with_kb: list[float] = []
        without: list[float] = []
        for _ in range(args.rounds):  # alternate, so a noisy spell hits both sides alike
            with_kb += await timed_plans(on, requests)
            without += await timed_plans(off, requests)
    finally:
        await on.aclose()
        await off.aclose()
    p50_on, p50_off = statistics.median(with_kb), statistics.median(without)
    p90 = lambda v: statistics.quantiles(v, n=10)[-1]  # noqa: E731
    print(f"{len(requests)} messages x {args.rounds} rounds, routing step per message (ms):")
    print(f"  with the knowledge base:    p50 {p50_on:6.2f}   p90 {p90(with_kb):6.2f}")
    print(f"  without:                    p50 {p50_off:6.2f}   p90 {p90(without):6.2f}")
    print(f"  added by retrieval:         p50 {p50_on - p50_off:+6.2f} ms ({p50_on / p50_off:.2f}x)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=Path, default=REPO / "data/eval/kb_questions.jsonl")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--limit", type=int, default=200)
    asyncio.run(main(parser.parse_args()))
