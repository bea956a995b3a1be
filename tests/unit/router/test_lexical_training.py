"""The lexical head's hand-written gradient trains the same weights as autograd through the plain loss
(mean cross-entropy plus 1e-6 * |W|^2), and the head it returns separates what it was trained on."""

from __future__ import annotations

import random

import numpy as np
import torch

from checkpoints.router_data import maybe_noisy
from checkpoints.router_lexical import _sparse, train_lexical
from serve.evaluation.datasets import Example
from serve.router.lexical import DIM
from serve.taxonomy import INTENT_INDEX, INTENTS

ROWS = [
    Example("where is my parcel", "order_tracking", "en"),
    Example("track my order please", "order_tracking", "en"),
    Example("parcel not here yet, where is it", "order_tracking", "en"),
    Example("i want my money back", "refund", "en"),
    Example("refund please", "refund", "en"),
    Example("when do i get the refund", "refund", "en"),
    Example("我的快递到哪了", "order_tracking", "zh"),
    Example("钱什么时候退给我", "refund", "zh"),
    Example("what's the weather tomorrow", "out_of_scope", "en"),
    Example("tell me a joke", "out_of_scope", "en"),
]


def _autograd_reference(rows: list[Example], seed: int, steps: int) -> tuple[np.ndarray, np.ndarray]:
    data = rows + maybe_noisy(rows, 0.5, random.Random(seed))
    x = _sparse(data)
    y = torch.tensor([INTENT_INDEX[e.intent] for e in data])
    w = torch.zeros(DIM, len(INTENTS), requires_grad=True)
    b = torch.zeros(len(INTENTS), requires_grad=True)
    opt = torch.optim.Adam([w, b], lr=0.05)
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(torch.sparse.mm(x, w) + b, y)
        (loss + 1e-6 * (w * w).sum()).backward()
        opt.step()
    return w.detach().numpy(), b.detach().numpy()


def test_same_weights_as_autograd() -> None:
    head = train_lexical(ROWS, 0.3, seed=7, steps=25)
    w_ref, b_ref = _autograd_reference(ROWS, seed=7, steps=25)
    used = np.flatnonzero(np.abs(w_ref).sum(axis=1) > 0)
    assert np.array_equal(head.rows, used)
    np.testing.assert_allclose(head.weights, w_ref[used], atol=1e-4)
    np.testing.assert_allclose(head.bias, b_ref, atol=1e-4)


def test_the_trained_head_separates_its_data() -> None:
    head = train_lexical(ROWS, 0.3, seed=1)
    predicted = [INTENTS[i] for i in head.logits([r.text for r in ROWS]).argmax(axis=1)]
    assert predicted == [r.intent for r in ROWS]
