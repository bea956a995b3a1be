from __future__ import annotations

from serve.generation.loop_guard import (
    LOOP,
    SENTENCE_LIMIT,
    LoopGuard,
    ends_sentence,
    repeated_ngram,
    split_sentences,
)

LOOPING = (
    "You can check your data in the app. You can also check the data allowance in the app's home screen "
    "or dialing *100#. You can also check the data allowance in the app's home screen or dialing *100#. "
    "You can also check the data allowance in the app's home screen or dialing *100#."
)


def stream(
    guard: LoopGuard, text: str, engine_reason: str, step: int = 3, near_limit_from: int | None = None
) -> tuple[str, str]:
    """Feed `text` in small pieces, like engine deltas, and return what was sent and the finish reason;
    from character `near_limit_from` on, the token budget counts as nearly spent."""
    sent = []
    for i in range(0, len(text), step):
        near = near_limit_from is not None and i >= near_limit_from
        sent.append(guard.push(text[i : i + step], near_limit=near))
        if guard.tripped:
            break
    tail, reason = guard.finish(engine_reason)
    return "".join(sent) + tail, reason


def test_a_repeated_sentence_is_never_sent_and_the_reply_ends_on_the_last_good_one() -> None:
    text, reason = stream(LoopGuard("en"), LOOPING, "length")
    assert reason == LOOP
    assert text.count("*100#") == 1
    assert text.rstrip().endswith("dialing *100#.")


def test_a_loop_without_any_full_stop_is_caught_while_it_grows() -> None:
    guard = LoopGuard("en")
    text, reason = stream(guard, "Decentralized " * 40, "length")
    assert reason == LOOP and text.count("Decentralized") <= 1


def test_chinese_repetition_ends_at_a_chinese_full_stop() -> None:
    sentence = "您可以在App首页查看剩余流量。"
    text, reason = stream(LoopGuard("zh"), "您好！" + sentence * 4, "length", step=2)
    assert reason == LOOP and text == "您好！" + sentence


def test_length_drops_the_unfinished_last_sentence() -> None:
    reply = "Your bill is $42.50, due on 3 May. You can pay it in the app under Bil"
    text, reason = stream(LoopGuard("en"), reply, "length", near_limit_from=reply.index(" You"))
    assert reason == "length"
    assert text == "Your bill is $42.50, due on 3 May."
    assert ends_sentence(text)


def test_a_normal_reply_passes_unchanged() -> None:
    reply = (
        "Sorry your payment didn't go through. Please check that your card hasn't expired, then try again. "
        'If money left your account, reply "human agent".'
    )
    text, reason = stream(LoopGuard("en"), reply, "stop")
    assert (text, reason) == (reply, "stop")


def test_numbered_steps_are_not_cut_at_the_list_marker() -> None:
    reply = "Here is how:\n1. Open the app.\n2. Tap Billing.\n3. Tap Pay bill."
    text, reason = stream(LoopGuard("en"), reply, "stop")
    assert (text, reason) == (reply, "stop")
    assert split_sentences(reply) == [
        "Here is how:",
        "1. Open the app.",
        "2. Tap Billing.",
        "3. Tap Pay bill.",
    ]


def test_sentence_limit_ends_after_that_many_sentences() -> None:
    text, reason = stream(
        LoopGuard("en", max_sentences=2), "One fact here. Two facts here. Three facts here. ", "stop"
    )
    assert reason == SENTENCE_LIMIT and text == "One fact here. Two facts here."


def test_no_complete_sentence_under_length_ends_on_a_whole_word() -> None:
    text, reason = stream(
        LoopGuard("en"), "To pay your bill open the app and go to Billing then Pay bi", "length"
    )
    assert reason == "length" and text.endswith("Pay")


def test_repetition_measure_and_sentence_end() -> None:
    assert repeated_ngram(LOOPING) is not None
    assert repeated_ngram("Thanks for your message. How can I help you today?") is None
    assert repeated_ngram("请在App中查看。请在App中查看。请在App中查看。") is not None
    assert ends_sentence("Have a good day! 😊") and ends_sentence("好的，已为您查询。")
    assert not ends_sentence("You can pay it in the app under Bil") and not ends_sentence("")


def test_a_disabled_guard_passes_everything_through() -> None:
    text, reason = stream(LoopGuard("en", enabled=False), LOOPING + " and then", "length")
    assert (text, reason) == (LOOPING + " and then", "length")


def test_words_stream_before_their_sentence_ends() -> None:
    guard = LoopGuard("en")
    sent = [
        guard.push(piece) for piece in ("Your parcel ", "left our warehouse ", "this morning and ", "should ")
    ]
    assert "".join(sent).startswith("Your parcel left")  # released while the sentence is still open
    assert not "".join(sent).endswith("should ")  # the last words wait: they could start a repeat
