"""`python -m checkpoints finetune-llm build_configs/finetune/X.yaml`: LoRA SFT of a chat model on the team's
conversations, evaluated before and after on held-out conversations with the reply checks of
`csreply eval replies`, gated, and saved as an adapter plus a merged HF directory (what the hf generator and
`build-llm` take, so a fine-tuned Llama or Qwen goes to TensorRT-LLM the same way).

Exit status: 0 when the fine-tuned model passes the gate, 1 when it is worse than the base by more than the
configured margins (the adapter and report are still written, for inspection; the merged model is not),
2 for a bad config or data.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checkpoints.finetune_config import REPO, FinetuneConfig, GateSection
from checkpoints.finetune_data import (
    Conversation,
    Encoded,
    encode,
    end_of_turn,
    from_reply_case,
    load_conversations,
    split_heldout,
)
from serve.evaluation.reply_checks import check_reply
from serve.prompts import PROMPTS_DIR, PromptLibrary
from serve.router.encoding import detect_lang

ADAPTER = "adapter"
MERGED = "merged"
REPORT = "report.json"


class GateFailed(RuntimeError):
    """The fine-tuned model is worse than the base beyond the configured margins."""


# --------------------------------------------------------------------------- evaluation
def generate_replies(
    model: Any,
    chat: Any,
    library: PromptLibrary,
    convs: list[Conversation],
    max_new_tokens: int,
    batch_size: int,
) -> list[str]:
    """Greedy replies, batched with left padding; plain decoding (no guards), so the model is what is
    compared."""
    import torch

    tokenizer = chat.tokenizer
    device = next(model.parameters()).device
    pad = chat.pad_id
    replies: list[str] = []
    order = sorted(range(len(convs)), key=lambda i: len(chat.encode(convs[i].messages(library))))
    by_index: dict[int, str] = {}
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        prompts = [chat.encode(convs[i].messages(library)) for i in idx]
        width = max(len(p) for p in prompts)
        ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts], device=device)
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=device)
        with torch.inference_mode():
            out = model.generate(
                input_ids=ids,
                attention_mask=mask,
                max_new_tokens=max_new_tokens,
                do_sample=False,
                eos_token_id=sorted(chat.stop_ids),
                pad_token_id=pad,
            )
        for row, i in enumerate(idx):
            new = [t for t in out[row, width:].tolist() if t not in chat.stop_ids and t != pad]
            by_index[i] = tokenizer.decode(new, skip_special_tokens=True).strip()
    replies = [by_index[i] for i in range(len(convs))]
    return replies


def score(convs: list[Conversation], replies: list[str], library: PromptLibrary) -> dict[str, Any]:
    """The reply-evaluation figures over one set of generated replies."""
    rows = []
    for conv, reply in zip(convs, replies, strict=True):
        sources = [
            conv.message,
            *(m.content for m in conv.history),
            " ".join(f"{k} {v}" for k, v in conv.context.items()),
            "\n".join(
                line
                for line in conv.messages(library)[0].content.splitlines()
                if not line.lstrip().startswith(("Style:", "风格："))
            ),
        ]
        row = check_reply(reply, sources=sources, must_include=list(conv.must_include), reference=conv.reply)
        row["language_match"] = bool(reply.strip()) and detect_lang(reply) == conv.lang
        rows.append(row)

    def rate(key: str) -> float | None:
        values = [bool(r[key]) for r in rows if key in r]
        return sum(values) / len(values) if values else None

    return {
        "n": len(rows),
        "repetition_rate": rate("repetition"),
        "unsupported_fact_rate": rate("has_unsupported_fact"),
        "cut_mid_sentence_rate": 1 - (rate("complete") or 0.0) if rows else None,
        "language_match": rate("language_match"),
        "must_include_rate": rate("must_include_ok"),
        "chrf": statistics.mean(r["chrf"] for r in rows) if rows else None,
        "median_sentences": statistics.median(r["sentences"] for r in rows) if rows else None,
    }


def gate(before: dict[str, Any], after: dict[str, Any], margins: GateSection) -> list[str]:
    """Why the fine-tuned model may not ship (empty: it may)."""
    problems = []

    def worse(key: str, margin: float, higher_is_worse: bool) -> None:
        b, a = before.get(key), after.get(key)
        if b is None or a is None:
            return
        delta = (a - b) if higher_is_worse else (b - a)
        if delta > margin + 1e-9:
            problems.append(f"{key}: {b:.3f} -> {a:.3f} (allowed {'+' if higher_is_worse else '-'}{margin})")

    worse("repetition_rate", margins.max_repetition_increase, True)
    worse("unsupported_fact_rate", margins.max_unsupported_increase, True)
    worse("cut_mid_sentence_rate", margins.max_cut_increase, True)
    worse("language_match", margins.max_language_drop, False)
    worse("must_include_rate", margins.max_must_include_drop, False)
    worse("chrf", margins.max_chrf_drop, False)
    return problems


def evaluate(
    model: Any, chat: Any, library: PromptLibrary, sets: dict[str, list[Conversation]], config: FinetuneConfig
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    metrics, replies = {}, {}
    for name, convs in sets.items():
        if convs:
            replies[name] = generate_replies(
                model, chat, library, convs, config.eval.max_new_tokens, config.eval.batch_size
            )
            metrics[name] = score(convs, replies[name], library)
    return metrics, replies


# ----------------------------------------------------------------------------- training
@dataclass
class TrainStats:
    steps: int
    examples: int
    skipped_too_long: int
    first_loss: float
    last_loss: float
    seconds: float


def _batches(examples: list[Encoded], batch_size: int, rng: random.Random) -> list[list[Encoded]]:
    """Shuffled batches of similar length (less padding), in random order."""
    shuffled = examples[:]
    rng.shuffle(shuffled)
    chunks = [
        sorted(shuffled[i : i + batch_size * 8], key=lambda e: len(e.input_ids))
        for i in range(0, len(shuffled), batch_size * 8)
    ]
    batches = [chunk[i : i + batch_size] for chunk in chunks for i in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return batches


def train_lora(
    model: Any, examples: list[Encoded], config: FinetuneConfig, pad_id: int, device: str
) -> TrainStats:
    import torch

    t = config.train
    rng = random.Random(config.data.seed)
    torch.manual_seed(config.data.seed)
    steps_per_epoch = math.ceil(len(examples) / t.batch_size)
    total = t.max_steps or max(1, int(steps_per_epoch * t.epochs))
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=t.lr, weight_decay=t.weight_decay)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / max(1, t.warmup_steps)) * max(0.0, 1 - s / total)
    )
    autocast = device.startswith("cuda") and t.bf16
    model.train()
    losses: list[float] = []
    started = time.perf_counter()
    step = 0
    while step < total:
        for batch in _batches(examples, t.batch_size, rng):
            if step >= total:
                break
            width = max(len(e.input_ids) for e in batch)
            ids = torch.tensor(
                [e.input_ids + [pad_id] * (width - len(e.input_ids)) for e in batch], device=device
            )
            labels = torch.tensor([e.labels + [-100] * (width - len(e.labels)) for e in batch], device=device)
            mask = torch.tensor(
                [[1] * len(e.input_ids) + [0] * (width - len(e.input_ids)) for e in batch], device=device
            )
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=autocast):
                loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad(set_to_none=True)
            losses.append(float(loss.detach()))
            step += 1
            if step == 1 or step % 20 == 0 or step == total:
                print(
                    f"[finetune] step {step}/{total} loss {statistics.mean(losses[-20:]):.4f}",
                    file=sys.stderr,
                )
    model.eval()
    return TrainStats(
        step,
        len(examples),
        0,
        losses[0],
        statistics.mean(losses[-10:]),
        round(time.perf_counter() - started, 1),
    )


# ------------------------------------------------------------------------------ the run
def _device(name: str) -> str:
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


def default_base_model() -> Path:
    from serve.config import SMOLLM2_DIRNAME, default_cache_dir

    return default_cache_dir() / "models" / SMOLLM2_DIRNAME


def output_dir(config: FinetuneConfig, cache: Path | None) -> Path:
    if config.output_dir:
        return Path(config.output_dir).expanduser()
    from serve.config import default_cache_dir

    return (cache or default_cache_dir()) / "finetune" / config.name


def run_finetune(config: FinetuneConfig, out_dir: Path, base_model: Path | None = None) -> dict[str, Any]:
    """Train, evaluate before and after, gate, save. Raises GateFailed (after writing the report and the
    adapter) when the fine-tuned model is worse than the base."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM

    from serve.evaluation.reply_cases import load_cases
    from serve.generation.chat import ChatTokenizer

    if config.train.threads:
        torch.set_num_threads(config.train.threads)
    library = PromptLibrary.load(Path(config.prompts_dir) if config.prompts_dir else PROMPTS_DIR)
    files = config.train_files()
    if not files:
        raise ValueError(f"no training files match {config.data.train}")
    conversations = load_conversations(files)
    train, heldout = split_heldout(conversations, config.data.heldout_fraction, config.data.seed)
    if config.data.max_train_examples:
        train = train[: config.data.max_train_examples]
    heldout = heldout[: config.data.max_heldout] if config.data.max_heldout else heldout
    sets: dict[str, list[Conversation]] = {"heldout": heldout}
    if config.data.eval_cases:
        cases, _ = load_cases(REPO / config.data.eval_cases)
        converted = [c for c in (from_reply_case(case) for case in cases) if c is not None]
        sets["eval_cases"] = (
            converted[: config.data.max_eval_cases] if config.data.max_eval_cases else converted
        )

    base = Path(base_model or config.base_model or default_base_model()).expanduser()
    device = _device(config.train.device)
    chat = ChatTokenizer.from_dir(base)
    model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32).to(device).eval()  # type: ignore[arg-type]
    print(
        f"[finetune] {len(train)} training / {len(heldout)} held-out conversations from {len(files)} files; "
        f"base {base} on {device}",
        file=sys.stderr,
    )

    before, before_replies = evaluate(model, chat, library, sets, config)
    eot = end_of_turn(chat.tokenizer)
    encoded = [encode(c, library, chat, eot, config.train.max_len) for c in train]
    examples = [e for e in encoded if e is not None]
    lora = LoraConfig(
        r=config.lora.r,
        lora_alpha=config.lora.alpha,
        lora_dropout=config.lora.dropout,
        target_modules=config.lora.target_modules,
        task_type="CAUSAL_LM",
    )
    model = get_peft_model(model, lora)
    stats = train_lora(model, examples, config, chat.pad_id, device)
    stats.skipped_too_long = len(encoded) - len(examples)
    after, after_replies = evaluate(model, chat, library, sets, config)

    problems = []
    for name in after:
        problems += [f"{name}: {p}" for p in gate(before[name], after[name], config.eval.gate)]
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out_dir / ADAPTER))
    report = {
        "name": config.name,
        "base_model": str(base),
        "device": device,
        "files": [str(f) for f in files],
        "train": stats.__dict__,
        "before": before,
        "after": after,
        "gate_problems": problems,
        "passed": not problems,
        "samples": {
            name: [
                {
                    "message": c.message,
                    "lang": c.lang,
                    "reference": c.reply,
                    "before": before_replies[name][i],
                    "after": after_replies[name][i],
                }
                for i, c in enumerate(convs[:20])
            ]
            for name, convs in sets.items()
            if convs
        },
    }
    (out_dir / REPORT).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    if problems:
        raise GateFailed("; ".join(problems))
    if config.merge:
        merge_and_save(model, chat, base, out_dir / MERGED)
    return report


