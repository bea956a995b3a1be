"""The knowledge base on disk (validation that names file and entry), the hybrid index, direct answers and the
retrieval metrics."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pytest

from serve.evaluation.kb_eval import Question, score
from serve.knowledge.base import OTHER_LANGUAGE_NOTE, KnowledgeBase
from serve.knowledge.entries import KNOWLEDGE_DIR, KnowledgeError, load_entries
from serve.retrieval.index import HybridIndex, View
from serve.retrieval.projection import fit_projection, project

FILE = """version: 1
domain: ecommerce
lang: {lang}
entries:
{entries}
"""


def write(root: Path, lang: str, name: str, entries: str) -> Path:
    path = root / "ecommerce" / lang / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FILE.format(lang=lang, entries=entries), encoding="utf-8")
    return path


ENTRY = """  - id: {id}
    title: {title}
    questions: [{questions}]
    text: {text}
"""


def entry(id: str, title: str, question: str, text: str, extra: str = "") -> str:
    return (
        ENTRY.format(id=id, title=title, questions=json.dumps(question, ensure_ascii=False), text=text)
        + extra
    )


def test_the_shipped_knowledge_base_loads_in_both_languages_and_domains() -> None:
    loaded = load_entries(KNOWLEDGE_DIR)
    counts = {(e.domain, e.lang) for e in loaded.entries}
    assert counts == {("telecom", "en"), ("telecom", "zh"), ("ecommerce", "en"), ("ecommerce", "zh")}
    for domain in ("telecom", "ecommerce"):
        for lang in ("en", "zh"):
            assert sum(1 for e in loaded.entries if (e.domain, e.lang) == (domain, lang)) >= 150


def test_every_problem_is_named_with_file_and_entry(tmp_path: Path) -> None:
    write(
        tmp_path,
        "en",
        "a.yaml",
        entry("ok-one", "One", "one?", "One.")
        + entry("Bad Id", "Two", "two?", "Two.")
        + entry("ok-one", "Again", "again?", "Again.")
        + entry("wrong-intent", "Three", "three?", "Three.", "    intents: [not_an_intent]\n")
        + entry("yaml-bool", "Four", "four?", "Four.", "    tags: [off]\n")
        + entry("bad-slot", "Five", "five?", "'{{ context.order_id }} here'"),
    )
    with pytest.raises(KnowledgeError) as info:
        load_entries(tmp_path)
    message = str(info.value)
    assert "ecommerce/en/a.yaml: entries[1] (id Bad Id): id:" in message
    assert "id 'ok-one' is also used in ecommerce/en/a.yaml" in message
    assert "unknown intent 'not_an_intent'" in message
    assert "yes/no/on/off" in message
    assert "bad-slot" in message and "is defined" in message


def test_expired_entries_are_left_out_and_the_digest_follows_edits(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "en",
        "a.yaml",
        entry("sale-now", "Sale", "sale?", "Sale on.", "    valid_until: 2026-01-31\n")
        + entry("always", "Always", "always?", "Always."),
    )
    loaded = load_entries(tmp_path, today=dt.date(2026, 2, 1))
    assert [e.id for e in loaded.entries] == ["always"] and [e.id for e in loaded.expired] == ["sale-now"]
    assert [e.id for e in load_entries(tmp_path, today=dt.date(2026, 1, 31)).entries] == [
        "sale-now",
        "always",
    ]
    path.write_text(path.read_text() + entry("more", "More", "more?", "More."), encoding="utf-8")
    assert load_entries(tmp_path, today=dt.date(2026, 2, 1)).digest != loaded.digest


def test_files_outside_the_layout_are_reported(tmp_path: Path) -> None:
    write(tmp_path, "en", "a.yaml", entry("one", "One", "one?", "One."))
    (tmp_path / "ecommerce" / "faq.md").write_text("# FAQ")
    with pytest.raises(KnowledgeError, match=r"faq.md: not read"):
        load_entries(tmp_path)


def test_the_index_ranks_the_entry_whose_question_the_message_contains() -> None:
    views = [
        View(0, "which courier do you use", "key"),
        View(0, "Parcels go by SF Express.", "body"),
        View(1, "how long do refunds take", "key"),
        View(1, "Refunds take 5-7 working days.", "body"),
        View(2, "发什么快递", "key"),
        View(2, "包裹由顺丰速运配送。", "body"),
    ]
    index = HybridIndex(views)
    best = index.search("hi, which courier do you use for parcels to Leeds?", k=3)
    assert best[0].item == 0 and 0 <= best[-1].score <= best[0].score <= 1
    assert index.search("你们一般发什么快递啊", k=1)[0].item == 2
    assert (
        index.search("courier for refunds", k=1, allowed=np.array([False, True, True]))[0].item == 1
    )  # 0 is not
    assert index.search("how long do refunds take", k=3, prior=np.array([1.0, 0.0, 0.0]))[0].item == 1


def test_direct_answers_are_cut_to_three_sentences_and_say_when_in_the_other_language(tmp_path: Path) -> None:
    long_text = (
        "'Returns are free. You have 30 days. Start in My Orders. Refunds take a week. Gifts go back too.'"
    )
    write(tmp_path, "en", "a.yaml", entry("returns-all", "Returns", "how do returns work", long_text))
    write(tmp_path, "zh", "a.yaml", entry("points-only-zh", "积分", "积分怎么用", "100积分抵扣€1。"))
    base = KnowledgeBase.load(tmp_path)
    hit = base.search("ecommerce", "en", "how do returns work, do gifts go back", k=1)[0]
    answer = base.answer(hit, "en", "how do returns work, do gifts go back", "Shop", {})
    assert (
        answer.startswith("Returns are free.") and "Gifts go back too." in answer and answer.count(".") == 3
    )
    cross = base.search("ecommerce", "en", "积分怎么用", k=1)[0]
    assert cross.cross_lingual and cross.entry.id == "points-only-zh"
    assert base.answer(cross, "en", "积分怎么用", "Shop", {}).startswith(OTHER_LANGUAGE_NOTE["en"])


def test_the_fitted_projection_separates_items_the_raw_vectors_mix() -> None:
    rng = np.random.default_rng(0)
    # eight items share one dominant direction (one intent); each has its own weak direction
    items = np.repeat(np.arange(8), 30)
    vectors = np.zeros((len(items), 32), dtype=np.float32)
    vectors[:, 0] = 4.0
    vectors[np.arange(len(items)), 1 + items] = 0.4
    vectors += rng.normal(0, 0.3, vectors.shape).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    matrix = fit_projection(vectors, items, steps=300, batch=64, lr=1e-2)
    assert matrix is not None

    def nearest_correct(v: np.ndarray) -> float:
        """Share of texts whose nearest other text belongs to the same item."""
        sims = v @ v.T
        np.fill_diagonal(sims, -np.inf)
        return float(np.mean(items[sims.argmax(axis=1)] == items))

    assert nearest_correct(project(vectors, matrix)) > nearest_correct(vectors) + 0.2


def test_retrieval_metrics_count_ranks_answers_and_unanswerable_messages() -> None:
    questions = [
        Question("a", "ecommerce", "en", ("x",)),
        Question("b", "ecommerce", "en", ("y",)),
        Question("c", "ecommerce", "en", ()),
        Question("d", "ecommerce", "zh", ("z",), "test"),
    ]
    ranked = [[("x", 0.9), ("y", 0.2)], [("x", 0.7), ("y", 0.6)], [("x", 0.8)], [("q", 0.3), ("z", 0.2)]]
    result = score(questions, ranked, answer_at=0.65)
    en = result["en"]
    assert en["n"] == 2 and en["recall_at_1"] == 0.5 and en["recall_at_5"] == 1.0 and en["mrr"] == 0.75
    assert en["answered"] == 1.0 and en["answer_precision"] == 0.5 and en["unanswerable_answered"] == 1.0
    assert result["test/zh"]["recall_at_1"] == 0.0 and result["test/zh"]["mrr"] == 0.5


def test_eval_bank_prints_its_table_and_writes_the_threshold_beside_the_groups(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from serve.config import Settings
    from serve.evaluation.kb_eval import run_bank_eval

    rows = [
        {"text": "which courier do you use?", "domain": "ecommerce", "lang": "en", "reply_ids": []},
        {"text": "我的快递到哪了", "domain": "ecommerce", "lang": "zh", "reply_ids": []},
    ]
    data = tmp_path / "bank.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "bank.json"
    assert run_bank_eval(data, Settings(cache_dir=tmp_path), out, lexical=True) == 0
    table = capsys.readouterr().out
    assert any(line.startswith("all ") for line in table.splitlines())
    result = json.loads(out.read_text(encoding="utf-8"))
    assert set(result["select_min_score"]) == {"en", "zh"}  # recorded, not printed as a group
    assert not any(line.startswith("select_min_score") for line in table.splitlines())
