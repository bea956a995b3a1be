"""Router latency: PyTorch eager vs ONNX Runtime FP32 (fused) vs ONNX Runtime INT8, same weights, same run.

One query of about 32 tokens (English and Chinese), end to end through the router's scoring path
(tokenise, model, calibration, lexical head), one at a time; rounds interleave the backends because this
machine's speed drifts. Also: model-only time (logits call alone), batch-32 throughput, and accuracy on
the held-out set for each backend, with deltas against FP32.

    python bench/router.py [--runs 300] [--rounds 3] [--json out.json]
    python bench/router.py --batching [--seconds 5] [--clients 32]   # adaptive vs fixed micro-batch window

--batching: the default model (ONNX, the build's default file) behind the micro-batcher, fixed window
(`max_wait_ms` after the first text, the old behaviour) against the adaptive one, same `max_wait_ms`:
p50/p99 latency at low load (one request at a time, a pause between them) and throughput at high load
(`--clients` callers submitting back to back for `--seconds`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from serve.config import Settings  # noqa: E402
from serve.evaluation.datasets import load_intent_jsonl  # noqa: E402
from serve.evaluation.metrics import classification_report, percentile  # noqa: E402
from serve.evaluation.router_eval import make_backend  # noqa: E402
from serve.router.batching import MicroBatcher  # noqa: E402
from serve.router.model import ModelRouter  # noqa: E402
from serve.taxonomy import INTENTS  # noqa: E402

QUERIES = {
    "en": "Hi, I was charged twice for my broadband bill this month and the app keeps showing an error "
    "when I try to check why, can you help?",
    "zh": "你好，我这个月的宽带账单被重复扣了两次费用，帮我查一下好吗？",
}
BACKENDS = ("torch", "onnx-fp32", "onnx-int8")
REPO = Path(__file__).resolve().parents[1]


def model_backend(name: str, settings: Settings) -> ModelRouter:
    """A model backend: the benchmark times its score() and its session directly, which the rules lack."""
    router = make_backend(name, settings)
    assert isinstance(router, ModelRouter), f"{name} is not a model backend"
    return router


def time_calls(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        out.append((time.perf_counter() - started) * 1000)
    return out


async def _low_load(batcher: MicroBatcher, texts: list[str], pause_s: float) -> list[float]:
    times = []
    for text in texts:
        started = time.perf_counter()
        await batcher.submit([text])
        times.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(pause_s)
    return times


async def _high_load(
    batcher: MicroBatcher, texts: list[str], clients: int, seconds: float
) -> tuple[float, float]:
    done = 0
    stop = time.perf_counter() + seconds

    async def client(offset: int) -> None:
        nonlocal done
        i = offset
        while time.perf_counter() < stop:
            await batcher.submit([texts[i % len(texts)]])
            done += 1
            i += clients

    started = time.perf_counter()
    await asyncio.gather(*(client(c) for c in range(clients)))
    elapsed = time.perf_counter() - started
    return done / elapsed, done / max(1, batcher.batches_run)


def bench_batching(args: argparse.Namespace) -> int:
    settings = Settings()
    router = model_backend("onnx", settings)
    examples = load_intent_jsonl(args.heldout) if args.heldout.is_file() else []
    texts = [e.text for e in examples] or list(QUERIES.values())
    wait_ms = settings.router.max_wait_ms
    result: dict = {
        "backend": router.name,
        "max_wait_ms": wait_ms,
        "max_batch_size": settings.router.max_batch_size,
    }
    print(
        f"{router.name}, max_wait_ms {wait_ms}, max_batch_size {settings.router.max_batch_size}, "
        f"{args.clients} clients for {args.seconds} s at high load",
        file=sys.stderr,
    )
    rows: dict[str, dict[str, list[float]]] = {}
    for rnd in range(2):  # interleaved twice: this machine's speed drifts
        for adaptive in (False, True) if rnd == 0 else (True, False):

            async def run(adaptive: bool) -> tuple[list[float], float, float]:
                low_b = MicroBatcher(router.score, settings.router.max_batch_size, wait_ms, adaptive=adaptive)
                for text in texts[:10]:
                    await low_b.submit([text])
                low = await _low_load(low_b, texts[10:110], 0.005)
                await low_b.aclose()
                high_b = MicroBatcher(
                    router.score, settings.router.max_batch_size, wait_ms, adaptive=adaptive
                )
                rate, per_batch = await _high_load(high_b, texts, args.clients, args.seconds)
                await high_b.aclose()
                return low, rate, per_batch

            low, rate, per_batch = asyncio.run(run(adaptive))
            row = rows.setdefault(
                "adaptive" if adaptive else "fixed", {"low": [], "rate": [], "per_batch": []}
            )
            row["low"] += low
            row["rate"].append(rate)
            row["per_batch"].append(per_batch)
    print(f"{'window':10}{'low-load p50 ms':>17}{'p99 ms':>9}{'high-load msg/s':>17}{'msgs/batch':>12}")
    for name, row in rows.items():
        summary = {
            "low_load_p50_ms": percentile(row["low"], 0.5),
            "low_load_p99_ms": percentile(row["low"], 0.99),
            "high_load_msgs_per_s": statistics.mean(row["rate"]),
            "high_load_msgs_per_batch": statistics.mean(row["per_batch"]),
        }
        result[name] = summary
        print(
            f"{name:10}{summary['low_load_p50_ms']:17.2f}{summary['low_load_p99_ms']:9.2f}"
            f"{summary['high_load_msgs_per_s']:17.0f}{summary['high_load_msgs_per_batch']:12.1f}"
        )
    fixed, adaptive = result["fixed"], result["adaptive"]
    result["low_load_p50_ratio_fixed_over_adaptive"] = fixed["low_load_p50_ms"] / adaptive["low_load_p50_ms"]
    result["high_load_throughput_ratio_adaptive_over_fixed"] = (
        adaptive["high_load_msgs_per_s"] / fixed["high_load_msgs_per_s"]
    )
    print(
        f"low-load p50: fixed / adaptive = {result['low_load_p50_ratio_fixed_over_adaptive']:.2f}x; "
        "high-load throughput: adaptive / fixed = "
        f"{result['high_load_throughput_ratio_adaptive_over_fixed']:.2f}x"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--heldout", type=Path, default=REPO / "data/intents/heldout.jsonl")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--batching", action="store_true", help="adaptive vs fixed micro-batch window only")
    parser.add_argument(
        "--seconds", type=float, default=5.0, help="--batching: high-load duration per window"
    )
    parser.add_argument("--clients", type=int, default=32, help="--batching: concurrent callers at high load")
    args = parser.parse_args()
    if args.batching:
        return bench_batching(args)

    settings = Settings()
    routers = {name: model_backend(name, settings) for name in BACKENDS}
    tokens = {lang: routers["onnx-fp32"].encoder.encode([q]).lengths[0] for lang, q in QUERIES.items()}
    print("queries: " + ", ".join(f"{lang} {n} tokens" for lang, n in tokens.items()), file=sys.stderr)
    full: dict[tuple[str, str], list[float]] = {(b, lang): [] for b in BACKENDS for lang in QUERIES}
    model_only: dict[tuple[str, str], list[float]] = {(b, lang): [] for b in BACKENDS for lang in QUERIES}
    for r in range(args.rounds):
        order = BACKENDS if r % 2 == 0 else tuple(reversed(BACKENDS))
        for name in order:
            router = routers[name]
            for lang, query in QUERIES.items():
                batch = router.encoder.encode([query])
                for _ in range(20):
                    router.score([query])
                # partial binds this round's router, query and batch (a closure would read the loop's)
                full[(name, lang)] += time_calls(partial(router.score, [query]), args.runs)
                model_only[(name, lang)] += time_calls(
                    partial(router.session.run, batch.input_ids, batch.attention_mask), args.runs
                )
        print(f"  round {r + 1}/{args.rounds} done", file=sys.stderr)

    throughput = {}
    examples = load_intent_jsonl(args.heldout) if args.heldout.is_file() else []
    texts32 = [e.text for e in examples[:32]] or [QUERIES["en"]] * 32
    for name in BACKENDS:
        calls = time_calls(partial(routers[name].score, texts32), 10)
        throughput[name] = 32 / (statistics.median(calls) / 1000)

    accuracy = {}
    for name in BACKENDS:
        preds = []
        for i in range(0, len(examples), 64):
            chunk = examples[i : i + 64]
            preds += [INTENTS[int(s.probs.argmax())] for s in routers[name].score([e.text for e in chunk])]
        if examples:
            accuracy[name] = classification_report([e.intent for e in examples], preds, INTENTS).accuracy

    result: dict = {"tokens": tokens, "backends": {}}
    print(
        "\nsingle query, end to end (tokenise + model + calibration + lexical head), "
        f"{args.rounds}x{args.runs} runs"
    )
    print(
        f"{'backend':11}{'lang':>5}{'p50 ms':>9}{'p99 ms':>9}{'model p50':>11}{'vs torch':>10}"
        f"{'seq/s b32':>11}{'held-out acc':>14}{'delta vs fp32':>15}"
    )
    for name in BACKENDS:
        row: dict = {"throughput_b32_seq_s": throughput[name], "heldout_accuracy": accuracy.get(name)}
        for lang in QUERIES:
            p50 = percentile(full[(name, lang)], 0.5)
            ratio = percentile(full[("torch", lang)], 0.5) / p50
            delta = 100 * (accuracy[name] - accuracy["onnx-fp32"]) if accuracy else float("nan")
            row[lang] = {
                "p50_ms": p50,
                "p99_ms": percentile(full[(name, lang)], 0.99),
                "model_p50_ms": percentile(model_only[(name, lang)], 0.5),
                "speedup_vs_torch": ratio,
            }
            print(
                f"{name:11}{lang:>5}{p50:9.2f}{row[lang]['p99_ms']:9.2f}{row[lang]['model_p50_ms']:11.2f}"
                f"{ratio:9.2f}x{throughput[name]:11.0f}"
                f"{(accuracy.get(name) or 0) * 100:13.2f}%{delta:+14.2f}"
            )
        result["backends"][name] = row
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
