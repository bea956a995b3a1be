"""Build a router: train the BERT classifier, export ONNX, optimise, quantise, evaluate, write router.json.

    python -m checkpoints build-router build_configs/router/default.yaml [--force]

The output directory (default <cache>/router/<name>) is rebuilt only when the build hash changes: the
config, the training data files and this code all feed the hash, so a stale router is never reused.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from checkpoints.cpu import TrainingDevice, resolve_training_device
from checkpoints.router_config import RouterBuildConfig
from checkpoints.router_data import (
    Example,
    TrainingData,
    epoch_rows,
    load_jsonl,
    load_training_data,
    maybe_noisy,
    resolve,
)
from checkpoints.router_metrics import summarize
from checkpoints.staging import install_dir
from serve.router.model import Calibration
from serve.router.progress import progress_path
from serve.taxonomy import INTENT_INDEX, INTENTS

CODE_FILES = (
    "router.py",
    "cpu.py",
    "router_data.py",
    "router_model.py",
    "router_export.py",
    "router_config.py",
    "router_lexical.py",
    "router_metrics.py",
    "router_decision.py",
    "router_report.py",
)


def build_hash(config: RouterBuildConfig) -> str:
    digest = hashlib.sha256(config.model_dump_json().encode())
    paths = [resolve(p) for p in config.data.train]
    for extra in config.data.extra_data:
        paths += [resolve(extra.path)] + ([resolve(extra.label_map)] if extra.label_map else [])
    for path in paths:
        digest.update(str(path.name).encode())
        if path.is_file():
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    here = Path(__file__).parent
    for name in CODE_FILES:
        digest.update(code_digest(here / name))
    for name in ("encoding.py", "lexical.py", "model.py", "torch_model.py", "progress.py"):
        digest.update(code_digest(here.parent / "serve" / "router" / name))
    return digest.hexdigest()[:16]


def code_digest(path: Path) -> bytes:
    """What a code file does, not how it is laid out: the digest of its syntax tree minus docstrings, so that
    a comment, a docstring, a reformat or a wrapped line does not throw away a router build that took minutes
    (hours without bf16)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, _DOCUMENTED) and body and _is_docstring(body[0]):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(_canonical(tree).encode()).digest()


def _canonical(node: object) -> str:
    """A syntax tree as text that is the same on every supported Python: `ast.dump` is not (3.12 added fields
    such as `type_params`), so fields that are None or an empty list are left out."""
    if isinstance(node, ast.AST):
        values = ((name, getattr(node, name, None)) for name in node._fields)
        fields = (
            f"{name}={_canonical(value)}" for name, value in values if value is not None and value != []
        )
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return "[" + ", ".join(_canonical(item) for item in node) + "]"
    return repr(node)


_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def output_dir(config: RouterBuildConfig, cache_dir: Path) -> Path:
    return Path(config.output_dir).expanduser() if config.output_dir else cache_dir / "router" / config.name


def is_current(out_dir: Path, config: RouterBuildConfig) -> bool:
    manifest = out_dir / "router.json"
    if not manifest.is_file():
        return False
    try:
        data = json.loads(manifest.read_text())
    except json.JSONDecodeError:
        return False
    files_ok = all((out_dir / v["file"]).is_file() for v in data.get("variants", {}).values())
    return data.get("build_hash") == build_hash(config) and files_ok


_STARTED = time.perf_counter()


def log(message: str) -> None:
    # seconds since the build command started: shows where a slow build spends its time
    print(f"[build-router {time.perf_counter() - _STARTED:5.0f}s] {message}", file=sys.stderr, flush=True)


def build_threads(configured: int | None) -> int:
    """Threads for training: the configured number, else the cores other work leaves free (at least one).

    Measured on the shared 2-core machine at load ~8: two threads ran 5-7 s per batch (a third of the time in
    the kernel: the threads spin-wait for each other while the scheduler hands their core to someone else),
    one thread 0.5-1 s. On an idle machine two threads are faster, so the choice is made at start from how
    busy the cores are right now (half a second of /proc/stat). The 1-minute load average, the fallback
    where /proc/stat is missing, still carries work that just ended (`make setup` installs packages right
    before the build): it chose one thread for a build started a second after another one."""
    if configured:
        return configured
    cores = max(1, os.cpu_count() or 1)
    busy = busy_cores(0.5)
    source = "busy now"
    if busy is None:
        busy, source = os.getloadavg()[0], "1-minute load average"
    threads = max(1, min(cores, math.ceil(cores - busy - 0.25)))  # a core counts as free when a quarter idle
    log(f"threads: {threads} of {cores} cores ({source} {busy:.1f})")
    return threads


