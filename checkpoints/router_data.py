"""Router training data: the team's messages, extra labelled files (`extra_data`), splits, per-epoch sampling
weights and noise augmentation."""

from __future__ import annotations

import random
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checkpoints.router_config import DataConfig, ExtraData
from serve.evaluation.datasets import Example, load_intent_jsonl, text_key

REPO = Path(__file__).resolve().parents[1]


def resolve(path: str) -> Path:
    p = Path(path).expanduser()
    return p if p.is_absolute() else REPO / p


load_jsonl = load_intent_jsonl


def split_train_dev(
    examples: list[Example], dev_fraction: float, seed: int
) -> tuple[list[Example], list[Example]]:
    """Stratified by (intent, lang), deterministic for a seed."""
    groups: dict[tuple[str, str], list[Example]] = defaultdict(list)
    for ex in examples:
        groups[(ex.intent, ex.lang)].append(ex)
    rng = random.Random(seed)
    train, dev = [], []
    for key in sorted(groups):
        items = groups[key][:]
        rng.shuffle(items)
        cut = max(1, round(len(items) * dev_fraction)) if len(items) > 4 else 0
        dev.extend(items[:cut])
        train.extend(items[cut:])
    return train, dev


class DataError(ValueError):
    """A data file named by the build config is missing or malformed; one line says which and why."""


@dataclass
class TrainingData:
    train: list[Example]
    weights: list[float]  # per training row: expected times it is seen per epoch
    dev: list[Example]
    sources: list[dict[str, Any]] = field(default_factory=list)  # what each source contributed (build report)
    dropped_heldout: int = 0


def _require(path: str, what: str) -> Path:
    resolved = resolve(path)
    if not resolved.is_file():
        raise DataError(f"router data: {what} {path!r} not found (resolved to {resolved})")
    return resolved


def load_extra(source: ExtraData) -> list[Example]:
    """One extra_data file's rows as Examples (labels mapped if the config says so), tagged with its name."""
    path = _require(source.path, f"extra_data {source.display_name}:")
    name = source.display_name
    try:
        if source.label_map:
            from serve.evaluation.label_mapping import load_label_mapping, load_mapped_jsonl

            mapping = load_label_mapping(
                _require(source.label_map, f"extra_data {name}: label_map"), source.dataset
            )
            rows = load_mapped_jsonl(path, mapping, source.label_field, source.lang, name)
        else:
            rows = [Example(e.text, e.intent, source.lang or e.lang, name) for e in load_jsonl(path)]
    except ValueError as exc:
        raise DataError(f"router data: extra_data {name}: {exc}") from exc
    if source.max_per_intent is None:
        return rows
    by_intent: dict[str, list[Example]] = defaultdict(list)
    for ex in rows:
        by_intent[ex.intent].append(ex)
    rng = random.Random(f"cap:{name}")
    capped = []
    for intent in sorted(by_intent):
        items = by_intent[intent]
        rng.shuffle(items)
        capped.extend(items[: source.max_per_intent])
    return capped


