"""The event streams of both generating endpoints, under their deadline and observed for metrics.

On the deadline the engine work is closed (aborted) and the stream ends normally with finish_reason
`timeout` (every open choice of a chat completion; the `done` event of /v1/reply, which the pipeline builds
as it remembers the turn). When the drain stops a stream at shutdown it ends with a typed error instead (the
SSE layer sends it as the terminal event). /v1/suggest answers in one piece: its deadline is a 504, the
drain a 503.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import suppress
from typing import Any, TypeVar

from pydantic import BaseModel

from serve.completions import ChoiceEvent, ChoiceStream
from serve.errors import BackendUnavailable, DeadlineExceeded, InvalidRequest, Overloaded
from serve.metrics import RequestObserver
from serve.reply_events import DeltaEvent, DoneEvent, IntentEvent, ReplyEvent
from serve.streams import StreamGuard

T = TypeVar("T")
SHUTDOWN_MESSAGE = "the server is shutting down; the reply was cut off"


def _shutdown_error() -> BackendUnavailable:
    return BackendUnavailable(SHUTDOWN_MESSAGE)


async def guarded_choices(
    events: ChoiceStream, n: int, guard: StreamGuard, observer: RequestObserver
) -> AsyncGenerator[ChoiceEvent, None]:
    status = "aborted"
    open_choices = set(range(n))
    try:
        while True:
            try:
                event = await guard.next(events)
            except StopAsyncIteration:
                break
            except (TimeoutError, asyncio.TimeoutError):  # one class from 3.11, two on 3.10
                await events.aclose()
                if guard.stop_reason() == "shutdown":
                    status = "shutdown"
                    raise _shutdown_error() from None
                status = "timeout"
                for index in sorted(open_choices):
                    yield ChoiceEvent(index, "", "timeout")  # type: ignore[arg-type]
                return
            if event.text:
                observer.text()
            if event.finish_reason:
                open_choices.discard(event.index)
                observer.tokens(event.prompt_tokens if not open_choices else 0, event.completion_tokens)
            yield event
        status = "ok"
    except Exception:
        if status == "aborted":
            status = "error"
        raise
    finally:
        observer.finish(status)
        guard.done()


async def guarded_reply(
    first: ReplyEvent,
    events: AsyncGenerator[ReplyEvent, None],
    guard: StreamGuard,
    observer: RequestObserver,
    on_deadline: Callable[[], Awaitable[DoneEvent]],
    usage: Callable[[], tuple[int, int]],
) -> AsyncGenerator[ReplyEvent, None]:
    """The events of /v1/reply under the deadline. On the deadline the pipeline's work is closed and
    `on_deadline` (the pipeline's) ends the turn: it is remembered and its `done` event comes last. A stream
    that ends without a `done` event (client gone, drain, error) still counts its tokens (`usage`)."""
    status = "aborted"
    ended = False  # a done event was observed (it carries the counts)
    try:
        event: ReplyEvent | None = first
        while event is not None:
            if isinstance(event, IntentEvent):
                observer.routed(event.intent.label, event.route.route, event.intent.latency_ms / 1000)
            elif isinstance(event, DeltaEvent):
                if event.text:
                    observer.text()
            else:
                observe_done(event, observer)
                ended = True
            yield event
            try:
                event = await guard.next(events)
            except StopAsyncIteration:
                event = None
            except (TimeoutError, asyncio.TimeoutError):  # one class from 3.11, two on 3.10
                with suppress(Exception):
                    await events.aclose()
                if guard.stop_reason() == "shutdown":
                    status = "shutdown"
                    raise _shutdown_error() from None
                status = "timeout"
                done = await on_deadline()
                observe_done(done, observer)
                ended = True
                yield done
                return
        status = "ok"
    except Exception:
        if status == "aborted":
            status = "error"
        raise
    finally:
        if (
            not ended
        ):  # the engine's work ends when the pipeline's stream is closed: then its counts are final
            with suppress(Exception):
                await events.aclose()
            observer.tokens(*usage())
        observer.finish(status)
        guard.done()


async def guarded_call(
    guard: StreamGuard, observer: RequestObserver, call: Awaitable[T], observe: Callable[[], None]
) -> T:
    """The suggestions of /v1/suggest (answered in one piece), under its deadline and the drain: past the
    deadline its work is cancelled and the answer is 504; stopped by the drain, 503. `observe` records what
    the work got to (route, tokens, queue time) before the request is counted, however it ended."""
    status = "error"
    try:
        result: T = await guard.run(call)
    except (TimeoutError, asyncio.TimeoutError):  # one class from 3.11, two on 3.10
        if guard.stop_reason() == "shutdown":
            status = "shutdown"
            raise _shutdown_error() from None
        status = "timeout"
        raise DeadlineExceeded("the request's deadline passed before its suggestions were ready") from None
    except BaseException as exc:
        status = _status(exc)
        raise
    else:
        status = "ok"
        return result
    finally:
        guard.done()
        observe()
        observer.finish(status)


def observe_done(event: DoneEvent, observer: RequestObserver) -> None:
    metrics = observer.metrics
    observer.variant = event.variant or "-"
    observer.tokens(event.prompt_tokens, event.completion_tokens)
    if event.queue_ms:
        observer.queued(event.queue_ms / 1000)
    if event.cached:
        metrics.cache_hits.labels(observer.endpoint).inc()
    if event.fallback:
        kind = event.fallback.split(":", 1)[0]
        metrics.fallbacks.labels(kind, event.variant or "-").inc()


async def closing_all(*closers: AsyncIterator[object]) -> None:
    """Close every iterator, the outermost first; used as the SSE response's `close`."""
    for it in closers:
        aclose = getattr(it, "aclose", None)
        if aclose is not None:
            with suppress(Exception):
                await aclose()


async def open_guarded(guard: StreamGuard, observer: RequestObserver, opening: Awaitable[T]) -> T:
    """Await the opening of a stream (admission queue, routing, first token) under the deadline. What fails
    here is an HTTP error: 429 from the queue, 504 when the deadline passes, 503 while shutting down."""
    try:
        return await guard.run(opening)
    except (TimeoutError, asyncio.TimeoutError):  # one class from 3.11, two on 3.10
        guard.done()
        if guard.stop_reason() == "shutdown":
            observer.finish("shutdown")
            raise _shutdown_error() from None
        observer.finish("timeout")
        raise DeadlineExceeded("the request's deadline passed before its reply started") from None
    except BaseException as exc:
        guard.done()
        observer.finish(_status(exc))
        raise


def _status(exc: BaseException) -> str:
    if isinstance(exc, Overloaded):
        return "rejected"
    if isinstance(exc, InvalidRequest):
        return "invalid"
    if isinstance(exc, asyncio.CancelledError):
        return "aborted"
    return "error"


class ErrorDetail(BaseModel):
    type: str
    message: str
    param: str | None = None


class ErrorBody(BaseModel):
    error: ErrorDetail


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorBody, "description": description}


GENERATION_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _error("invalid request: the message names the field (`param`)"),
    401: _error("missing or invalid API key (only when the server has API keys)"),
    413: _error("request body over server.max_body_bytes"),
    429: _error(
        "overloaded: the in-flight limit and the queue are full, or the queue wait ran out; "
        "see the Retry-After header"
    ),
    503: _error("no backend can serve, or the server is shutting down"),
    504: _error(
        "the request's deadline passed before its reply started (/v1/suggest: before its suggestions "
        "were ready)"
    ),
}
