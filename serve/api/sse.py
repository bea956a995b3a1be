"""SSE plumbing shared by /v1/chat/completions and /v1/reply: pull the first event before answering (so a
failure before it is a proper HTTP error), and end every stream with a terminal frame, even on failure.

Frames are bytes, rendered once (orjson; per-token frames from templates, see serve/api/openai.py), and
`SSEResponse` writes them straight to the ASGI `send`: per token the server does one small concatenation
and one send. (sse-starlette's response cost a task-group hop, a lock and an event object per frame; with
pydantic and json.dumps per token that was ~80-100 µs of server CPU per streamed token, measured by
bench/server_cost.py.)
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import orjson
from starlette.background import BackgroundTask
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from serve.api.errors import error_body
from serve.errors import ServeError

logger = logging.getLogger(__name__)

T = TypeVar("T")
Frame = bytes
DONE = b"data: [DONE]\n\n"


def dumps(data: Any) -> bytes:
    """Compact UTF-8 JSON (what OpenAI's own stream sends). orjson refuses lone surrogates, which json.dumps
    writes as escapes: take that path for them rather than failing a stream."""
    try:
        return orjson.dumps(data)
    except TypeError:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def frame(data: bytes, event: str | None = None) -> Frame:
    return (b"event: " + event.encode() + b"\ndata: " if event else b"data: ") + data + b"\n\n"


def json_data(data: dict[str, Any], event: str | None = None) -> Frame:
    return frame(dumps(data), event)


async def first_event(events: AsyncGenerator[T, None]) -> T:
    """The first event; on any failure the iterator is closed (aborting the work) and the error propagates."""
    try:
        return await anext(events)
    except BaseException:
        await events.aclose()
        raise


def error_frame(exc: BaseException, event: str | None = None) -> Frame:
    """The terminal frame of a stream that failed after its 200: typed errors keep their type and message."""
    if isinstance(exc, ServeError):
        logger.warning("stream.failed type=%s message=%s", exc.error_type, exc.message)
        body = error_body(exc.error_type, exc.message, exc.param)
    else:
        logger.error("stream.crashed error=%s: %s", type(exc).__name__, exc)
        body = error_body("server_error", "internal server error")
    return json_data(body, event)


async def terminated(
    frames: AsyncIterator[Frame],
    close: Callable[[], Awaitable[None]],
    error_event: str | None = None,
    trailer: Frame | None = None,
) -> AsyncGenerator[Frame, None]:
    """`frames`, then one error frame if they fail, then `trailer` (OpenAI's [DONE]) whatever happened;
    `close` runs in every case, the client going away included."""
    try:
        async for item in frames:
            yield item
    except Exception as exc:  # noqa: BLE001 - the client must still get a terminal frame
        yield error_frame(exc, error_event)
    finally:
        await close()
    if trailer is not None:
        yield trailer


class SSEResponse(Response):
    """`text/event-stream` over an async iterator of rendered frames, one ASGI send per frame.

    Two helper tasks per stream (none per frame): one waits for the client to go away and then cancels the
    stream (uvicorn silently drops sends to a closed connection, so a stream would otherwise run to its
    end), one sends a `: ping` comment after `ping_s` of silence so proxies keep the connection."""

    media_type = "text/event-stream"

    def __init__(self, frames: AsyncIterator[Frame], ping_s: float, background: BackgroundTask | None = None):
        # Not Response.__init__: it would declare `content-length: 0` for a body that has not come yet.
        self.status_code = 200
        self.background = background
        self.raw_headers = [
            (b"content-type", b"text/event-stream; charset=utf-8"),
            (b"cache-control", b"no-store"),
            (b"connection", b"keep-alive"),
            (b"x-accel-buffering", b"no"),
        ]
        self.frames = frames
        self.ping_s = ping_s
        self._last_send = 0.0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        if scope.get("method") == "HEAD":
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        else:
            stream = asyncio.ensure_future(self._stream(send))
            watch = asyncio.ensure_future(self._watch(receive))
            ping = asyncio.ensure_future(self._ping(send))
            disconnected = False
            try:
                done, _ = await asyncio.wait((stream, watch), return_when=asyncio.FIRST_COMPLETED)
                disconnected = watch in done
            finally:
                for task in (ping, watch, stream):
                    task.cancel()
                results = await asyncio.gather(ping, watch, stream, return_exceptions=True)
                aclose = getattr(self.frames, "aclose", None)
                if aclose is not None:
                    await aclose()  # the client left mid-stream: close (abort) the source now
            failure = results[2]
            if isinstance(failure, Exception):
                logger.warning("stream.send_failed error=%s: %s", type(failure).__name__, failure)
            if not disconnected:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        if self.background is not None:
            await self.background()

    async def _stream(self, send: Send) -> None:
        async for item in self.frames:
            await send({"type": "http.response.body", "body": item, "more_body": True})
            self._last_send = time.monotonic()

    @staticmethod
    async def _watch(receive: Receive) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    async def _ping(self, send: Send) -> None:
        self._last_send = time.monotonic()
        while True:
            await asyncio.sleep(self.ping_s)
            if time.monotonic() - self._last_send >= self.ping_s:
                stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
                await send(
                    {
                        "type": "http.response.body",
                        "body": f": ping - {stamp}\n\n".encode(),
                        "more_body": True,
                    }
                )
                self._last_send = time.monotonic()


def sse_response(
    frames: AsyncIterator[Frame],
    close: Callable[[], Awaitable[None]],
    ping_s: float,
    error_event: str | None = None,
    trailer: Frame | None = None,
) -> SSEResponse:
    """An SSE response over `terminated(frames, ...)`. The background task also closes the source when the
    client left before the first frame was sent (the body generator then never runs)."""
    return SSEResponse(
        terminated(frames, close, error_event, trailer), ping_s, background=BackgroundTask(close)
    )
