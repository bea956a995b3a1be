"""The router's decision rule, tuned on dev: the out-of-scope bias and the `uncertain` thresholds.

Out of scope is a class like the others, but the costs are lopsided: an out-of-scope message pulled into an
intent gets a confident, wrong canned reply. So the build adds a bias to the out_of_scope score (in the
calibrated log-score space that serving uses, serve/router/model.py `with_oos_bias`) and picks, on the dev
split, the bias that reaches the target out-of-scope recall with the best in-scope macro-F1.

`uncertain` sends the customer a clarifying question. The thresholds are chosen on dev to minimise
`confident-wrong rate + uncertain_cost * uncertain rate`, with the uncertain rate capped: a clarifying
question is cheaper than a wrong reply, but not free.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from serve.evaluation.datasets import Example
from serve.evaluation.metrics import classification_report
from serve.router.base import softmax
from serve.router.model import with_oos_bias
from serve.taxonomy import INTENT_INDEX, INTENTS

OOS = INTENT_INDEX["out_of_scope"]
BIAS_GRID = tuple(round(b, 2) for b in np.arange(-1.0, 4.01, 0.25))
CONFIDENCE_GRID = tuple(round(c, 2) for c in np.arange(0.2, 0.71, 0.05))
MARGIN_GRID = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2)


def oos_stats(probs: np.ndarray, gold: list[int]) -> dict[str, float]:
    pred = probs.argmax(axis=1)
    gold_arr = np.asarray(gold)
    is_oos, said_oos = gold_arr == OOS, pred == OOS
    in_scope = ~is_oos
    names = [INTENTS[i] for i in pred]
    return {
        "oos_recall": float((said_oos & is_oos).sum() / max(1, is_oos.sum())),
        "oos_precision": float((said_oos & is_oos).sum() / max(1, said_oos.sum())),
        "in_scope_accuracy": float((pred[in_scope] == gold_arr[in_scope]).mean()) if in_scope.any() else 0.0,
        "accuracy": float((pred == gold_arr).mean()),
        "macro_f1": classification_report([INTENTS[g] for g in gold], names, INTENTS).macro_f1,
    }


def choose_oos_bias(
    scores: np.ndarray, dev: list[Example], target_recall: float, grid: tuple[float, ...] = BIAS_GRID
) -> tuple[float, dict[str, Any]]:
    """The bias with the best dev macro-F1 among those reaching `target_recall` (else the highest recall)."""
    gold = [INTENT_INDEX[e.intent] for e in dev]
    table = {b: oos_stats(softmax(with_oos_bias(scores, OOS, b)), gold) for b in grid}
    reaching = [b for b in grid if table[b]["oos_recall"] >= target_recall]
    if reaching:
        best = max(reaching, key=lambda b: (table[b]["macro_f1"], -abs(b)))
    else:
        best = max(grid, key=lambda b: (table[b]["oos_recall"], table[b]["macro_f1"]))
    return best, {
        "bias": best,
        "target_recall": target_recall,
        "reached": bool(reaching),
        "dev": table[best],
        "dev_without_bias": table.get(0.0),
        "dev_n_oos": int(sum(g == OOS for g in gold)),
    }


def uncertain_mask(probs: np.ndarray, min_confidence: float, min_margin: float) -> np.ndarray:
    """Vectorised `serve.router.base.decide`: which rows it would flag uncertain."""
    top2 = -np.sort(-probs, axis=1)[:, :2]
    return (top2[:, 0] < min_confidence) | (top2[:, 0] - top2[:, 1] < min_margin)


def choose_thresholds(
    probs: np.ndarray,
    dev: list[Example],
    max_uncertain_rate: float,
    uncertain_cost: float,
    min_confidence_floor: float = 0.0,
) -> tuple[dict[str, float], dict[str, Any]]:
    """(min_confidence, min_margin) minimising confident-wrong + cost * uncertain on dev, uncertain capped;
    min_confidence no lower than the floor."""
    gold = np.asarray([INTENT_INDEX[e.intent] for e in dev])
    wrong = probs.argmax(axis=1) != gold
    best: tuple[float, float, float, float] | None = None  # (objective, confidence, margin, uncertain rate)
    rows = []
    for conf in [c for c in CONFIDENCE_GRID if c >= min_confidence_floor - 1e-9] or [max(CONFIDENCE_GRID)]:
        for margin in MARGIN_GRID:
            flagged = uncertain_mask(probs, conf, margin)
            rate = float(flagged.mean())
            confident_wrong = float((wrong & ~flagged).mean())
            objective = confident_wrong + uncertain_cost * rate
            rows.append((conf, margin, rate, confident_wrong))
            if rate <= max_uncertain_rate and (best is None or objective < best[0] - 1e-12):
                best = (objective, conf, margin, rate)
    if best is None:  # nothing meets the cap: the least-flagging pair
        conf, margin, rate, _ = min(rows, key=lambda r: (r[2], -r[0]))
        best = (float("nan"), conf, margin, rate)
    _, conf, margin, rate = best
    chosen = {"min_confidence": float(conf), "min_margin": float(margin)}
    flagged = uncertain_mask(probs, conf, margin)
    return chosen, {
        "dev_uncertain_rate": rate,
        "dev_confident_wrong_rate": float((wrong & ~flagged).mean()),
        "dev_accuracy_when_confident": float((~wrong & ~flagged).sum() / max(1, (~flagged).sum())),
        "max_uncertain_rate": max_uncertain_rate,
        "uncertain_cost": uncertain_cost,
    }
