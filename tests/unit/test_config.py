from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from serve.config import load_settings


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CSREPLY_CONFIG", "CSREPLY_SERVER__PORT", "CSREPLY_GENERATOR__MAX_TOKENS_LIMIT"):
        monkeypatch.delenv(name, raising=False)


def test_yaml_file_then_environment_override_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "server.yaml"
    config.write_text("server: {port: 9001}\ngenerator: {max_tokens_limit: 512, default_max_tokens: 100}\n")
    settings = load_settings(config)
    assert (settings.server.port, settings.generator.max_tokens_limit) == (9001, 512)
    monkeypatch.setenv("CSREPLY_SERVER__PORT", "9002")
    assert load_settings(config).server.port == 9002  # environment beats the file
    assert load_settings(config).server.host == "127.0.0.1"  # untouched keys keep their defaults


def test_unknown_keys_and_bad_values_are_refused(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("server: {prot: 9001}\n")
    with pytest.raises(ValidationError, match="prot"):
        load_settings(config)
    config.write_text("generator: {backend: trtllm}\n")
    with pytest.raises(ValidationError, match="trtllm_preset is required"):
        load_settings(config)
    with pytest.raises(FileNotFoundError):
        load_settings(tmp_path / "missing.yaml")