def merge_and_save(peft_model: Any, chat: Any, base: Path, target: Path) -> Path:
    """Fold the LoRA weights into the base weights and write a plain HF directory (weights, tokenizer,
    chat template, generation config)."""
    import shutil

    merged = peft_model.merge_and_unload()
    merged = merged.to("cpu")
    target.mkdir(parents=True, exist_ok=True)
    merged.save_pretrained(target)
    chat.tokenizer.save_pretrained(target)
    for name in ("generation_config.json", "chat_template.jinja"):
        if (base / name).is_file():
            shutil.copy2(base / name, target / name)
    _end_on_turn_start(chat.tokenizer, target / "generation_config.json")
    return target


def _end_on_turn_start(tokenizer: Any, config_path: Path) -> None:
    """Declare the chat template's turn-opening token (<|im_start|>) an end-of-sequence token too. A reply
    never contains it, and the adapter trained on the H200 (transformers 5.17) ends its replies with it
    instead of <|im_end|>: without this the reply ran on into a made-up next turn."""
    if not config_path.is_file():
        return
    rendered = tokenizer.apply_chat_template([{"role": "user", "content": "x"}], tokenize=False)
    ids = tokenizer(rendered, add_special_tokens=False)["input_ids"]
    special = set(tokenizer.all_special_ids) | {
        t for t, tok in tokenizer.added_tokens_decoder.items() if tok.special
    }
    opener = next((t for t in ids if t in special), None)
    if opener is None:
        return
    config = json.loads(config_path.read_text())
    eos = config.get("eos_token_id")
    eos = [eos] if isinstance(eos, int) else list(eos or [])
    if opener not in eos:
        config["eos_token_id"] = [*eos, opener]
        config_path.write_text(json.dumps(config, indent=2) + "\n")