def busy_cores(seconds: float) -> float | None:
    """Cores in use over the next `seconds`, from the kernel's CPU time counters (None off Linux)."""

    def sample() -> tuple[int, int]:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        return sum(fields), idle

    try:
        total0, idle0 = sample()
        time.sleep(seconds)
        total1, idle1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    if total1 <= total0:
        return None
    return (os.cpu_count() or 1) * (1 - (idle1 - idle0) / (total1 - total0))


def build_router(config: RouterBuildConfig, cache_dir: Path, force: bool = False) -> Path:
    out_dir = output_dir(config, cache_dir)
    if not force and is_current(out_dir, config):
        log(f"router {config.name} is up to date: {out_dir}")
        return out_dir
    import torch

    threads = build_threads(config.training.threads)
    torch.set_num_threads(threads)
    started = time.perf_counter()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir.parent, prefix=f".{config.name}-") as tmp:
        staged = Path(tmp) / "router"
        try:
            manifest = _build_into(config, cache_dir, staged, out_dir)
            manifest["build_seconds"] = round(time.perf_counter() - started, 1)
            (staged / "router.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
            install_dir(staged, out_dir)
        finally:
            progress_path(out_dir).unlink(missing_ok=True)
    log(f"router {config.name} ready in {manifest['build_seconds']} s: {out_dir}")
    return out_dir


def _build_into(config: RouterBuildConfig, cache_dir: Path, staged: Path, out_dir: Path) -> dict[str, Any]:
    from checkpoints.router_export import export_variants, score_variant, variant_logits
    from checkpoints.router_model import RouterModel, build_tokenizer, encoder_dir, load_encoder, save_torch
    from checkpoints.router_report import data_notes, write_report
    from serve.router.encoding import TextEncoder

    seed = config.training.seed
    random.seed(seed)
    import torch

    torch.manual_seed(seed)
    data = load_training_data(config.data, seed)
    train, dev = data.train, data.dev
    log(
        f"data: {len(train)} training messages ({sum(data.weights):.0f} per epoch after weights), {len(dev)} "
        f"dev, from {len(data.sources)} files"
    )

    source = encoder_dir(config.encoder, cache_dir)
    tokenizer, vocab_size, added = build_tokenizer(source, config.encoder.add_cjk_vocab)
    staged.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(staged / "tokenizer.json"))
    log(f"tokenizer: {vocab_size} tokens ({added} CJK characters added)")
    train_encoder = TextEncoder(staged / "tokenizer.json", config.training.max_length)

    encoder = load_encoder(source, vocab_size)
    encoder_config: Any = encoder.config  # a transformers config (mypy sees torch.nn attribute lookups)
    model = RouterModel(encoder, len(INTENTS), config.encoder.pooling)
    trained_on = _train(model, train_encoder, data, config, out_dir)
    bf16 = trained_on.bf16

    eval_encoder = TextEncoder(staged / "tokenizer.json", config.export.max_length)
    dev_logits = _logits(model, eval_encoder, [e.text for e in dev])  # the one pass over dev, reused below
    torch_dev = _report(dev_logits, dev)
    log(
        f"after {config.training.epochs} epochs: dev accuracy {torch_dev['accuracy']:.4f}, "
        f"macro-F1 {torch_dev['macro_f1']:.4f}"
    )
    calibration, lexical_entry, weight_scores = _calibrate(dev_logits, data, config, staged)
    calibration, oos_entry, thresholds = _tune_decision(dev_logits, calibration, dev, config)
    meta = {"num_labels": len(INTENTS), "pooling": config.encoder.pooling, "labels": list(INTENTS)}
    save_torch(model, staged / "pytorch", meta)

    heldout = load_jsonl(resolve(config.data.heldout)) if config.data.heldout else []
    analysis = {Path(p).stem: load_jsonl(resolve(p)) for p in config.data.analysis}
    variants = export_variants(model, staged, config)
    bert_only = Calibration(
        calibration.temperature, oos_index=calibration.oos_index, oos_bias=calibration.oos_bias
    )
    metrics: dict[str, Any] = {"torch_dev": torch_dev, "lexical_weight_dev": weight_scores}
    splits = {"dev": dev, **({"heldout": heldout} if heldout else {}), **analysis}
    for name, info in variants.items():
        for (
            split,
            rows,
        ) in splits.items():  # one ONNX pass per variant and set, scored with and without the lexical head
            logits = variant_logits(staged / info["file"], eval_encoder, [e.text for e in rows])
            metrics[f"{name}_{split}"] = score_variant(logits, calibration, rows, thresholds)
            if split == "heldout" and lexical_entry:
                metrics[f"{name}_bert_only_heldout"] = score_variant(logits, bert_only, rows)
    default = _choose_default(variants, metrics, config)
    manifest = {
        "format": 1,
        "name": config.name,
        "labels": list(INTENTS),
        "max_length": config.export.max_length,
        "temperature": calibration.temperature,
        "lexical": lexical_entry,
        "out_of_scope": oos_entry,
        "thresholds": thresholds,
        "default_variant": default,
        "variants": variants,
        "build_hash": build_hash(config),
        "training_bf16": {"enabled": bf16.enabled, "reason": bf16.reason},
        "training_device": trained_on.device,
        "encoder": {
            "source": config.encoder.source,
            "vocab_size": vocab_size,
            "added_cjk": added,
            "hidden_size": encoder_config.hidden_size,
            "layers": encoder_config.num_hidden_layers,
            "heads": encoder_config.num_attention_heads,
        },
        "data": {
            "train": len(train),
            "dev": len(dev),
            "heldout": len(heldout),
            "analysis": {k: len(v) for k, v in analysis.items()},
            "noise_prob": config.data.noise_prob,
            "dropped_as_in_heldout": data.dropped_heldout,
            "sources": data.sources,
            "metric_data": data_notes(config, data),
        },
        "metrics": metrics,
        "versions": _versions(),
    }
    write_report(staged / "report.md", manifest)
    return manifest


