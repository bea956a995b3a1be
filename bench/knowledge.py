"""What knowledge-base retrieval adds to a reply: the routing step (classification, conversation reading,
knowledge and reply-bank search, route decision) timed with and without the knowledge base, interleaved in
one process on the same messages.

    python bench/knowledge.py [--messages data/eval/kb_questions.jsonl] [--rounds 5] [--limit 200] [--lang en]

The generator is not involved (the routing step runs before any engine call), so the figure is the cost the
knowledge base and the English search encoder (which the reply bank uses too) add to every reply, whatever
the route; a third setup, the knowledge base without the search encoder, shows the encoder's part. Absolute
times depend on the machine; the difference and the ratio, measured side by side, are what to compare.
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
    semantic = services.knowledge.semantic
    for request in requests:
        if semantic is not None:  # every round sees the messages afresh, as traffic does (no cached vector)
            semantic.encode_one.cache_clear()
        started = time.perf_counter()
        await services.pipeline.plan(request, None, ())
        out.append((time.perf_counter() - started) * 1000)
    return out


async def main(args: argparse.Namespace) -> None:
    rows = [
        json.loads(line) for line in args.messages.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    rows = [r for r in rows if args.lang in ("all", r.get("lang"))]
    requests = [ReplyRequest(domain=r["domain"], message=r["text"]) for r in rows][: args.limit]
    setups = {  # name -> (knowledge base, English search encoder)
        "with the knowledge base:": (True, True),
        "  without the search encoder:": (True, False),
        "without either:": (False, False),
    }
    services = [
        await build_services(
            Settings(
                generator=GeneratorSettings(warmup=False),
                knowledge=KnowledgeSettings(enabled=kb, semantic_search=semantic),
            ),
            generator=ScriptedFakeGenerator(),
        )
        for kb, semantic in setups.values()
    ]
    times: list[list[float]] = [[] for _ in services]
    try:
        for one in services:  # warm-up: first ONNX runs, caches
            await timed_plans(one, requests[:20])
        for _ in range(args.rounds):  # alternate, so a noisy spell hits every setup alike
            for one, into in zip(services, times, strict=True):
                into += await timed_plans(one, requests)
    finally:
        for one in services:
            await one.aclose()
    p50 = [statistics.median(t) for t in times]
    p90 = [statistics.quantiles(t, n=10)[-1] for t in times]
    print(f"{len(requests)} messages x {args.rounds} rounds, routing step per message (ms):")
    for name, a, b in zip(setups, p50, p90, strict=True):
        print(f"  {name:32s} p50 {a:6.2f}   p90 {b:6.2f}")
    print(f"  added by retrieval:              p50 {p50[0] - p50[2]:+6.2f} ms ({p50[0] / p50[2]:.2f}x)")
    print(f"    of which the search encoder:   p50 {p50[0] - p50[1]:+6.2f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=Path, default=REPO / "data/eval/kb_questions.jsonl")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument(
        "--lang", choices=("all", "en", "zh"), default="all", help="only the messages in this language"
    )
    asyncio.run(main(parser.parse_args()))
