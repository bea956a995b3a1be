"""Quality floors of the shipped router on the project's held-out split (written independently of the
training data, never trained or tuned on) and of the rules backend."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from serve.config import Settings
from serve.evaluation.datasets import load_intent_jsonl
from serve.evaluation.metrics import classification_report
from serve.evaluation.router_eval import evaluate, make_backend
from serve.router.rules import RulesRouter
from serve.taxonomy import INTENTS
from tests.conftest import REPO

HELDOUT = REPO / "data" / "intents" / "heldout.jsonl"


@pytest.mark.slow
def test_default_router_meets_the_bilingual_targets_on_heldout(router_dir: Path) -> None:
    result = evaluate(make_backend("onnx", Settings()), load_intent_jsonl(HELDOUT), latency_samples=20)
    en, zh = result["per_lang"]["en"]["macro_f1"], result["per_lang"]["zh"]["macro_f1"]
    assert en >= 0.9 and zh >= 0.85, result["per_lang"]
    assert en - zh <= 0.05, f"Chinese is {100 * (en - zh):.1f} points behind English"


def test_rules_backend_beats_the_majority_baseline_in_both_languages() -> None:
    examples = load_intent_jsonl(HELDOUT)
    results = asyncio.run(RulesRouter().classify([e.text for e in examples]))
    for lang in ("en", "zh"):
        idx = [i for i, e in enumerate(examples) if e.lang == lang]
        gold = [examples[i].intent for i in idx]
        accuracy = classification_report(gold, [results[i].label for i in idx], INTENTS).accuracy
        majority = Counter(gold).most_common(1)[0][1] / len(gold)
        assert accuracy > majority + 0.2, (lang, accuracy, majority)
