"""Router training data: the project's own messages, optional public sets, splits and noise augmentation."""

from __future__ import annotations

import random
import re
import sys
from collections import defaultdict
from pathlib import Path

from checkpoints.router_config import DataConfig, PublicSource
from serve.evaluation.datasets import Example, load_intent_jsonl

REPO = Path(__file__).resolve().parents[1]


def resolve(path: str) -> Path:
    p = Path(path).expanduser()
    return p if p.is_absolute() else REPO / p


load_jsonl = load_intent_jsonl


def split_train_dev(examples: list[Example], dev_fraction: float, seed: int) -> tuple[list[Example], list[Example]]:
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


def sample_public(source: PublicSource, seed: int) -> list[Example]:
    path = resolve(source.path)
    if not path.is_file():
        print(f"router data: optional public set {path} not found; skipped", file=sys.stderr)
        return []
    by_intent: dict[str, list[Example]] = defaultdict(list)
    seen: set[str] = set()
    for ex in load_jsonl(path):
        key = re.sub(r"\W+", " ", ex.text.lower()).strip()
        if key not in seen:  # the template-generated sets repeat themselves
            seen.add(key)
            by_intent[ex.intent].append(ex)
    rng = random.Random(seed)
    picked = []
    for intent in sorted(by_intent):
        items = by_intent[intent]
        rng.shuffle(items)
        cap = source.max_out_of_scope if intent == "out_of_scope" else source.max_per_intent
        picked.extend(items[:cap])
    return picked


def text_key(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def load_training_data(config: DataConfig, seed: int) -> tuple[list[Example], list[Example]]:
    """(train, dev): dev comes from the project's own data only; public sets only ever train.

    Messages that repeat across files are kept once, and any message that also appears in the held-out
    file is dropped from training (decontamination: the held-out score must not measure memorisation)."""
    heldout = {text_key(e.text) for e in load_jsonl(resolve(config.heldout))} if config.heldout and resolve(
        config.heldout).is_file() else set()
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

    own: list[Example] = []
    for path in config.train:
        own.extend(fresh(load_jsonl(resolve(path))))
    train, dev = split_train_dev(own, config.dev_fraction, seed)
    for source in config.public:
        train.extend(fresh(sample_public(source, seed)))
    if dropped:
        print(f"router data: {dropped} training messages also in the held-out set were dropped", file=sys.stderr)
    return train, dev


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
