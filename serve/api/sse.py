"""SSE plumbing shared by /v1/chat/completions and /v1/reply: pull the first event before answering (so a
failure before it is a proper HTTP error), and end every stream with a terminal frame, even on failure."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from sse_starlette.sse import EventSourceResponse
from starlette.background import BackgroundTask

from serve.api.errors import error_body
from serve.errors import ServeError

logger = logging.getLogger(__name__)

T = TypeVar("T")
Frame = dict[str, str]


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
    frame = {"data": json.dumps(body, ensure_ascii=False)}
    if event is not None:
        frame["event"] = event
    return frame


async def terminated(frames: AsyncIterator[Frame], close: Callable[[], Awaitable[None]],
                     error_event: str | None = None, trailer: Frame | None = None) -> AsyncIterator[Frame]:
    """`frames`, then one error frame if they fail, then `trailer` (OpenAI's [DONE]) whatever happened;
    `close` runs in every case, the client going away included."""
    try:
        async for frame in frames:
            yield frame
    except Exception as exc:  # noqa: BLE001 - the client must still get a terminal frame
        yield error_frame(exc, error_event)
    finally:
        await close()
    if trailer is not None:
        yield trailer


def sse_response(frames: AsyncIterator[Frame], close: Callable[[], Awaitable[None]], ping_s: float,
                 error_event: str | None = None, trailer: Frame | None = None) -> EventSourceResponse:
    """An SSE response over `terminated(frames, ...)`. The background task also closes the source when the
    client left before the first frame was sent (the body generator then never runs)."""
    return EventSourceResponse(terminated(frames, close, error_event, trailer), ping=ping_s, sep="\n",
                               background=BackgroundTask(close))


def json_data(data: dict[str, Any], event: str | None = None) -> Frame:
    frame = {"data": json.dumps(data, ensure_ascii=False)}
    if event is not None:
        frame["event"] = event
    return frame
