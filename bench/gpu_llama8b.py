"""GPU figures: an 8B Llama-shaped model with RANDOM weights (speed only: the text is noise) on one GPU,
through the `hf` backend called directly and through the server (`csreply bench`), beside the floor.

    python bench/gpu_llama8b.py --out DIR [--tokenizer-dir DIR] [--budget-s 420]

Shape: Llama-3-8B (hidden 4096, 32 layers, 32 heads, 8 KV heads, MLP 14336, bf16) with the embedded
SmolLM2 tokenizer's 49,152-token vocabulary instead of 128,256 (so replies decode), 7.5 B parameters.
Floor per decode step at batch 1: weight bytes / measured device memory bandwidth (copy, read + write).
Stages, each guarded (a failure is recorded and the next stage runs): bandwidth, model, batch-1 decode
with `generate` (dynamic cache, static cache, static cache + torch.compile), the hf backend's continuous
batching sweep (with and without CUDA graphs), the server sweep. Results go to DIR/gpu_results.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

RESULTS: dict[str, Any] = {}
T0 = time.time()
DEVICE = "cuda"
TINY = False  # --smoke: a 2-layer model on the CPU, to check this script before spending lease time


def log(msg: str) -> None:
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


def stage(name: str, out: Path, fn: Any, *a: Any, **kw: Any) -> Any:
    started = time.time()
    try:
        value = fn(*a, **kw)
        RESULTS[name] = value
        log(f"{name}: {json.dumps(value)[:600]}")
        return value
    except Exception as exc:  # noqa: BLE001 - one stage's failure must not lose the others' numbers
        RESULTS[name] = {"error": f"{type(exc).__name__}: {exc}"}
        log(f"{name} FAILED: {traceback.format_exc()[-1500:]}")
        return None
    finally:
        RESULTS.setdefault("stage_seconds", {})[name] = round(time.time() - started, 1)
        (out / "gpu_results.json").write_text(json.dumps(RESULTS, indent=2))


def bandwidth() -> dict[str, float]:
    import torch

    src = torch.empty(2 * 1024**3 // 2, dtype=torch.bfloat16, device="cuda").uniform_()  # 2 GiB
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    times = []
    for _ in range(10):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        dst.copy_(src)
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1000)
    moved = 2 * src.numel() * src.element_size()
    del src, dst
    torch.cuda.empty_cache()
    return {"copy_tb_s": round(moved / statistics.median(times) / 1e12, 3), "bytes_moved": moved}


def build_model(vocab: int) -> Any:
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig

    # Llama-3-8B's shape, or a tiny one for a dry run
    hidden, intermediate, layers, heads, kv_heads = (64, 128, 2, 4, 2) if TINY else (4096, 14336, 32, 32, 8)
    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=hidden,
        intermediate_size=intermediate,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        max_position_embeddings=8192,
        rope_parameters={"rope_type": "default", "rope_theta": 500000.0},  # what rope_theta= is mapped to
        rms_norm_eps=1e-5,
        tie_word_embeddings=False,
    )
    torch.manual_seed(0)
    with torch.device(DEVICE):
        model = AutoModelForCausalLM.from_config(
            config, dtype=torch.float32 if TINY else torch.bfloat16, attn_implementation="sdpa"
        )
    return model.eval()


def decode_b1(model: Any, prompt_ids: list[int], new_tokens: int, variant: str) -> dict[str, float]:
    """Per-token decode time at batch 1: (T(1 + n) - T(1)) / n, medians of 3, after a warm-up call."""
    import torch
    from transformers import GenerationConfig

    kwargs: dict[str, Any] = {"do_sample": False, "pad_token_id": 0, "eos_token_id": None}
    if variant != "dynamic":
        kwargs["cache_implementation"] = "static"
        kwargs["disable_compile"] = variant == "static"

    ids = torch.tensor([prompt_ids], device=DEVICE)

    def sync() -> None:
        if DEVICE == "cuda":
            torch.cuda.synchronize()

    def timed(n: int) -> float:
        config = GenerationConfig(max_new_tokens=n, min_new_tokens=n, **kwargs)
        sync()
        start = time.perf_counter()
        with torch.inference_mode():
            model.generate(ids, generation_config=config)
        sync()
        return time.perf_counter() - start

    warm_start = time.perf_counter()
    timed(1 + new_tokens)
    warm = time.perf_counter() - warm_start
    short = statistics.median(timed(1) for _ in range(3))
    long = statistics.median(timed(1 + new_tokens) for _ in range(3))
    return {
        "ms_per_token": round((long - short) / new_tokens * 1000, 3),
        "first_call_s": round(warm, 1),
        "prefill_plus_one_ms": round(short * 1000, 2),
    }


def engine_settings(max_concurrent: int) -> Any:
    from serve.config import GeneratorSettings

    return GeneratorSettings(
        device=DEVICE,
        dtype="float32" if TINY else "bfloat16",
        attn_implementation="sdpa",
        page_size=32,
        num_blocks=256 if TINY else 8192,
        max_batch_tokens=4096,
        max_model_len=4096,
        default_max_tokens=128,
        max_tokens_limit=1024,
        max_concurrent_requests=max_concurrent,
        warmup=True,
        model_name="llama8b-shaped-random",
    )


def patch_loading(model: Any, cuda_graphs: bool) -> None:
    """HfGenerator.load() unchanged, except that `from_pretrained` hands back the random model already on the
    GPU (saving 15 GB to disk and reading it back would spend the lease on I/O) and, for the variant, the
    continuous-batching config asks for CUDA graphs."""
    import transformers
    from transformers.generation import configuration_utils as cu

    transformers.AutoModelForCausalLM.from_pretrained = lambda *a, **k: model  # type: ignore[method-assign]
    original = getattr(cu, "_csreply_original_cb_config", cu.ContinuousBatchingConfig)
    cu._csreply_original_cb_config = original  # type: ignore[attr-defined]  # a benchmark-only patch

    def make(**kw: Any) -> Any:
        kw["use_cuda_graph"] = cuda_graphs
        return original(**kw)

    cu.ContinuousBatchingConfig = make  # type: ignore[misc, assignment]  # a benchmark-only patch


async def engine_sweep(
    generator: Any, levels: list[int], per_level: int, output_len: int
) -> list[dict[str, Any]]:
    from serve.generation.base import ChatMessage, GenerationRequest
    from serve.loadgen.client import RequestRecord
    from serve.loadgen.stats import summarise
    from serve.loadgen.workload import Prompt, random_prompts

    # one request's timings; what it needs is passed in, not read from the sweep loop's variables
    async def one(request_id: str, prompt: Prompt, limit: asyncio.Semaphore) -> RequestRecord:
        record = RequestRecord()
        messages = tuple(ChatMessage(m["role"], m["content"]) for m in prompt.messages)  # type: ignore[arg-type]
        async with limit:
            start = last = time.perf_counter()
            async for chunk in generator.generate(GenerationRequest(request_id, messages, output_len)):
                now = time.perf_counter()
                if chunk.text:
                    if record.ttft_s is None:
                        record.ttft_s = now - start
                    else:
                        record.itl_s.append(now - last)
                    last = now
                    record.content_events += 1
                if chunk.finish_reason:
                    record.output_tokens = chunk.completion_tokens or 0
            record.e2e_s = time.perf_counter() - start
            record.ok = True
        return record

    points = []
    for c in levels:
        prompts = random_prompts(per_level * c, 64, output_len, 0.0, seed=c)
        limit = asyncio.Semaphore(c)
        started = time.perf_counter()
        records = list(await asyncio.gather(*(one(f"c{c}-{i}", p, limit) for i, p in enumerate(prompts))))
        point = summarise(records, time.perf_counter() - started, len(prompts) * output_len)
        points.append({"concurrency": c, **point})
        log(
            f"  engine c={c}: {point['output_tok_s']} tok/s, TTFT p50 {point['ttft_ms']['p50']} ms, "
            f"ITL p50 {point['itl_ms']['p50']} ms"
        )
    return points


def run_engine(model: Any, levels: list[int], per_level: int, output_len: int, cuda_graphs: bool) -> Any:
    from serve.generation.hf import HfGenerator

    patch_loading(model, cuda_graphs)
    generator = HfGenerator(engine_settings(512), Path(os.environ["GPU_TOKENIZER_DIR"]))
    generator.load()

    async def go() -> Any:
        await generator.warmup()
        try:
            return await engine_sweep(generator, levels, per_level, output_len)
        finally:
            await generator.aclose()

    return asyncio.run(go())


def run_server(model: Any, levels: str, per_level: int, output_len: int, out: Path) -> Any:
    """The real app (hf backend on the GPU, rules router: /v1/chat/completions needs no router) under
    uvicorn in this process, driven by `csreply bench` from another process."""
    import httpx
    import uvicorn

    from serve.app import create_app
    from serve.config import Settings
    from serve.generation.hf import HfGenerator
    from serve.router.rules import RulesRouter

    patch_loading(model, False)
    settings = Settings(generator=engine_settings(1024))
    app = create_app(
        settings,
        generator=HfGenerator(settings.generator, Path(os.environ["GPU_TOKENIZER_DIR"])),
        router=RulesRouter(),
    )
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=8765, log_config=None, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            if httpx.get("http://127.0.0.1:8765/ready", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    cmd = [
        sys.executable,
        "-m",
        "serve.cli",
        "bench",
        "--url",
        "http://127.0.0.1:8765",
        "--concurrency",
        levels,
        "--prompts-per-concurrency",
        str(per_level),
        "--input-len",
        "64",
        "--output-len",
        str(output_len),
        "--ignore-eos",
        "--json",
        str(out / "server_sweep.json"),
        "--no-progress",
    ]
    RESULTS["server_command"] = " ".join(cmd[1:])
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        },
    )
    print(proc.stdout[-3000:], proc.stderr[-2000:], flush=True)
    server.should_exit = True
    thread.join(timeout=30)
    return json.loads((out / "server_sweep.json").read_text())["points"]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--tokenizer-dir", type=Path, required=True, help="SmolLM2 tokenizer + config.json")
    parser.add_argument("--budget-s", type=float, default=420)
    parser.add_argument("--levels", default="1,16,64,256")
    parser.add_argument("--server-levels", default="1,4,16,64,256")
    parser.add_argument("--per-level", type=int, default=2, help="requests per level = this x concurrency")
    parser.add_argument("--output-len", type=int, default=128)
    parser.add_argument("--smoke", action="store_true", help="tiny model on the CPU: checks the script only")
    parser.add_argument(
        "--b1-only",
        action="store_true",
        help="only the batch-1 decode variants (dynamic, static, static + torch.compile, eager "
        "attention), each given the time it needs",
    )
    args = parser.parse_args()
    global DEVICE, TINY
    if args.smoke:
        DEVICE, TINY = "cpu", True
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ["GPU_TOKENIZER_DIR"] = str(args.tokenizer_dir)

    import torch
    import transformers

    RESULTS["env"] = {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "gpu": torch.cuda.get_device_name(0) if DEVICE == "cuda" else "cpu (smoke)",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    log(f"env {RESULTS['env']}")
    bw = stage("bandwidth", args.out, bandwidth) if DEVICE == "cuda" else None
    model = build_model(49152)
    weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    RESULTS["model"] = {
        "params_b": round(sum(p.numel() for p in model.parameters()) / 1e9, 3),
        "weight_gb": round(weight_bytes / 1e9, 2),
        "random_weights": True,
    }
    if bw:
        RESULTS["floor_ms_per_step_b1"] = round(weight_bytes / (bw["copy_tb_s"] * 1e12) * 1000, 3)
    log(f"model {RESULTS['model']} floor {RESULTS.get('floor_ms_per_step_b1')} ms")
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer_dir)
    encoded: Any = tokenizer.apply_chat_template(
        [{"role": "user", "content": "How can I check how much mobile data I have left this month?"}],
        add_generation_prompt=True,
    )
    # a BatchEncoding (a mapping) from recent transformers, the list of ids from older ones
    prompt_ids: list[int] = list(encoded["input_ids"] if hasattr(encoded, "keys") else encoded)
    levels = [int(x) for x in args.levels.split(",")]
    stage("b1_generate_dynamic", args.out, decode_b1, model, list(prompt_ids), 64, "dynamic")
    stage("b1_generate_static", args.out, decode_b1, model, list(prompt_ids), 64, "static")
    if args.b1_only:
        stage(
            "b1_generate_static_compiled", args.out, decode_b1, model, list(prompt_ids), 64, "static+compile"
        )
        model.set_attn_implementation("eager")
        stage(
            "b1_generate_dynamic_eager_attention", args.out, decode_b1, model, list(prompt_ids), 64, "dynamic"
        )
        RESULTS["total_s"] = round(time.time() - T0, 1)
        (args.out / "gpu_results.json").write_text(json.dumps(RESULTS, indent=2))
        for key in (
            "b1_generate_dynamic",
            "b1_generate_static",
            "b1_generate_static_compiled",
            "b1_generate_dynamic_eager_attention",
        ):
            print(key, RESULTS.get(key))
        print(
            "floor",
            RESULTS.get("floor_ms_per_step_b1"),
            "ms/step; stage seconds",
            RESULTS.get("stage_seconds"),
        )
        return 0
    stage("engine_cb", args.out, run_engine, model, levels, args.per_level, args.output_len, False)
    stage(
        "server", args.out, run_server, model, args.server_levels, args.per_level, args.output_len, args.out
    )
    if time.time() - T0 < args.budget_s - 90:
        stage(
            "engine_cb_cuda_graphs",
            args.out,
            run_engine,
            model,
            [64, 256],
            args.per_level,
            args.output_len,
            True,
        )
    if time.time() - T0 < args.budget_s - 120:
        stage(
            "b1_generate_static_compiled", args.out, decode_b1, model, list(prompt_ids), 64, "static+compile"
        )
    RESULTS["total_s"] = round(time.time() - T0, 1)
    (args.out / "gpu_results.json").write_text(json.dumps(RESULTS, indent=2))

    print("\n== summary ==")
    print(
        f"GPU {RESULTS['env']['gpu']}; copy {bw and bw['copy_tb_s']} TB/s; weights "
        f"{RESULTS['model']['weight_gb']} GB; floor {RESULTS.get('floor_ms_per_step_b1')} ms/step at batch 1"
    )
    for key in ("b1_generate_dynamic", "b1_generate_static", "b1_generate_static_compiled"):
        print(key, RESULTS.get(key))
    for key in ("engine_cb", "engine_cb_cuda_graphs", "server"):
        for p in RESULTS.get(key) or []:
            if isinstance(p, dict) and "concurrency" in p:
                print(
                    f"{key:22} c={p['concurrency']:>4} tok/s {p['output_tok_s']:>9} TTFT p50 "
                    f"{p['ttft_ms']['p50']} p99 {p['ttft_ms']['p99']} ITL p50 {p['itl_ms']['p50']} p99 "
                    f"{p['itl_ms']['p99']} err {p['errors']} tok/req {p['output_tokens_mean']}"
                )
    print("stage seconds", RESULTS.get("stage_seconds"), "total", RESULTS["total_s"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