def print_report(report: dict[str, Any]) -> None:
    keys = (
        "repetition_rate",
        "unsupported_fact_rate",
        "cut_mid_sentence_rate",
        "language_match",
        "must_include_rate",
        "chrf",
        "median_sentences",
    )
    for name in report["after"]:
        print(f"{name} (n={report['after'][name]['n']})")
        for key in keys:
            b, a = report["before"][name].get(key), report["after"][name].get(key)
            print(f"  {key:24} base {_fmt(b):>8}   fine-tuned {_fmt(a):>8}")
    t = report["train"]
    print(
        f"train: {t['steps']} steps on {t['examples']} conversations, loss {t['first_loss']:.3f} -> "
        f"{t['last_loss']:.3f}, {t['seconds']} s"
    )


def main(config_path: Path, cache: Path | None, out: Path | None = None) -> int:
    from checkpoints.finetune_config import FinetuneConfigError, load_finetune_config

    try:
        config = load_finetune_config(config_path)
    except FinetuneConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    target = out or output_dir(config, cache)
    try:
        report = run_finetune(config, target)
    except GateFailed as exc:
        report = json.loads((target / REPORT).read_text())
        print_report(report)
        print(f"finetune-llm: the fine-tuned model is worse than the base: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"finetune-llm: {exc}", file=sys.stderr)
        return 2
    print_report(report)
    print(
        f"finetune-llm: passed; adapter {target / ADAPTER}"
        + (f", merged model {target / MERGED}" if config.merge else ""),
        file=sys.stderr,
    )
    return 0


def merge_adapter(base: Path, adapter_dir: Path, target: Path) -> Path:
    """Offline merge of a shipped LoRA adapter into its base model (what `csreply prepare` runs)."""
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    from serve.generation.chat import ChatTokenizer

    model = AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32)
    peft_model = PeftModel.from_pretrained(model, adapter_dir, torch_dtype=torch.float32)
    return merge_and_save(peft_model, ChatTokenizer.from_dir(base), base, target)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
