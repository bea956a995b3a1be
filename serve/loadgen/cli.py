"""`csreply bench`: argument parsing and the sweep (one AsyncClient for all points, a progress bar each)."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from serve.loadgen import report
from serve.loadgen.runner import Target, discover_model, make_client, run_point
from serve.loadgen.workload import Prompt, dataset_prompts, fallback_prompts, random_prompts


def add_parser(sub: Any) -> None:
    bench = sub.add_parser(
        "bench",
        help="load-test an OpenAI-compatible server or /v1/reply: TTFT, ITL, E2E, tok/s",
        description="Concurrency sweep (default) or Poisson request rate against a running server.",
    )
    bench.add_argument("--url", default="http://127.0.0.1:8000", help="server base URL")
    bench.add_argument(
        "--endpoint",
        choices=["chat", "reply"],
        default="chat",
        help="chat = /v1/chat/completions (any OpenAI server); reply = our /v1/reply, router included",
    )
    bench.add_argument("--model", help="model name to send (default: the first of GET /v1/models)")
    bench.add_argument("--concurrency", default="1,4,16,64", help="comma list of requests in flight")
    bench.add_argument(
        "--rate", help="comma list of request rates (req/s, Poisson arrivals) instead of a sweep"
    )
    bench.add_argument(
        "--requests", type=int, help="requests per point (default: K x concurrency, at least 8)"
    )
    bench.add_argument(
        "--prompts-per-concurrency",
        type=int,
        default=5,
        metavar="K",
        help="K for the default request count (5, as TensorRT-LLM's serving sweep)",
    )
    bench.add_argument(
        "--dataset", type=Path, help="reply set JSONL (data/eval/*.jsonl); default: random text"
    )
    bench.add_argument("--input-len", type=int, default=128, help="random prompts: words (about tokens)")
    bench.add_argument("--output-len", type=int, default=128, help="max_tokens per request")
    bench.add_argument(
        "--range-ratio",
        type=float,
        default=0.0,
        help="random lengths uniform in len*(1-r)..len*(1+r); 0 = fixed",
    )
    bench.add_argument(
        "--ignore-eos",
        action="store_true",
        help="send ignore_eos (this server's chat endpoint, vLLM, SGLang, trtllm-serve: fixed output length)",
    )
    bench.add_argument("--temperature", type=float, default=0.0)
    bench.add_argument("--timeout", type=float, default=600.0, help="per-request read timeout, seconds")
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--json", type=Path, help="write results here (stable keys)")
    bench.add_argument("--markdown", type=Path, help="Markdown report (default: next to --json)")
    bench.add_argument("--plot", type=Path, help="PNG plots (default: next to --json)")
    bench.add_argument("--no-progress", action="store_true")
    bench.set_defaults(func=run)


def _ints(text: str) -> list[int]:
    values = [int(v) for v in text.split(",") if v.strip()]
    if not values or min(values) < 1:
        raise ValueError("expected a comma list of positive integers")
    return values


def _prompts(args: argparse.Namespace, count: int, seed: int) -> tuple[list[Prompt], str]:
    if args.dataset is not None:
        return dataset_prompts(args.dataset, count, args.output_len, seed), f"dataset {args.dataset.name}"
    if args.endpoint == "reply":  # random words are not customer messages: the router would not route them
        return fallback_prompts(count, args.output_len), "built-in customer questions"
    spread = f" ±{args.range_ratio:.0%}" if args.range_ratio else ""
    return (
        random_prompts(count, args.input_len, args.output_len, args.range_ratio, seed),
        f"random {args.input_len}{spread} words in, {args.output_len}{spread} tokens out",
    )


async def sweep(args: argparse.Namespace) -> dict[str, Any]:
    from tqdm import tqdm

    rates = [float(r) for r in args.rate.split(",")] if args.rate else []
    concurrency = _ints(args.concurrency) if not rates else []
    loads: list[tuple[int | None, float | None]] = [(c, None) for c in concurrency] + [
        (None, r) for r in rates
    ]
    pool = max(concurrency or [256])
    async with make_client(pool, args.timeout) as client:
        model = args.model
        if args.endpoint == "chat" and model is None:
            model = await discover_model(client, args.url)
        target = Target(args.url, args.endpoint, model, args.ignore_eos, args.temperature)
        points, workload = [], ""
        for i, (c, r) in enumerate(loads):
            count = args.requests or max(8, args.prompts_per_concurrency * (c or round(r or 1)))
            prompts, workload = _prompts(args, count, args.seed + i)
            label = f"rate {r:g}/s" if r else f"concurrency {c}"
            with tqdm(total=count, desc=label, disable=args.no_progress, file=sys.stderr, leave=False) as bar:
                points.append(
                    await run_point(
                        client, target, prompts, concurrency=c, rate=r, seed=args.seed + i, progress=bar
                    )
                )
            print(
                report.table([points[-1]]).splitlines()[-1] if i else report.table([points[-1]]),
                file=sys.stderr,
            )
    requests_note = (
        f"{args.requests} requests per point"
        if args.requests
        else f"{args.prompts_per_concurrency} x concurrency requests per point"
    )
    return {
        "started_at": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "config": {
            "url": args.url,
            "endpoint": args.endpoint,
            "model": model,
            "workload": workload,
            "input_len": args.input_len,
            "output_len": args.output_len,
            "range_ratio": args.range_ratio,
            "dataset": str(args.dataset) if args.dataset else None,
            "ignore_eos": args.ignore_eos,
            "temperature": args.temperature,
            "requests_note": requests_note,
        },
        "points": points,
    }


def run(args: argparse.Namespace) -> int:
    try:
        result = asyncio.run(sweep(args))
    except ValueError as exc:
        print(f"csreply bench: {exc}", file=sys.stderr)
        return 2
    print()
    print(report.table(result["points"]))
    base = args.json.with_suffix("") if args.json else None
    md = args.markdown or (base.with_suffix(".md") if base else None)
    png = args.plot or (base.with_suffix(".png") if base else None)
    report.write(result, args.json, md, png)
    for path in (args.json, md, png):
        if path is not None:
            print(f"wrote {path}")
    failed = sum(p["errors"] for p in result["points"])
    total = sum(p["requests"] for p in result["points"])
    return 1 if total and failed == total else 0
