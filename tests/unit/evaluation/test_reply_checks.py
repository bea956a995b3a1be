from __future__ import annotations

import pytest

from serve.evaluation.reply_checks import (
    check_reply,
    chinese_numeral,
    chrf,
    includes,
    numbers_in,
    unsupported_facts,
)


@pytest.mark.parametrize(
    "text,value",
    [
        ("十", 10),
        ("十五", 15),
        ("二十", 20),
        ("三百五十", 350),
        ("两万三千", 23000),
        ("一二三", 123),
        ("一百零八", 108),
    ],
)
def test_chinese_numerals(text: str, value: int) -> None:
    assert chinese_numeral(text) == value


def test_invented_policy_numbers_are_caught_and_given_ones_are_not() -> None:
    context = "bill amount: $42.50; due date: 2026-06-03"
    ok = "Your bill is $42.50, due on 3 June. You can pay it in the app."
    assert unsupported_facts(ok, context) == []
    invented = "You get a 20% discount, and refunds take five business days."
    assert sorted(unsupported_facts(invented, context)) == ["20", "five business days"]


def test_chinese_facts_need_a_unit_and_list_markers_are_not_facts() -> None:
    assert [v for _, v in numbers_in("请稍等一下，我们统一处理，三个工作日内退款，打八折")] == [3.0, 8.0]
    assert unsupported_facts("退款将在三个工作日内到账。", "退款 3 个工作日到账") == []
    assert unsupported_facts("享受百分之二十优惠。", "无") == ["百分之二十"]
    assert unsupported_facts("Steps:\n1. Open the app.\n2. Tap Billing.", "") == []


def test_includes_ignores_case_and_spacing() -> None:
    assert includes("Your remaining data is 3.2GB.", "3.2 GB")
    assert includes("订单状态：已发货", "已发货") and not includes("Paid.", "unpaid")


def test_check_reply_flags_a_loop_and_a_cut() -> None:
    loop = "Check the app. " + "You can also check the app home screen. " * 3
    row = check_reply(loop + "You can", sources=[""], must_include=["app"], reference="Check the app.")
    assert row["repetition"] and not row["complete"] and row["must_include_ok"]
    assert row["sentences"] == 5
    assert 0 < row["chrf"] < 100


def test_chrf_is_sacrebleus_sentence_chrf() -> None:
    assert chrf("the cat sat", "the cat sat") == pytest.approx(100.0)
    assert chrf("completely different", "the cat sat") < 30
