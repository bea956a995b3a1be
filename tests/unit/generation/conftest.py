from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.fakes_trtllm import FakeEngineLLM, FakeLLM, FakeTensorRTLLM, words_script


@pytest.fixture
def trtllm() -> FakeTensorRTLLM:
    """A fresh FakeTensorRTLLM whose LLM classes keep their own state for this test."""

    class LLM(FakeLLM):
        instances: list = []
        script = staticmethod(words_script)
        raise_at = None

    class EngineLLM(FakeEngineLLM):
        instances: list = []
        script = staticmethod(words_script)
        raise_at = None

    module = FakeTensorRTLLM()
    module.LLM = LLM  # type: ignore[misc]
    module._tensorrt_engine = SimpleNamespace(LLM=EngineLLM)  # type: ignore[misc]
    return module
