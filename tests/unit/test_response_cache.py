from __future__ import annotations

import shutil
from pathlib import Path

from serve.config import GeneratorSettings, ReplySettings
from serve.prompts import PROMPTS_DIR, PromptLibrary
from serve.response_cache import cache_key, prompt_version, should_store, variant_of


def key(**variant: object) -> str:
    return cache_key(
        "telecom", "en", "roaming_international", "How do I turn on roaming?", variant_of(**variant)
    )


def test_every_setting_that_shapes_the_reply_changes_the_key() -> None:
    base = {
        "model": "m",
        "decoding": GeneratorSettings().model_dump(mode="json"),
        "reply": ReplySettings().model_dump(mode="json"),
        "max_tokens": 96,
        "prompts": "v1",
    }
    changed = [
        {**base, "max_tokens": 10},
        {**base, "model": "m-finetuned"},
        {**base, "prompts": "v2"},
        {**base, "decoding": GeneratorSettings(repetition_penalty=1.3).model_dump(mode="json")},
        {**base, "decoding": GeneratorSettings(no_repeat_ngram_size=0).model_dump(mode="json")},
        {**base, "reply": ReplySettings(temperature=0.5).model_dump(mode="json")},
    ]
    keys = {key(**v) for v in changed}
    assert key(**base) not in keys and len(keys) == len(changed)
    assert key(**base) == key(**dict(reversed(list(base.items()))))  # order of the parts does not matter


def test_the_question_is_normalised_but_its_words_count() -> None:
    v = variant_of(model="m")
    a = cache_key("telecom", "en", "x", "How do I turn on roaming?", v)
    assert a == cache_key("telecom", "en", "x", "  how do i TURN on roaming ", v)
    assert a != cache_key("telecom", "en", "x", "How do I turn off roaming?", v)


def test_an_edited_prompt_library_is_a_new_version(tmp_path: Path) -> None:
    copy = tmp_path / "prompts"
    shutil.copytree(PROMPTS_DIR, copy)
    before = prompt_version(PromptLibrary.load(copy))
    assert before == prompt_version(PromptLibrary.load(copy))
    path = copy / "telecom" / "en.yaml"
    path.write_text(path.read_text().replace("warm, polite and brief", "warm and brief"))
    assert prompt_version(PromptLibrary.load(copy)) != before


def test_only_complete_replies_are_stored() -> None:
    assert should_store("stop", "Done.")
    assert not any(should_store(r, "Done.") for r in ("length", "loop", "sentence_limit", "error"))
    assert not should_store("stop", "  ")


def test_an_engine_fingerprint_sees_weights_and_guards() -> None:
    from types import SimpleNamespace

    from serve.response_cache import engine_fingerprint

    base = SimpleNamespace(
        name="hf", model_name="m", model_dir="/c/models/base", settings=GeneratorSettings()
    )
    tuned = SimpleNamespace(**{**vars(base), "model_dir": "/c/models/tuned"})
    guarded = SimpleNamespace(**{**vars(base), "settings": GeneratorSettings(no_repeat_ngram_size=3)})
    prints = [variant_of(d=engine_fingerprint(e)) for e in (base, tuned, guarded)]
    assert len(set(prints)) == 3


def test_the_embedded_default_is_the_fine_tuned_model_once_prepared(tmp_path: Path) -> None:
    from serve.config import SMOLLM2_CS_DIRNAME, SMOLLM2_DIRNAME, Settings
    from serve.generation.hf import HfGenerator

    settings = Settings(cache_dir=tmp_path)
    assert settings.generator_model_dir == tmp_path / "models" / SMOLLM2_DIRNAME
    tuned = tmp_path / "models" / SMOLLM2_CS_DIRNAME
    tuned.mkdir(parents=True)
    (tuned / "config.json").write_text("{}")
    assert settings.generator_model_dir == tuned
    assert HfGenerator(settings.generator, settings.generator_model_dir).model_name == SMOLLM2_CS_DIRNAME
    pinned = Settings(cache_dir=tmp_path, generator={"model_dir": str(tmp_path / "x"), "model_name": "x"})
    assert pinned.generator_model_dir == tmp_path / "x"
