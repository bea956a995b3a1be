"""POST /v1/reply (the product endpoint, SSE or JSON), POST /v1/suggest (agent assist), GET /v1/sessions/{id}."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, Header
from sse_starlette.sse import EventSourceResponse

from serve.api.deps import ServicesDep
from serve.api.reply_models import DoneOut, IntentOut, ReplyBody, ReplyResponse, SuggestBody, SuggestResponse
from serve.api.sse import first_event, json_data, sse_response
from serve.errors import NotFound
from serve.pipeline import DeltaEvent, IntentEvent, ReplyEvent

router = APIRouter()

VARIANT_HEADER = "x-csreply-variant"


def event_frame(event: ReplyEvent) -> dict[str, str]:
    if isinstance(event, IntentEvent):
        return json_data(IntentOut.of_event(event).model_dump(), "intent")
    if isinstance(event, DeltaEvent):
        return json_data({"text": event.text}, "delta")
    return json_data(DoneOut.of(event).model_dump(), "done")


async def _frames(first: ReplyEvent, rest: AsyncGenerator[ReplyEvent, None]) -> AsyncIterator[dict[str, str]]:
    yield event_frame(first)
    async for event in rest:
        yield event_frame(event)


@router.post(
    "/v1/reply",
    response_model=ReplyResponse,
    responses={200: {"content": {"text/event-stream": {}},
                     "description": "JSON (stream false) or SSE events intent, delta..., done | error"}},
)
async def reply(body: ReplyBody, services: ServicesDep,
                variant: str | None = Header(None, alias=VARIANT_HEADER)) -> ReplyResponse | EventSourceResponse:
    events = services.pipeline.reply(body.to_request(variant))
    first = await first_event(events)  # routing, admission and prompt errors become HTTP errors here
    if body.stream:
        return sse_response(_frames(first, events), events.aclose, services.settings.server.sse_ping_seconds,
                            error_event="error")
    text, intent, done = "", None, None
    async with aclosing(events):
        event: ReplyEvent | None = first
        while event is not None:
            if isinstance(event, IntentEvent):
                intent = IntentOut.of_event(event)
            elif isinstance(event, DeltaEvent):
                text += event.text
            else:
                done = DoneOut.of(event)
            event = await anext(events, None)
    assert intent is not None and done is not None
    return ReplyResponse(reply=text, intent=intent, **done.model_dump())


@router.post("/v1/suggest", response_model=SuggestResponse)
async def suggest(body: SuggestBody, services: ServicesDep,
                  variant: str | None = Header(None, alias=VARIANT_HEADER)) -> SuggestResponse:
    intent, decision, lang, suggestions, timings = await services.pipeline.suggest(body.to_request(variant), body.n)
    return SuggestResponse.model_validate({
        "intent": IntentOut.of(intent, route=decision.route, reason=decision.reason, lang=lang),
        "suggestions": suggestions, "timings": timings,
    })


@router.get("/v1/sessions/{session_id}")
async def get_session(session_id: str, services: ServicesDep) -> dict[str, Any]:
    session = await services.sessions.get(session_id)
    if session is None:
        raise NotFound(f"no session {session_id!r} (unknown or expired)", param="session_id")
    return asdict(session)
