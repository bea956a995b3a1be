"""The LLM preset schema lives in serve/llm_preset.py (the server reads presets too); this name stays for the
build commands and their tests."""

from serve.llm_preset import LlmBuildConfig, LlmConfigError, load_llm_config

__all__ = ["LlmBuildConfig", "LlmConfigError", "load_llm_config"]
