"""POST /v1/reply (product endpoint, SSE or JSON), POST /v1/suggest (agent assist), GET /v1/sessions/{id}."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import asdict
from functools import partial
from typing import Any

from fastapi import APIRouter, Header

from serve.api.deps import OpsDep, ServicesDep
from serve.api.guarded import GENERATION_RESPONSES, closing_all, guarded_call, guarded_reply, open_guarded
from serve.api.reply_models import (
    DoneOut,
    IntentOut,
    ReplyBody,
    ReplyResponse,
    SuggestBody,
    SuggestResponse,
    check_lengths,
    citations_out,
)
from serve.api.sse import Frame, SSEResponse, dumps, first_event, json_data, sse_response
from serve.errors import NotFound
from serve.metrics import RequestObserver
from serve.reply_events import DeltaEvent, IntentEvent, ReplyEvent
from serve.reply_turn import ReplyTurn
from serve.streams import TIMEOUT_HEADER

router = APIRouter()

VARIANT_HEADER = "x-csreply-variant"


def event_frame(event: ReplyEvent) -> Frame:
    if isinstance(event, DeltaEvent):  # the per-token frame: a template, no model, no dict
        return b'event: delta\ndata: {"text":' + dumps(event.text) + b"}\n\n"
    if isinstance(event, IntentEvent):
        return json_data(IntentOut.of_event(event).model_dump(), "intent")
    return json_data(DoneOut.of(event).model_dump(), "done")


async def _frames(events: AsyncIterator[ReplyEvent]) -> AsyncIterator[Frame]:
    async for event in events:
        yield event_frame(event)


@router.post(
    "/v1/reply",
    response_model=ReplyResponse,
    responses={
        200: {
            "content": {"text/event-stream": {}},
            "description": "JSON (stream false) or SSE events intent, delta..., done | error",
        },
        **GENERATION_RESPONSES,
    },
)
async def reply(
    body: ReplyBody,
    services: ServicesDep,
    ops: OpsDep,
    variant: str | None = Header(None, alias=VARIANT_HEADER),
    timeout: str | None = Header(
        None, alias=TIMEOUT_HEADER, description="deadline in seconds (capped by the server)"
    ),
) -> ReplyResponse | SSEResponse:
    check_lengths(body, services.settings.reply)
    observer = RequestObserver(ops.metrics, "reply")
    guard = ops.streams.open(timeout)
    request = body.to_request(variant)
    turn = ReplyTurn(request)
    pipeline = services.pipeline
    events = pipeline.reply(request, turn)
    # routing, admission and prompt errors become HTTP errors here
    first = await open_guarded(guard, observer, first_event(events))
    guarded = guarded_reply(
        first, events, guard, observer, partial(pipeline.end_on_deadline, turn), turn.usage
    )

    async def close() -> None:
        await closing_all(guarded, events)
        guard.done()
        observer.finish("aborted")  # no-op unless the stream never ran (client gone before its first frame)

    if body.stream:
        return sse_response(
            _frames(guarded), close, services.settings.server.sse_ping_seconds, error_event="error"
        )
    text, intent, done = "", None, None
    try:
        async for event in guarded:
            if isinstance(event, IntentEvent):
                intent = IntentOut.of_event(event)
            elif isinstance(event, DeltaEvent):
                text += event.text
            else:
                done = DoneOut.of(event)
    finally:
        await close()
    assert intent is not None and done is not None
    return ReplyResponse(reply=text, intent=intent, **done.model_dump())


@router.post("/v1/suggest", response_model=SuggestResponse, responses=GENERATION_RESPONSES)
async def suggest(
    body: SuggestBody,
    services: ServicesDep,
    ops: OpsDep,
    variant: str | None = Header(None, alias=VARIANT_HEADER),
    timeout: str | None = Header(
        None, alias=TIMEOUT_HEADER, description="deadline in seconds (capped by the server)"
    ),
) -> SuggestResponse:
    check_lengths(body, services.settings.reply)
    observer = RequestObserver(ops.metrics, "reply")
    guard = ops.streams.open(timeout)
    request = body.to_request(variant)
    turn = ReplyTurn(request)
    intent, decision, lang, suggestions, timings = await guarded_call(
        guard,
        observer,
        services.pipeline.suggest(request, body.n, turn),
        partial(observe_turn, turn, observer),
    )
    return SuggestResponse.model_validate(
        {
            "intent": IntentOut.of(intent, route=decision.route, reason=decision.reason, lang=lang),
            "suggestions": suggestions,
            "timings": timings,
            "citations": citations_out(decision.citations),
        }
    )


def observe_turn(turn: ReplyTurn, observer: RequestObserver) -> None:
    """The metrics of a /v1/suggest request as far as it got: its route, engine member, queue time, tokens."""
    if turn.reading is not None and turn.decision is not None:
        observer.routed(turn.reading.intent.label, turn.decision.route, turn.reading.router_ms / 1000)
    outcome = turn.outcome
    observer.variant = outcome.variant or "-"
    observer.tokens(outcome.prompt_tokens, outcome.completion_tokens)
    if outcome.queue_ms:
        observer.queued(outcome.queue_ms / 1000)


@router.get("/v1/sessions/{session_id}")
async def get_session(session_id: str, services: ServicesDep) -> dict[str, Any]:
    session = await services.sessions.get(session_id)
    if session is None:
        raise NotFound(f"no session {session_id!r} (unknown or expired)", param="session_id")
    return asdict(session)
