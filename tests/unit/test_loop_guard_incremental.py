"""The incremental loop guard sends what the rescanning one sent, delta by delta, and finishes the same way:
replies that loop, repeat sentences, hit the sentence limit, number their steps, end lines, quote, trail
off in an ellipsis, mix English and Chinese, cut by length or not, fed in random pieces with the budget
running out at a random point."""

from __future__ import annotations

import random

import pytest

from serve.generation.loop_guard import LoopGuard
from tests.unit.loop_guard_reference import RescanningLoopGuard

REPLIES = [
    "You can check your data in the app. You can also check the data allowance in the app's home screen or "
    "dialing *100#. You can also check the data allowance in the app's home screen or dialing *100#. ",
    "Decentralized " * 30,
    "Sorry your payment didn't go through. Please check that your card hasn't expired, then try again. "
    'If money left your account, reply "human agent".',
    "Here is how:\n1. Open the app.\n2. Tap Billing.\n\n3. Tap Pay bill.\na) Confirm. b) Done.\n",
    'Your bill is $42.50, due on 3 May... You can pay it (online!) in the app under Billing?! "Yes." Then '
    "wait. Then wait. Then wait. And the order 1234 ships today, today, today today today.",
    "您好！您可以在App首页查看剩余流量。您可以在App首页查看剩余流量。「好的。」请稍等……我们会尽快处理！",
    "Hi 你好. The parcel 包裹 left the warehouse 仓库 this morning 今天早上; it arrives tomorrow. Track it "
    "here. Track it here. Track it here.",
    "One fact here. Two facts here. Three facts here. Four facts here. Five facts here. Six facts here. ",
    "the the the the the the the the",
    "To pay your bill open the app and go to Billing then Pay bi",
    "A  B  C.  D!\n\n E?) F] G」 H. I. J. K. L. M. N.   ",
]


def run(
    guard: LoopGuard | RescanningLoopGuard, pieces: list[str], near_from: int, reason: str
) -> tuple[list[str], str | None, tuple[str, str]]:
    sent = []
    for i, piece in enumerate(pieces):
        sent.append(guard.push(piece, near_limit=i >= near_from))
        if guard.tripped:
            break
    return sent, guard.tripped, guard.finish(reason)


@pytest.mark.parametrize("seed", range(40))
def test_incremental_guard_sends_what_the_rescanning_guard_sent(seed: int) -> None:
    rng = random.Random(seed)
    for reply in REPLIES:
        cuts = sorted(rng.sample(range(1, len(reply)), min(len(reply) - 1, rng.randint(1, len(reply) // 2))))
        pieces = [reply[a:b] for a, b in zip([0, *cuts], [*cuts, len(reply)], strict=True)]
        near_from = rng.choice([len(pieces), rng.randrange(len(pieces))])
        lang = "zh" if rng.random() < 0.3 else "en"
        max_sentences = rng.choice([None, 2, 5])
        reason = rng.choice(["length", "stop"])
        new = run(LoopGuard(lang, max_sentences=max_sentences), pieces, near_from, reason)
        old = run(RescanningLoopGuard(lang, max_sentences=max_sentences), pieces, near_from, reason)
        assert new == old, (reply, pieces, near_from, lang, max_sentences, reason)
