from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from serve.config import SMOLLM2_DIRNAME, default_cache_dir
from serve.streaming import REPLACEMENT_CHAR, IncrementalDetokenizer, ReplacementCharGuard, StopMatcher


def byte_decode(ids: Sequence[int]) -> str:
    """A byte-level 'tokenizer': every token is one UTF-8 byte, the worst case for splitting."""
    return bytes(ids).decode("utf-8", errors="replace")


def stream_one_by_one(detok: IncrementalDetokenizer, ids: Sequence[int]) -> list[str]:
    deltas = [detok.push([i]) for i in ids]
    deltas.append(detok.flush())
    return deltas


@pytest.mark.parametrize(
    "text", ["话费余额还有多少？", "thanks 🙏🏽 for the help 👍", "退款 refund 已到账 ✅ ok"]
)
def test_detokenizer_never_emits_a_split_character_with_byte_tokens(text: str) -> None:
    deltas = stream_one_by_one(IncrementalDetokenizer(byte_decode), list(text.encode("utf-8")))
    assert all(REPLACEMENT_CHAR not in d for d in deltas)
    assert "".join(deltas) == text
    # every delta is whole characters: it re-encodes to exactly the bytes it stands for
    assert sum(len(d.encode()) for d in deltas) == len(text.encode())


def test_detokenizer_drops_a_character_cut_in_half_by_the_token_limit() -> None:
    detok = IncrementalDetokenizer(byte_decode)
    assert detok.push(list("ok 你".encode())) == "ok 你"
    assert detok.push([0xE5, 0xA5]) == ""  # first two bytes of 好
    assert detok.flush() == ""


def test_detokenizer_passes_on_invalid_bytes_inside_the_text() -> None:
    # a model that emits a stray continuation byte mid-reply: the text says so rather than hiding it
    detok = IncrementalDetokenizer(byte_decode)
    deltas = stream_one_by_one(detok, [*b"a", 0xA5, *b"b"])
    assert "".join(deltas) == "a" + REPLACEMENT_CHAR + "b"


def test_detokenizer_skips_end_of_turn_ids() -> None:
    detok = IncrementalDetokenizer(byte_decode, skip_ids=[0])
    assert "".join(stream_one_by_one(detok, [*b"hi", 0])) == "hi"


@pytest.fixture(scope="module")
def smollm2_tokenizer() -> Tokenizer:
    path = Path(default_cache_dir()) / "models" / SMOLLM2_DIRNAME / "tokenizer.json"
    if not path.is_file():
        pytest.fail(f"{path} missing: run `csreply prepare` (make test does) before the tests")
    return Tokenizer.from_file(str(path))


@pytest.mark.parametrize(
    "text",
    [
        "您好，我的宽带从昨天开始一直断网，光猫灯是红的😡",
        "Your parcel 📦 is on its way — 预计明天送达 🚚",
        "Hello there, how are you doing today? I'd like to top up £20.",
    ],
)
def test_detokenizer_matches_full_decode_with_smollm2_tokens(smollm2_tokenizer: Tokenizer, text: str) -> None:
    ids = smollm2_tokenizer.encode(text, add_special_tokens=False).ids

    def decode(window: Sequence[int]) -> str:
        return smollm2_tokenizer.decode(list(window), skip_special_tokens=False)

    deltas = stream_one_by_one(IncrementalDetokenizer(decode), ids)
    assert all(REPLACEMENT_CHAR not in d for d in deltas)
    assert "".join(deltas) == decode(ids) == text


def test_smollm2_really_splits_chinese_and_emoji_across_tokens(smollm2_tokenizer: Tokenizer) -> None:
    # guards the test above: with this tokenizer some single tokens are partial characters
    ids = smollm2_tokenizer.encode("光猫灯是红的😡", add_special_tokens=False).ids
    assert any(REPLACEMENT_CHAR in smollm2_tokenizer.decode([i]) for i in ids)


def test_replacement_guard_holds_trailing_partial_character() -> None:
    guard = ReplacementCharGuard()
    assert guard.push("价保") == "价保"
    assert guard.push(REPLACEMENT_CHAR) == ""
    assert guard.push("券 ok") == REPLACEMENT_CHAR + "券 ok"  # not at the end any more: passed on
    guard = ReplacementCharGuard()
    assert guard.push("a" + REPLACEMENT_CHAR) == "a"
    assert guard.flush() == ""


def feed(matcher: StopMatcher, pieces: list[str]) -> list[str]:
    out = [matcher.push(p) for p in pieces]
    out.append(matcher.flush())
    return out


def test_stop_string_split_across_chunks_never_leaks() -> None:
    matcher = StopMatcher(["\nUser:"])
    out = feed(matcher, ["Sure, here", " it is.\nU", "ser: more", " text"])
    assert "".join(out) == "Sure, here it is."
    assert matcher.stopped
    assert out[1] == " it is."  # "\nU" was held, not emitted


def test_held_prefix_is_released_when_it_is_not_a_stop() -> None:
    matcher = StopMatcher(["\nUser:"])
    out = feed(matcher, ["line one\nU", "ber is a company", "\nUs"])
    assert out[0] == "line one"
    assert out[1] == "\nUber is a company"
    assert out[-1] == "\nUs"  # end of stream: the held tail was not a stop after all
    assert not matcher.stopped


def test_earliest_of_several_stops_wins_and_chinese_stops_work() -> None:
    matcher = StopMatcher(["。", "END"])
    assert "".join(feed(matcher, ["您的话费余额为", "50元。还有", "END"])) == "您的话费余额为50元"


def test_stop_inside_one_chunk_and_nothing_after_it() -> None:
    matcher = StopMatcher(["###"])
    assert matcher.push("abc###def") == "abc"
    assert matcher.push("more") == ""
    assert matcher.flush() == ""


def test_no_stops_passes_text_through_unbuffered() -> None:
    matcher = StopMatcher([])
    assert matcher.push("\nUser") == "\nUser"
