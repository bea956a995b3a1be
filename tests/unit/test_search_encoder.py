"""The English search encoder (the shipped MiniLM, exported to ONNX INT8 by `csreply prepare`): its vectors,
its export check, and the `semantic` signal it adds to English knowledge and reply-bank search."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path

import numpy as np
import pytest

from checkpoints.search_encoder import MIN_COSINE, VERSION, _is_current
from checkpoints.staging import MANIFEST
from serve.config import default_cache_dir
from serve.knowledge.base import KnowledgeBase
from serve.knowledge.entries import KNOWLEDGE_DIR, load_entries
from serve.retrieval.index import DEFAULT_WEIGHTS, SIGNALS, HybridIndex, View
from serve.retrieval.semantic import MODEL_FILE, SEARCH_ENCODER_DIRNAME, SemanticEncoder, load_semantic


def prepared_dir() -> Path:
    """The encoder `csreply prepare` builds; the tests fail (not skip) when it is missing."""
    path = default_cache_dir() / "models" / SEARCH_ENCODER_DIRNAME
    if not (path / MODEL_FILE).is_file():
        pytest.fail(f"{path} has no search encoder: run `csreply prepare` (make test does) before the tests")
    return path


@pytest.fixture(scope="module")
def encoder() -> SemanticEncoder:
    return SemanticEncoder(prepared_dir(), threads=1)


def test_a_paraphrase_is_closer_than_a_message_about_something_else(encoder: SemanticEncoder) -> None:
    ask, same, other = encoder.embed(
        [
            "how many days do I have to send a coat back?",
            "What is the return window for clothes?",
            "my broadband drops every evening",
        ]
    )
    assert np.allclose(np.linalg.norm([ask, same, other], axis=1), 1.0, atol=1e-4)
    assert ask @ same > ask @ other + 0.2


def test_an_indexed_text_gets_exactly_the_vector_it_gets_as_a_message(encoder: SemanticEncoder) -> None:
    texts = ["a much longer message about a parcel that never arrived at my door", "hi", "refund please"]
    together = encoder.embed(texts)
    for text, row in zip(texts, together, strict=True):
        assert np.array_equal(row, encoder.encode_one(text))
    # why texts are not batched: dynamic INT8 scales a run's activations by their range, padding included
    batched = encoder._run(encoder._encoder.encode(texts))
    assert float(batched[1] @ together[1]) < 0.995


def test_the_same_message_is_encoded_once(encoder: SemanticEncoder) -> None:
    text = "which courier do you use for large parcels"
    before = encoder.encode_one.cache_info().hits
    first, second = encoder.encode_one(text), encoder.encode_one(text)
    assert second is first
    assert encoder.encode_one.cache_info().hits == before + 1


def test_the_export_matched_pytorch_and_is_current() -> None:
    path = prepared_dir()
    manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["version"] == VERSION
    assert manifest["min_cosine"] >= MIN_COSINE
    assert _is_current(path, manifest["source_sha256"])
    assert not _is_current(path, "0" * 64)  # another MiniLM file: rebuilt


def test_a_damaged_copy_is_not_current(tmp_path: Path) -> None:
    source = prepared_dir()
    copy = tmp_path / SEARCH_ENCODER_DIRNAME
    copy.mkdir()
    for name in (MANIFEST, "tokenizer.json"):
        (copy / name).write_bytes((source / name).read_bytes())
    (copy / MODEL_FILE).write_bytes(b"not a model")
    manifest = json.loads((source / MANIFEST).read_text(encoding="utf-8"))
    assert not _is_current(copy, manifest["source_sha256"])


def test_without_the_encoder_search_goes_on_and_the_log_says_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="serve.retrieval.semantic"):
        assert load_semantic(tmp_path) is None
    assert "csreply prepare" in caplog.text
    caplog.clear()
    broken = tmp_path / "models" / SEARCH_ENCODER_DIRNAME
    broken.mkdir(parents=True)
    (broken / MODEL_FILE).write_bytes(b"not a model")
    (broken / "tokenizer.json").write_bytes((prepared_dir() / "tokenizer.json").read_bytes())
    with caplog.at_level(logging.WARNING, logger="serve.retrieval.semantic"):
        assert load_semantic(tmp_path) is None
    assert "runs without it" in caplog.text
    assert load_semantic(default_cache_dir(), enabled=False) is None


def test_the_semantic_signal_decides_where_words_do_not(encoder: SemanticEncoder) -> None:
    keys = ["What is the return window for clothes?", "Which courier delivers large parcels?"]
    views = [View(i, text, "key") for i, text in enumerate(keys)]
    query = "how many days do I have to send a coat back"  # shares no search term with either key
    index = HybridIndex(views, semantic=encoder.embed(keys))
    assert index.signals(query)[:, SIGNALS.index("semantic")].tolist() == [0.0, 0.0]  # no query vector
    hits = index.search(query, semantic=encoder.encode_one(query))
    assert [h.item for h in hits] == [0, 1]
    assert hits[0].score > hits[1].score
    weights = DEFAULT_WEIGHTS.vector(dense=False, prior=False, semantic=True)
    assert weights.sum() == pytest.approx(1.0)
    assert weights[SIGNALS.index("semantic")] > 0
    assert DEFAULT_WEIGHTS.vector(dense=True, prior=True)[SIGNALS.index("semantic")] == 0.0


def test_only_english_indexes_get_the_search_vectors(encoder: SemanticEncoder) -> None:
    loaded = load_entries(KNOWLEDGE_DIR)
    base = KnowledgeBase(loaded, semantic=encoder)
    assert base.semantic_search
    assert base._index[("ecommerce", "en")].semantic is not None
    assert base._index[("ecommerce", "zh")].semantic is None
    hits = base.search("ecommerce", "en", "how many days do I have to send a coat back?")
    assert hits[0].entry.id == "returns-window"
    without = KnowledgeBase(
        loaded, weights=dataclasses.replace(DEFAULT_WEIGHTS, semantic=0.0), semantic=encoder
    )
    assert without.search("ecommerce", "zh", "退货期限是多久")[0].score == pytest.approx(
        base.search("ecommerce", "zh", "退货期限是多久")[0].score
    )


async def test_a_message_is_encoded_once_while_the_router_reads_it(tmp_path: Path) -> None:
    """The pipeline starts the encoder's pass beside the router's; the knowledge-base and reply-bank searches
    then find the vector in the cache. A Chinese message is not encoded at all."""
    import shutil

    from serve.config import GeneratorSettings, Settings
    from serve.reply_events import ReplyRequest
    from serve.services import build_services
    from tests.fakes import ScriptedFakeGenerator, ScriptedTestRouter

    shutil.copytree(prepared_dir(), tmp_path / "models" / SEARCH_ENCODER_DIRNAME)
    english = "which courier do you use for big parcels?"
    router = ScriptedTestRouter(
        {english: ("delivery_problem", 0.42), "你们发什么快递": ("delivery_problem", 0.42)}
    )
    settings = Settings(cache_dir=tmp_path, generator=GeneratorSettings(warmup=False))
    services = await build_services(settings, generator=ScriptedFakeGenerator(), router=router)
    try:
        semantic = services.knowledge.semantic
        assert semantic is not None and services.pipeline.selector is not None
        semantic.encode_one.cache_clear()
        await services.pipeline.plan(
            ReplyRequest(domain="ecommerce", message=f"@ExampleShop {english}"), None, ()
        )
        info = semantic.encode_one.cache_info()
        assert (info.misses, info.hits) == (1, 2)  # encoded once; both searches used it
        semantic.encode_one.cache_clear()
        await services.pipeline.plan(ReplyRequest(domain="ecommerce", message="你们发什么快递"), None, ())
        assert semantic.encode_one.cache_info().misses == 0
    finally:
        await services.aclose()
