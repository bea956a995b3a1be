from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from serve.router.base import Thresholds, decide
from serve.router.encoding import TextEncoder, detect_lang, normalize
from serve.router.lexical import LexicalHead, features


def test_normalize_folds_full_width_and_strips_control_characters() -> None:
    assert normalize("ＡＰＰ　登不上？？\x00\u200b ok") == "APP 登不上?? ok"


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("where is my parcel", "en"),
        ("我的快递到哪了", "zh"),
        ("我的order还没到", "zh"),
        ("5G", "en"),
        ("please help, 流量 is gone and the app crashed again", "en"),
    ],
)
def test_detect_lang_counts_mixed_chinese_english_as_chinese_when_mostly_chinese(
    text: str, lang: str
) -> None:
    assert detect_lang(text) == lang


def test_encoder_pads_truncates_and_reports_truncation(router_dir: Path) -> None:
    encoder = TextEncoder(router_dir / "tokenizer.json", max_length=16)
    batch = encoder.encode(["hi", "word " * 500, "话费" * 100_000])
    assert batch.input_ids.shape == (3, 16) and batch.input_ids.dtype == np.int64
    assert batch.truncated == [False, True, True]
    assert batch.lengths[0] < 16 and batch.attention_mask[0].sum() == batch.lengths[0]


def test_chinese_characters_are_real_tokens_not_unk(router_dir: Path) -> None:
    encoder = TextEncoder(router_dir / "tokenizer.json", max_length=32)
    ids = encoder.encode(["携号转网怎么办理"]).input_ids[0]
    assert 100 not in ids.tolist()  # [UNK] in the BERT vocabulary


def probs(*values: float) -> np.ndarray:
    return np.array(values + (0.0,) * (25 - len(values)))


def test_decide_flags_low_confidence_and_small_margin() -> None:
    labels = tuple(f"l{i}" for i in range(25))
    t = Thresholds(min_confidence=0.5, min_margin=0.1)
    assert decide(probs(0.9, 0.1), labels, t, 3)[3:] == (False, None)
    assert decide(probs(0.45, 0.1), labels, t, 3)[3:] == (True, "low_confidence")
    assert decide(probs(0.52, 0.46), labels, t, 3)[3:] == (True, "small_margin")
    label, confidence, ranking, _, _ = decide(probs(0.2, 0.7, 0.1), labels, t, 2)
    assert (label, confidence) == ("l1", 0.7) and [r.label for r in ranking] == ["l1", "l0"]


def test_lexical_head_round_trips_through_its_file(tmp_path: Path) -> None:
    rows = np.array(sorted({*features("查话费"), *features("where is my parcel")}))
    head = LexicalHead(
        rows,
        np.random.default_rng(0).normal(size=(len(rows), 25)).astype(np.float32),
        np.zeros(25, np.float32),
    )
    head.save(tmp_path / "lex.npz")
    again = LexicalHead.load(tmp_path / "lex.npz")
    assert np.allclose(
        head.logits(["查话费", "unseen words"]), again.logits(["查话费", "unseen words"]), atol=1e-2
    )
    assert np.allclose(again.logits(["zzzz qqqq"])[0], 0.0)  # no known feature: bias only