def _tune_decision(
    dev_logits: Any, calibration: Any, dev: list[Example], config: RouterBuildConfig
) -> tuple[Any, dict[str, Any] | None, dict[str, Any]]:
    """The out-of-scope bias, then the uncertain thresholds, both on dev (checkpoints/router_decision.py)."""
    import dataclasses

    from checkpoints.router_decision import OOS, choose_oos_bias, choose_thresholds
    from serve.router.base import softmax
    from serve.router.model import with_oos_bias

    texts = [e.text for e in dev]
    scores = calibration.scores(dev_logits, texts)
    oos_entry = None
    target = config.out_of_scope.target_recall
    if target is not None and any(e.intent == "out_of_scope" for e in dev):
        bias, oos_entry = choose_oos_bias(scores, dev, target)
        d, before = oos_entry["dev"], oos_entry["dev_without_bias"] or {}
        log(
            f"out-of-scope bias {bias:+.2f} on dev ({oos_entry['dev_n_oos']} OOS): recall "
            f"{before.get('oos_recall', 0):.3f} -> {d['oos_recall']:.3f}, precision "
            f"{before.get('oos_precision', 0):.3f} -> {d['oos_precision']:.3f}, macro-F1 "
            f"{before.get('macro_f1', 0):.4f} -> {d['macro_f1']:.4f}"
        )
        calibration = dataclasses.replace(calibration, oos_index=OOS, oos_bias=bias)
    elif target is not None:
        log("out-of-scope bias: the dev split has no out_of_scope messages; no bias")
    thresholds: dict[str, Any] = config.thresholds.model_dump(include={"min_confidence", "min_margin"})
    if config.thresholds.tune:
        probs = softmax(with_oos_bias(scores, calibration.oos_index, calibration.oos_bias))
        chosen, info = choose_thresholds(
            probs,
            dev,
            config.thresholds.max_uncertain_rate,
            config.thresholds.uncertain_cost,
            config.thresholds.min_confidence_floor,
        )
        log(
            f"uncertain thresholds on dev: confidence {chosen['min_confidence']:.2f}, margin "
            f"{chosen['min_margin']:.2f} (uncertain {info['dev_uncertain_rate']:.3f}, confident-wrong "
            f"{info['dev_confident_wrong_rate']:.3f})"
        )
        thresholds = {**chosen, "tuned_on_dev": info}
    return calibration, oos_entry, thresholds


