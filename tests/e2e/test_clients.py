"""Real client libraries against a real server (test-only FastTestEngine): the openai client and LangChain's
ChatOpenAI read usage from the stream, and refused fields surface as their BadRequestError."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from tests.e2e.conftest import LiveServer, stop_server
from tests.e2e.fast_server import start_fast_server

TOKENS = 9


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_fast_server(tmp_path_factory.mktemp("clients") / "server.log", tokens=TOKENS)
    try:
        yield live
    finally:
        stop_server(live)


def test_openai_client_gets_usage_in_its_own_last_chunk(server: LiveServer) -> None:
    client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="unused", max_retries=0)
    chunks = list(
        client.chat.completions.create(
            model="fast-test-model",
            messages=[{"role": "user", "content": "hello"}],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == TOKENS
    assert chunks[-1].usage.total_tokens == chunks[-1].usage.prompt_tokens + TOKENS
    assert all(c.usage is None for c in chunks[:-1])
    assert chunks[-2].choices[0].finish_reason == "stop"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.startswith("t0 t1") and text.endswith(f"t{TOKENS - 1}")


def test_openai_client_sees_unsupported_fields_as_a_bad_request(server: LiveServer) -> None:
    client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="unused", max_retries=0)
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(
            model="fast-test-model",
            messages=[{"role": "user", "content": "hi"}],
            tools=[{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}],
        )
    assert "tools" in str(raised.value)


def test_langchain_stream_usage_reaches_usage_metadata(server: LiveServer) -> None:
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(
        base_url=f"{server.url}/v1",
        api_key="unused",
        model="fast-test-model",
        stream_usage=True,
        max_retries=0,
    )
    merged = None
    for chunk in llm.stream("hello there"):
        merged = chunk if merged is None else merged + chunk
    assert merged is not None and merged.usage_metadata is not None
    assert merged.usage_metadata["output_tokens"] == TOKENS
    assert merged.usage_metadata["total_tokens"] == merged.usage_metadata["input_tokens"] + TOKENS
    assert str(merged.content).endswith(f"t{TOKENS - 1}")
