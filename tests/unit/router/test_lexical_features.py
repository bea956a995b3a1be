"""The lexical head's hashed features are the ones it was trained on: the same keys, counts and order as the
plain definition (each feature formatted as "c{n}:{gram}" / "w:{word}" / "b:{a} {b}" and hashed whole)."""

from __future__ import annotations

import re
import zlib
from collections import Counter
from itertools import pairwise

import pytest

from serve.router.encoding import normalize
from serve.router.lexical import DIM, features


def plain_features(text: str) -> Counter[int]:
    t = normalize(text).lower()
    padded = f" {t} "
    grams: Counter[int] = Counter()
    for n in (1, 2, 3, 4):
        for i in range(len(padded) - n + 1):
            gram = padded[i : i + n]
            if n == 1 and not re.match(r"[\u3400-\u4dbf\u4e00-\u9fff]", gram):
                continue
            grams[zlib.crc32(f"c{n}:{gram}".encode()) % DIM] += 1
    words = re.findall(r"[a-z0-9']+", t)
    for w in words:
        grams[zlib.crc32(f"w:{w}".encode()) % DIM] += 1
    for a, b in pairwise(words):
        grams[zlib.crc32(f"b:{a} {b}".encode()) % DIM] += 1
    return grams


@pytest.mark.parametrize(
    "text",
    [
        "How do I turn on roaming before my trip?",
        "我的快递到哪了？能帮我查一下吗",
        "退款 refund for order #A-1234",
        "Ｆｕｌｌ-width ＡＢＣ, émojis 😊 and 㐀 (extension A) and 𠀀 (extension B)",
        "",
        " ",
        "a",
        "I can't log in!!",
    ],
)
def test_features_match_the_plain_definition_key_by_key_and_in_order(text: str) -> None:
    got, want = features(text), plain_features(text)
    assert list(got.items()) == list(want.items())