def _calibrate(
    dev_logits: Any, data: TrainingData, config: RouterBuildConfig, staged: Path
) -> tuple[Any, dict[str, Any] | None, dict[float, float]]:
    """Softmax temperature on dev, then the lexical head and its ensemble weight, also chosen on dev."""
    from checkpoints.router_lexical import choose_weight, train_lexical
    from serve.router.base import ensemble_scores
    from serve.router.model import Calibration

    dev = data.dev
    gold = [INTENT_INDEX[e.intent] for e in dev]
    temperature = _fit_temperature(dev_logits, gold)
    log(f"calibrated softmax temperature on dev: {temperature:.2f}")
    rows = epoch_rows(data.weights, random.Random(config.training.seed + 1))
    lexical = train_lexical([data.train[i] for i in rows], config.data.noise_prob, config.training.seed)
    lexical_dev = lexical.logits([e.text for e in dev])
    weight, scores = choose_weight(dev_logits, temperature, lexical_dev, dev)
    log(
        "lexical head, dev macro-F1 (mean over languages) by weight: "
        + ", ".join(f"{w:g}: {f:.4f}" for w, f in scores.items())
    )
    if weight == 0:
        return Calibration(temperature), None, scores
    lexical.save(staged / "lexical.npz")
    combined_t = _fit_temperature(ensemble_scores(dev_logits, temperature, lexical_dev, weight), gold)
    entry = {
        "file": "lexical.npz",
        "weight": weight,
        "temperature": combined_t,
        "features": int(len(lexical.rows)),
    }
    log(
        f"lexical head weight {weight:g} ({len(lexical.rows)} features), ensemble temperature "
        f"{combined_t:.2f}"
    )
    return Calibration(temperature, lexical, weight, combined_t), entry, scores


def _choose_default(variants: dict[str, Any], metrics: dict[str, Any], config: RouterBuildConfig) -> str:
    """INT8 only if it loses at most `max_accuracy_loss_points` against FP32 on dev and on held-out."""
    if "int8" not in variants:
        return "fp32"
    limit = config.export.int8.max_accuracy_loss_points
    for split in ("dev", "heldout"):
        if f"fp32_{split}" not in metrics:
            continue
        loss = 100 * (metrics[f"fp32_{split}"]["accuracy"] - metrics[f"int8_{split}"]["accuracy"])
        log(f"INT8 vs FP32 accuracy on {split}: {-loss:+.2f} points")
        if loss > limit:
            log(f"INT8 loses {loss:.2f} points on {split} (> {limit}): default stays FP32")
            return "fp32"
    return "int8"