def load_training_data(config: DataConfig, seed: int) -> TrainingData:
    """Train and dev from the team's files plus any `extra_data`, each split stratified by (intent, lang).

    Messages that repeat across files are kept once, and any message that also appears in the held-out
    file is dropped (decontamination: the held-out score must not measure memorisation). A file the config
    names but that is missing is an error, not a silent skip: a build must not quietly change its data."""
    held_files = ([config.heldout] if config.heldout else []) + config.analysis
    heldout = {text_key(e.text) for path in held_files for e in load_jsonl(_require(path, "evaluation file"))}
    seen: set[str] = set()
    dropped = 0

    def fresh(examples: list[Example]) -> list[Example]:
        nonlocal dropped
        kept = []
        for ex in examples:
            key = text_key(ex.text)
            if key in heldout or key in seen:
                dropped += key in heldout
                continue
            seen.add(key)
            kept.append(ex)
        return kept

    data = TrainingData([], [], [])
    for path in config.train:
        rows = [
            Example(e.text, e.intent, e.lang, Path(path).stem)
            for e in fresh(load_jsonl(_require(path, "training file")))
        ]
        train, dev = split_train_dev(rows, config.dev_fraction, seed)
        weight = config.train_weights.get(path, 1.0)
        data.train += train
        data.weights += [weight] * len(train)
        data.dev += dev
        data.sources.append(
            {
                "name": Path(path).stem,
                "path": path,
                "kind": "team",
                "rows": len(rows),
                "train": len(train),
                "dev": len(dev),
                "weight": weight,
            }
        )
    for source in config.extra_data:
        rows = fresh(load_extra(source))
        fraction = config.dev_fraction if source.dev_fraction is None else source.dev_fraction
        train, dev = split_train_dev(rows, fraction, seed) if fraction > 0 else (rows, [])
        data.train += train
        data.weights += [source.weight] * len(train)
        data.dev += dev
        data.sources.append(
            {
                "name": source.display_name,
                "path": source.path,
                "kind": "extra",
                "rows": len(rows),
                "train": len(train),
                "dev": len(dev),
                "weight": source.weight,
                "label_map": source.label_map,
                "label_field": source.label_field,
            }
        )
    data.dropped_heldout = dropped
    if dropped:
        print(
            f"router data: {dropped} training messages also in the held-out/analysis sets were dropped",
            file=sys.stderr,
        )
    return data


def epoch_rows(weights: list[float], rng: random.Random) -> list[int]:
    """Row indices for one epoch: each row floor(w) times, plus once more with probability frac(w)."""
    rows: list[int] = []
    for i, w in enumerate(weights):
        whole = int(w)
        rows.extend([i] * (whole + (rng.random() < w - whole)))
    return rows


# ----------------------------------------------------------------------------------------- augmentation
_ZH_PARTICLES = "啊呢吧呀嘛哈啦哦么"
_PUNCT = re.compile(r"[\s]*[,.!?;:，。！？；：、~…]+[\s]*")


def _typo(word: str, rng: random.Random) -> str:
    if len(word) < 4 or not word.isalpha():
        return word
    i = rng.randrange(1, len(word) - 1)
    op = rng.random()
    if op < 0.4:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]  # swap neighbours
    if op < 0.7:
        return word[:i] + word[i + 1 :]  # drop a letter
    return word[:i] + word[i] + word[i:]  # double a letter


def noisy_copy(ex: Example, rng: random.Random) -> Example:
    """A message as a hurried customer might type it; the label does not change."""
    text = ex.text
    if rng.random() < 0.5:
        text = _PUNCT.sub(" ", text).strip() or text
    if ex.lang == "zh":
        if rng.random() < 0.5:
            text = "".join(ch for ch in text if ch not in _ZH_PARTICLES) or text
        if rng.random() < 0.3:
            text = text.replace(" ", "")
    else:
        if rng.random() < 0.5:
            text = text.lower()
        words = text.split()
        if words and rng.random() < 0.6:
            j = rng.randrange(len(words))
            words[j] = _typo(words[j], rng)
            text = " ".join(words)
    return Example(text, ex.intent, ex.lang, ex.source)


def maybe_noisy(examples: list[Example], prob: float, rng: random.Random) -> list[Example]:
    """This epoch's view of the data: each message replaced by a noisy variant with probability `prob`."""
    return [noisy_copy(ex, rng) if rng.random() < prob else ex for ex in examples]


def gb2312_hanzi() -> list[str]:
    """The 6,763 hanzi of GB2312 (levels 1 and 2), enumerated from Python's codec."""
    chars = []
    for hi in range(0xB0, 0xF8):
        for lo in range(0xA1, 0xFF):
            try:
                chars.append(bytes([hi, lo]).decode("gb2312"))
            except UnicodeDecodeError:
                continue
    return chars
