"""The reply selector on the shipped reply bank, lexical only (no router vectors): a reply of positive tone
(thanks for praise) never answers an angry message, whatever words they share."""

from __future__ import annotations

import shutil

import pytest

from serve.prompts import PROMPTS_DIR, PromptConfigError, PromptLibrary, without_given_branches
from serve.reply_bank import ReplySelector


@pytest.fixture(scope="module")
def selector() -> ReplySelector:
    return ReplySelector(PromptLibrary.load())


def test_praise_is_answered_with_thanks(selector: ReplySelector) -> None:
    best = selector.candidates(
        "ecommerce", "en", "the delivery driver today was brilliant, great service", k=1
    )
    assert best and best[0].reply.tone == "positive"


@pytest.mark.parametrize(
    ("domain", "lang", "message"),
    [
        ("ecommerce", "en", "your delivery drivers are lazy, shitty parcel service"),
        ("ecommerce", "en", "great service my foot, worst delivery ever, the driver threw it over the fence"),
        ("ecommerce", "zh", "你们的快递员态度太差了，服务真是垃圾"),
        ("telecom", "en", "thanks for nothing, the engineer was useless and never turned up"),
    ],
)
def test_an_angry_message_never_gets_a_reply_of_positive_tone(
    selector: ReplySelector, domain: str, lang: str, message: str
) -> None:
    found = selector.candidates(domain, lang, message, k=5)
    assert found and all(s.reply.tone != "positive" for s in found)


def test_every_source_of_a_bank_reply_is_an_entry_of_its_domain_and_language() -> None:
    from serve.knowledge.base import KnowledgeBase

    library, base = PromptLibrary.load(), KnowledgeBase.load()
    linked = 0
    for (domain, lang), bank in library.banks.items():
        ids = {e.id for e in base.entries(domain, lang)}
        for reply in bank.replies:
            assert set(reply.sources) <= ids, (domain, lang, reply.id, set(reply.sources) - ids)
            linked += bool(reply.sources)
    assert linked >= 300  # most bank replies state brand facts, and say where they come from


def test_the_index_reads_a_reply_as_a_customer_who_gave_no_detail_sees_it() -> None:
    template = (
        "Sorry. {% if given.postcode is defined %}Service status shows {{ given.postcode }}.{% else %}"
        "Send me your postcode.{% endif %} {% if context.order_id is defined %}Order {{ context.order_id }}."
        "{% endif %}"
    )
    assert without_given_branches(template) == (
        "Sorry. Send me your postcode. "
        "{% if context.order_id is defined %}Order {{ context.order_id }}.{% endif %}"
    )
    plain = "{% if context.plan is defined %}You're on {{ context.plan }}.{% endif %} Plans start at €10."
    assert without_given_branches(plain) == plain


def test_the_library_refuses_a_given_branch_the_index_cannot_read(tmp_path) -> None:
    """An `if` inside the else of a `given` branch would leave markup in the indexed text: loading says so."""
    shutil.copytree(PROMPTS_DIR, tmp_path / "prompts")
    bank = tmp_path / "prompts" / "telecom" / "replies.en.yaml"
    text = bank.read_text(encoding="utf-8")
    broken = text.replace(
        "{% else %}Send me your postcode and I'll check;",
        "{% else %}{% if context.plan is defined %}On your plan, {% endif %}"
        "Send me your postcode and I'll check;",
        1,
    )
    assert broken != text
    bank.write_text(broken, encoding="utf-8")
    with pytest.raises(PromptConfigError, match=r"broadband-area-outage.*branch on a given detail"):
        PromptLibrary.load(tmp_path / "prompts")


def test_a_second_library_load_compiles_no_template_again() -> None:
    """The load check compiles every template; a reload of unchanged files (or a second server in the process)
    reuses them, and an edited reply is compiled afresh."""
    from serve.sandbox import compiled

    PromptLibrary.load(PROMPTS_DIR)
    before = compiled.cache_info()
    library = PromptLibrary.load(PROMPTS_DIR)
    after = compiled.cache_info()
    assert after.misses == before.misses and after.hits > before.hits
    assert library.template_reply("telecom", "en", "greeting_chitchat", {})
    assert compiled("{{ 1 + 1 }} new") is compiled("{{ 1 + 1 }} new")
