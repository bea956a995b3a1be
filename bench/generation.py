"""Continuous batching (the `hf` backend) vs a one-request-at-a-time `generate` loop, same model, same run.

16 requests arrive at once. Both sides decode greedily, so they produce the same tokens and the tok/s
figures compare like with like. Rounds alternate (cb, plain, plain, cb, ...) because this machine's speed
drifts; medians are reported. Ratios are the result; absolute numbers only describe this machine.

    python bench/generation.py [--requests 16] [--max-tokens 64] [--rounds 2] [--json out.json]
    python bench/generation.py --variants      # also compare threads / dtype / attention / batch tokens
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.questions import QUESTIONS  # noqa: E402
from serve.config import GeneratorSettings, Settings  # noqa: E402
from serve.generation.base import ChatMessage, GenerationRequest  # noqa: E402
from serve.generation.hf import HfGenerator  # noqa: E402

SYSTEM = "You are a polite customer-service assistant for a phone company and an online shop. Answer briefly."


@dataclass
class RoundResult:
    tokens: int
    seconds: float
    ttft: list[float]

    @property
    def tok_s(self) -> float:
        return self.tokens / self.seconds


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def messages_for(i: int) -> tuple[ChatMessage, ...]:
    return (ChatMessage("system", SYSTEM), ChatMessage("user", QUESTIONS[i % len(QUESTIONS)]))


async def run_cb(gen: HfGenerator, n: int, max_tokens: int, tag: str) -> RoundResult:
    start = time.perf_counter()
    ttft: list[float] = []
    tokens = 0

    async def one(i: int) -> None:
        nonlocal tokens
        first = None
        request = GenerationRequest(f"{tag}-{i}", messages_for(i), max_tokens)
        async for chunk in gen.generate(request):
            if first is None:
                first = time.perf_counter() - start
            if chunk.finish_reason:
                tokens += chunk.completion_tokens or 0
        ttft.append(first or 0.0)

    await asyncio.gather(*(one(i) for i in range(n)))
    return RoundResult(tokens, time.perf_counter() - start, ttft)


def run_plain(model, tokenizer, stop_ids: list[int], n: int, max_tokens: int) -> RoundResult:
    import torch
    from transformers.generation.streamers import BaseStreamer

    class FirstToken(BaseStreamer):
        def __init__(self) -> None:
            self.calls = 0
            self.at: float | None = None

        def put(self, value) -> None:  # first call is the prompt, second the first new token
            self.calls += 1
            if self.calls == 2 and self.at is None:
                self.at = time.perf_counter()

        def end(self) -> None:
            pass

    start = time.perf_counter()
    ttft: list[float] = []
    tokens = 0
    for i in range(n):  # requests all arrived at `start`; each waits for the ones before it
        text = tokenizer.apply_chat_template(
            [{"role": m.role, "content": m.content} for m in messages_for(i)],
            tokenize=False,
            add_generation_prompt=True,
        )
        ids = tokenizer(text, return_tensors="pt", add_special_tokens=False)["input_ids"].to(model.device)
        streamer = FirstToken()
        with torch.inference_mode():
            out = model.generate(
                ids,
                max_new_tokens=max_tokens,
                do_sample=False,
                eos_token_id=stop_ids,
                pad_token_id=stop_ids[0],
                streamer=streamer,
            )
        new = out[0, ids.shape[1] :].tolist()
        tokens += len(new)
        ttft.append((streamer.at or time.perf_counter()) - start)
    return RoundResult(tokens, time.perf_counter() - start, ttft)


def summarise(name: str, rounds: list[RoundResult]) -> dict[str, float]:
    all_ttft = [t for r in rounds for t in r.ttft]
    return {
        "tok_s": statistics.median(r.tok_s for r in rounds),
        "ttft_p50_s": percentile(all_ttft, 0.5),
        "ttft_p99_s": percentile(all_ttft, 0.99),
        "tokens": rounds[0].tokens,
        "rounds": len(rounds),
    }


async def compare(settings: GeneratorSettings, model_dir: Path, n: int, max_tokens: int, rounds: int) -> dict:
    import torch
    from transformers import AutoModelForCausalLM

    gen = HfGenerator(settings, model_dir)
    gen.load()
    await gen.warmup()
    dtype = torch.float32 if settings.dtype in ("float32", "auto") else getattr(torch, settings.dtype)
    device = "cuda" if settings.device == "auto" and torch.cuda.is_available() else settings.device
    device = "cpu" if device == "auto" else device
    plain_model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=dtype)
    plain_model.to(device).eval()  # type: ignore[arg-type]  # transformers' `to` typing, as in serve's hf.py
    stop_ids = sorted(gen._require_chat().stop_ids)
    cb_rounds: list[RoundResult] = []
    plain_rounds: list[RoundResult] = []
    for r in range(rounds):
        order = ("cb", "plain") if r % 2 == 0 else ("plain", "cb")
        for side in order:
            if side == "cb":
                cb_rounds.append(await run_cb(gen, n, max_tokens, f"r{r}"))
                print(f"  round {r} cb:    {cb_rounds[-1].tok_s:6.1f} tok/s", file=sys.stderr)
            else:
                plain_rounds.append(
                    await asyncio.to_thread(
                        run_plain, plain_model, gen._require_chat().tokenizer, stop_ids, n, max_tokens
                    )
                )
                print(f"  round {r} plain: {plain_rounds[-1].tok_s:6.1f} tok/s", file=sys.stderr)
    await gen.aclose()
    cb, plain = summarise("cb", cb_rounds), summarise("plain", plain_rounds)
    return {
        "concurrency": n,
        "max_tokens": max_tokens,
        "continuous_batching": cb,
        "sequential_generate": plain,
        "throughput_ratio": cb["tok_s"] / plain["tok_s"],
    }


async def cb_only(
    settings: GeneratorSettings, model_dir: Path, n: int, max_tokens: int, rounds: int
) -> float:
    gen = HfGenerator(settings, model_dir)
    gen.load()
    await gen.warmup()
    results = [await run_cb(gen, n, max_tokens, f"v{r}") for r in range(rounds)]
    await gen.aclose()
    return statistics.median(r.tok_s for r in results)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--variants", action="store_true", help="also sweep threads/dtype/attention/batch tokens"
    )
    parser.add_argument("--json", type=Path)
    parser.add_argument("--device", default="auto", help="auto | cpu | cuda")
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    parser.add_argument("--model-dir", type=Path, help="default: the embedded SmolLM2")
    parser.add_argument("--max-batch-tokens", type=int)
    args = parser.parse_args()

    settings = Settings()
    update: dict = {"warmup": True, "device": args.device, "dtype": args.dtype}
    if args.max_batch_tokens:
        update["max_batch_tokens"] = args.max_batch_tokens
    base = settings.generator.model_copy(update=update)
    model_dir = args.model_dir or settings.generator_model_dir
    print(
        f"model {model_dir}; {args.requests} concurrent requests, {args.max_tokens} new tokens, greedy",
        file=sys.stderr,
    )
    result = asyncio.run(compare(base, model_dir, args.requests, args.max_tokens, args.rounds))
    cb, plain = result["continuous_batching"], result["sequential_generate"]
    print(f"\n{'':22}{'tok/s':>8}{'TTFT p50':>10}{'TTFT p99':>10}")
    for name, row in (("continuous batching", cb), ("sequential generate", plain)):
        print(f"{name:22}{row['tok_s']:8.1f}{row['ttft_p50_s']:9.2f}s{row['ttft_p99_s']:9.2f}s")
    print(f"throughput ratio (cb / sequential): {result['throughput_ratio']:.2f}x  (target >= 3x)")

    if args.variants:
        variants: dict[str, dict[str, Any]] = {
            "default (fp32, sdpa, all cores, 512 batch tokens)": {},
            "1 thread": {"num_threads": 1},
            "attention paged|eager": {"attn_implementation": "paged|eager"},
            "bfloat16": {"dtype": "bfloat16"},
            "256 batch tokens": {"max_batch_tokens": 256},
            "1024 batch tokens": {"max_batch_tokens": 1024},
            "page size 32": {"page_size": 32, "num_blocks": 512},
        }
        rows: dict[str, float] = {}
        for label, update in variants.items():
            rows[label] = asyncio.run(
                cb_only(
                    base.model_copy(update=update), model_dir, args.requests, args.max_tokens, args.rounds
                )
            )
            print(f"  {label}: {rows[label]:.1f} tok/s", file=sys.stderr)
        reference = rows["default (fp32, sdpa, all cores, 512 batch tokens)"]
        print("\nvariant (continuous batching, same run)      tok/s   vs default")
        for label, value in rows.items():
            print(f"{label:45}{value:7.1f}   {value / reference:5.2f}x")
        result["variants_tok_s"] = rows
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
