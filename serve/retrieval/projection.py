"""A linear map of the router's sentence vectors, fitted to the index's own texts.

The router's encoder is trained to tell 25 intents apart, so its vectors place "how long do I have to return
it" and "how do I send it back" close together (both return_exchange). Knowledge entries and bank replies
differ inside an intent. The index's texts say which texts belong together (an entry's title, questions and
text; a reply's situation, examples and reply), so a linear map is fitted on them with an in-batch contrastive
loss: texts of the same item pulled together, the others pushed apart. It needs no labelled messages beyond
the index itself and follows every edit of the knowledge base (it is refitted when the texts change).

Written in numpy with the gradient worked out (checked against autograd in tests/unit/test_knowledge.py),
on one BLAS thread: the fit also runs while the server generates, and BLAS threads that spin-wait for each
other on busy cores made it 6-8x slower with two threads than with one (PyTorch's pool, which is
process-wide, behaved the same).
"""

from __future__ import annotations

import logging
import time

import numpy as np
from threadpoolctl import threadpool_limits

logger = logging.getLogger(__name__)


def contrastive_step(
    weight: np.ndarray, anchors: np.ndarray, positives: np.ndarray, same: np.ndarray, temperature: float
) -> tuple[float, np.ndarray]:
    """InfoNCE loss of one batch and its gradient with respect to `weight`.

    a_i = norm(anchors_i W), b_j = norm(positives_j W), s_ij = a_i.b_j / t; pairs marked in `same` (other
    texts of the same item, off the diagonal) are left out; loss = mean_i(logsumexp_j s_ij - s_ii)."""
    p, q = anchors @ weight, positives @ weight
    p_norm = np.maximum(np.linalg.norm(p, axis=1, keepdims=True), 1e-8)
    q_norm = np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-8)
    a, b = p / p_norm, q / q_norm
    scores = np.where(same, -1e4, (a @ b.T) / temperature)
    scores -= scores.max(axis=1, keepdims=True)
    probs = np.exp(scores)
    probs /= probs.sum(axis=1, keepdims=True)
    n = len(anchors)
    loss = float(-np.mean(np.log(np.diag(probs) + 1e-30)))
    d_scores = (probs - np.eye(n)) / n
    d_a = d_scores @ b / temperature
    d_b = d_scores.T @ a / temperature
    d_p = (d_a - a * np.sum(a * d_a, axis=1, keepdims=True)) / p_norm
    d_q = (d_b - b * np.sum(b * d_b, axis=1, keepdims=True)) / q_norm
    return loss, anchors.T @ d_p + positives.T @ d_q


def fit_projection(
    vectors: np.ndarray,
    items: np.ndarray,
    steps: int = 300,
    batch: int = 384,
    temperature: float = 0.05,
    lr: float = 1e-3,
    seed: int = 0,
) -> np.ndarray | None:
    """A (d, d) matrix started at the identity and trained with Adam; None when there is nothing to learn
    (too few items with two or more texts)."""
    started = time.perf_counter()
    data = np.asarray(vectors, dtype=np.float32)
    items = np.asarray(items)
    groups = [np.flatnonzero(items == item) for item in np.unique(items)]
    groups = [g for g in groups if len(g) > 1]
    if len(groups) < 4:
        return None
    anchors = np.concatenate(groups)
    group_of = {int(i): g for g in groups for i in g}
    rng = np.random.default_rng(seed)
    dim = data.shape[1]
    weight = np.eye(dim, dtype=np.float32)
    m, v = np.zeros_like(weight), np.zeros_like(weight)
    size = min(batch, len(anchors))
    loss = float("nan")
    with threadpool_limits(1, user_api="blas"):
        for step in range(1, steps + 1):
            loss = _adam_step(weight, m, v, step, data, items, anchors, group_of, rng, size, temperature, lr)
    logger.info(
        "retrieval.projection fitted texts=%d items=%d steps=%d loss=%.3f fit_s=%.1f",
        len(data),
        len(groups),
        steps,
        loss,
        time.perf_counter() - started,
    )
    return weight


def _adam_step(
    weight: np.ndarray,
    m: np.ndarray,
    v: np.ndarray,
    step: int,
    data: np.ndarray,
    items: np.ndarray,
    anchors: np.ndarray,
    group_of: dict[int, np.ndarray],
    rng: np.random.Generator,
    size: int,
    temperature: float,
    lr: float,
    beta1: float = 0.9,
    beta2: float = 0.999,
) -> float:
    """One batch: a random text of each picked item and another text of the same item; `weight`, `m` and
    `v` (Adam's moments) are updated in place."""
    picked = rng.choice(anchors, size=size, replace=False)
    positives = np.empty_like(picked)
    for n, i in enumerate(picked):  # another text of the same item
        members = group_of[int(i)]
        choice = members[rng.integers(len(members) - 1)]
        positives[n] = choice if choice != i else members[-1]
    same = (items[picked][:, None] == items[positives][None, :]) & ~np.eye(size, dtype=bool)
    loss, grad = contrastive_step(weight, data[picked], data[positives], same, temperature)
    m *= beta1
    m += (1 - beta1) * grad
    v *= beta2
    v += (1 - beta2) * grad * grad
    weight -= (lr * (m / (1 - beta1**step)) / (np.sqrt(v / (1 - beta2**step)) + 1e-8)).astype(np.float32)
    return loss


def project(vectors: np.ndarray, matrix: np.ndarray | None) -> np.ndarray:
    """Rows mapped by `matrix` and L2-normalised again (unchanged without a matrix)."""
    if matrix is None:
        return vectors
    out = np.asarray(vectors, dtype=np.float32) @ matrix
    return out / np.maximum(np.linalg.norm(out, axis=-1, keepdims=True), 1e-6)
