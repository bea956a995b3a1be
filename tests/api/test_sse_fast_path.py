"""The per-token fast path: chunk templates parse to what the pydantic wire models give, and SSEResponse
pings, stops on a client disconnect (closing, i.e. aborting, its source) and ends cleanly otherwise."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from starlette.types import Message

from serve.api.chunks import ChunkTemplates
from serve.api.schemas import ChatCompletionChunk, ChunkChoice, Delta, Usage
from serve.api.sse import SSEResponse, dumps

TEXTS = [
    "hello",
    " world",
    '"quoted" \\ back\nslash\ttab',
    "你好，世界",
    "emoji 🙂 and \u2028 separator",
    "\x00\x1f",
]


def reference(choice: ChunkChoice, include_usage: bool, usage: Usage | None = None) -> dict[str, Any]:
    """What the stream sent before templates: the pydantic model, unset delta fields dropped."""
    chunk = ChatCompletionChunk(
        id="chatcmpl-x", created=1700000000, model="m-1", choices=[choice], usage=usage
    )
    data = chunk.model_dump(exclude={"usage"} if not include_usage else set())
    for choice_data in data["choices"]:
        choice_data["delta"] = {k: v for k, v in choice_data["delta"].items() if v is not None}
    return data


def payload(frame: bytes) -> tuple[list[str], dict[str, Any]]:
    assert frame.startswith(b"data: ") and frame.endswith(b"\n\n") and frame.count(b"\n\n") == 1
    return list(json.loads(frame[6:])), json.loads(frame[6:])


@pytest.mark.parametrize("include_usage", [False, True])
def test_templates_match_the_wire_models(include_usage: bool) -> None:
    chunks = ChunkTemplates("chatcmpl-x", 1700000000, "m-1", 2, include_usage)
    keys, data = payload(chunks.role(1))
    assert data == reference(ChunkChoice(index=1, delta=Delta(role="assistant", content="")), include_usage)
    assert keys == list(reference(ChunkChoice(index=1, delta=Delta()), include_usage))  # same key order
    for text in TEXTS:
        _, data = payload(chunks.content(0, text))
        assert data == reference(ChunkChoice(index=0, delta=Delta(content=text)), include_usage)
    _, data = payload(chunks.finish(1, "length"))
    assert data == reference(ChunkChoice(index=1, delta=Delta(), finish_reason="length"), include_usage)
    _, data = payload(chunks.usage(7, 5))  # the extra last chunk: empty choices, the counts
    usage = Usage(prompt_tokens=7, completion_tokens=5, total_tokens=12)
    expected = ChatCompletionChunk(id="chatcmpl-x", created=1700000000, model="m-1", choices=[], usage=usage)
    assert data == expected.model_dump()


def test_dumps_keeps_lone_surrogates_instead_of_failing() -> None:
    assert json.loads(dumps({"text": "a\ud800b"})) == {"text": "a\ud800b"}
    assert dumps("你好") == '"你好"'.encode()


class Client:
    """ASGI receive/send of a client that may leave after `leave_after` body frames."""

    def __init__(self, leave_after: int | None = None) -> None:
        self.messages: list[Message] = []
        self.leave_after = leave_after
        self.left = asyncio.Event()

    async def receive(self) -> dict[str, Any]:
        await self.left.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        self.messages.append(message)
        bodies = [m for m in self.messages if m.get("body")]
        if self.leave_after is not None and len(bodies) >= self.leave_after:
            self.left.set()

    @property
    def body(self) -> bytes:
        return b"".join(m.get("body", b"") for m in self.messages)


async def test_a_client_that_leaves_closes_the_source_and_gets_no_more_frames() -> None:
    closed = asyncio.Event()

    async def frames():
        try:
            for i in range(1000):
                yield b"data: %d\n\n" % i
                await asyncio.sleep(0)
        finally:
            closed.set()

    client = Client(leave_after=3)
    await asyncio.wait_for(
        SSEResponse(frames(), ping_s=15)({"type": "http", "method": "POST"}, client.receive, client.send),
        timeout=10,
    )
    assert closed.is_set()
    assert client.messages[0]["type"] == "http.response.start"
    headers = dict(client.messages[0]["headers"])
    assert headers[b"content-type"] == b"text/event-stream; charset=utf-8"
    assert b"content-length" not in headers  # the length of a stream is not known up front
    assert 3 <= client.body.count(b"data:") < 1000
    assert client.messages[-1].get("more_body") is True  # nothing is sent to a client that left


async def test_a_silent_stream_gets_pings_and_ends_with_an_empty_final_body() -> None:
    async def frames():
        await asyncio.sleep(0.35)  # silence: two pings at 0.1 s
        yield b"data: late\n\n"

    client = Client()
    await asyncio.wait_for(
        SSEResponse(frames(), ping_s=0.1)({"type": "http", "method": "POST"}, client.receive, client.send),
        timeout=10,
    )
    assert client.body.count(b": ping - ") >= 2
    assert client.body.endswith(b"data: late\n\n")
    assert client.messages[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
