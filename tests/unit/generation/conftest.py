from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.fakes_trtllm import API_DIR, FakeLLM, FakeTensorRTLLM, words_script


@pytest.fixture
def trtllm() -> FakeTensorRTLLM:
    """A fresh FakeTensorRTLLM whose LLM classes keep their own state for this test."""
    if not API_DIR.is_dir():
        pytest.skip(f"{API_DIR} not present (shared reference material)")

    class LLM(FakeLLM):
        instances: list = []
        script = staticmethod(words_script)
        raise_at = None
        refuse_with = None

    class EngineLLM(LLM):
        args_class = "TrtLlmArgs"

    module = FakeTensorRTLLM()
    module.LLM = LLM  # type: ignore[misc]
    module._tensorrt_engine = SimpleNamespace(LLM=EngineLLM)  # type: ignore[misc]
    return module