def _train(
    model: Any, encoder: Any, data: TrainingData, config: RouterBuildConfig, out_dir: Path
) -> TrainingDevice:
    """Fine-tune in place (the model ends on the CPU), writing progress beside `out_dir`; returns the device
    and the bf16 choice it trained with."""
    import torch
    from tqdm import tqdm

    from serve.router.progress import Progress

    cfg = config.training
    trained_on = resolve_training_device(cfg.device, cfg.bf16)
    device, bf16 = trained_on.device, trained_on.bf16
    log(f"training on {device}; bf16 autocast: {'on' if bf16.enabled else 'off'} ({bf16.reason})")
    model.to(device)
    embeddings = model.encoder.get_input_embeddings().weight
    encoder_params = [p for n, p in model.encoder.named_parameters() if p is not embeddings]
    optimizer = torch.optim.AdamW(
        [
            {"params": encoder_params, "lr": cfg.lr_encoder},
            {"params": [embeddings], "lr": cfg.lr_embeddings, "weight_decay": 0.0},
            {"params": model.head.parameters(), "lr": cfg.lr_head},
        ],
        weight_decay=cfg.weight_decay,
        fused=True,
    )
    train = data.train
    lengths = encoder.encode_lengths([r.text for r in train])
    total = int(sum(data.weights) / cfg.batch_size + 1) * cfg.epochs
    warmup = max(1, int(total * cfg.warmup_ratio))

    def schedule(step: int) -> float:
        return step / warmup if step < warmup else max(0.0, (total - step) / max(1, total - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    progress = Progress(out_dir, total)
    done = 0
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)
    rng = random.Random(cfg.seed)
    for epoch in range(cfg.epochs):
        model.train()
        picked = epoch_rows(data.weights, rng)  # sampling weights: this epoch's rows (repeats allowed)
        batches = [
            [picked[j] for j in b]
            for b in length_bucketed_batches([lengths[i] for i in picked], cfg.batch_size, rng)
        ]
        view = maybe_noisy(train, config.data.noise_prob, rng)
        bar = tqdm(batches, desc=f"epoch {epoch + 1}/{cfg.epochs}", file=sys.stderr, mininterval=2.0)
        total_loss = 0.0
        for rows_idx in bar:
            rows = [view[i] for i in rows_idx]
            batch = encoder.encode([r.text for r in rows])
            labels = torch.tensor([INTENT_INDEX[r.intent] for r in rows], device=device)
            with torch.autocast(device, dtype=torch.bfloat16, enabled=bf16.enabled):
                logits = model(
                    torch.from_numpy(batch.input_ids).to(device),
                    torch.from_numpy(batch.attention_mask).to(device),
                )
            loss = loss_fn(logits.float(), labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            step_loss = loss.item()
            total_loss += step_loss
            bar.set_postfix(loss=f"{step_loss:.3f}", refresh=False)
            done += 1
            progress.write(f"training, epoch {epoch + 1} of {cfg.epochs}", done)
        # dev is measured once, after the last epoch (_calibrate): a dev pass per epoch cost 15 s each, and
        # the linear decay to zero made the last epoch the best in every build measured
        log(f"epoch {epoch + 1}: mean training loss {total_loss / max(1, len(batches)):.4f}")
    model.eval()
    model.to("cpu")  # calibration, ONNX export and INT8 quantization are CPU steps
    progress.write("exporting and evaluating", total, force=True)
    return trained_on


def length_bucketed_batches(lengths: list[int], batch_size: int, rng: random.Random) -> list[list[int]]:
    """Shuffled batches of similar-length messages: far less padding than random batches, same coverage."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    window = batch_size * 50
    batches: list[list[int]] = []
    for start in range(0, len(order), window):
        chunk = sorted(order[start : start + window], key=lambda i: lengths[i])
        batches.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    rng.shuffle(batches)
    return batches


def _logits(model: Any, encoder: Any, texts: list[str]) -> Any:
    import torch

    from checkpoints.router_export import length_sorted_logits

    def forward(input_ids: Any, attention_mask: Any) -> Any:
        return model(torch.from_numpy(input_ids), torch.from_numpy(attention_mask)).float().numpy()

    model.eval()
    with torch.inference_mode():
        return length_sorted_logits(encoder, texts, forward)


def _report(logits: Any, examples: list[Example]) -> dict[str, Any]:
    return summarize(examples, [INTENTS[i] for i in logits.argmax(axis=1)])


def _fit_temperature(logits: Any, gold: list[int]) -> float:
    """The softmax temperature that minimises dev negative log-likelihood (grid search)."""
    import numpy as np

    from serve.router.base import softmax

    if len(gold) == 0:
        return 1.0
    best_t, best_nll = 1.0, float("inf")
    for t in np.arange(0.3, 4.01, 0.05):
        probs = softmax(logits, float(t))
        nll = -float(np.mean(np.log(probs[np.arange(len(gold)), gold] + 1e-12)))
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    return round(best_t, 2)


def _versions() -> dict[str, str]:
    import onnxruntime
    import torch
    import transformers

    return {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "onnxruntime": onnxruntime.__version__,
    }
