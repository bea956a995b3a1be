"""POST /v1/reply (the product endpoint, SSE or JSON), POST /v1/suggest (agent assist), GET /v1/sessions/{id}."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import asdict
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sse_starlette.sse import EventSourceResponse
from starlette.background import BackgroundTask

from serve.api.errors import error_body
from serve.api.health import runtime_of
from serve.api.intent import result_json
from serve.errors import BackendUnavailable, NotFound, ServeError
from serve.generation.base import ChatMessage
from serve.pipeline import DeltaEvent, DoneEvent, IntentEvent, ReplyEvent, ReplyPipeline, ReplyRequest

logger = logging.getLogger(__name__)
router = APIRouter()

MAX_MESSAGE_CHARS = 4000


class HistoryMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: Literal["user", "assistant"]
    content: str = Field(max_length=MAX_MESSAGE_CHARS)


class ReplyBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    domain: Literal["telecom", "ecommerce"]
    message: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS)
    lang: Literal["auto", "en", "zh"] = "auto"
    history: list[HistoryMessage] = Field(default_factory=list, max_length=50)
    session_id: str | None = Field(None, pattern=r"^[A-Za-z0-9_.:-]{1,128}$")
    context: dict[str, str | int | float | bool | None] = Field(default_factory=dict, max_length=24)
    stream: bool = True
    max_tokens: int | None = Field(None, ge=1)

    @field_validator("message")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("message is empty")
        return value

    def to_request(self) -> ReplyRequest:
        return ReplyRequest(
            domain=self.domain, message=self.message, lang=self.lang,
            history=tuple(ChatMessage(m.role, m.content) for m in self.history),
            session_id=self.session_id, context={k: v for k, v in self.context.items() if v is not None},
            max_tokens=self.max_tokens,
        )


class SuggestBody(ReplyBody):
    n: int = Field(3, ge=1, le=4)
    stream: bool = False


def pipeline_of(request: Request) -> ReplyPipeline:
    pipeline = runtime_of(request).pipeline
    if pipeline is None:
        raise BackendUnavailable("the reply pipeline is not ready")
    return pipeline


def intent_json(event: IntentEvent) -> dict[str, Any]:
    return {**result_json(event.intent), "route": event.route.route, "reason": event.route.reason,
            "lang": event.lang, "carried_over": event.carried_over}


def done_json(event: DoneEvent) -> dict[str, Any]:
    return {
        "finish_reason": event.finish_reason,
        "handoff": {"needed": event.handoff_needed, "reason": event.handoff_reason},
        "usage": {"prompt_tokens": event.prompt_tokens, "completion_tokens": event.completion_tokens,
                  "total_tokens": event.prompt_tokens + event.completion_tokens},
        "timings": {"router_ms": event.router_ms, "queue_ms": event.queue_ms, "ttft_ms": event.ttft_ms,
                    "total_ms": event.total_ms},
        "cached": event.cached,
        "session_id": event.session_id,
    }


def sse(event: str, data: dict[str, Any]) -> dict[str, str]:
    return {"event": event, "data": json.dumps(data, ensure_ascii=False)}


async def _events(first: ReplyEvent, rest: AsyncGenerator[ReplyEvent, None]) -> AsyncIterator[dict[str, str]]:
    """SSE frames; every stream ends with `done` or `error`."""
    try:
        event: ReplyEvent | None = first
        while event is not None:
            if isinstance(event, IntentEvent):
                yield sse("intent", intent_json(event))
            elif isinstance(event, DeltaEvent):
                yield sse("delta", {"text": event.text})
            else:
                yield sse("done", done_json(event))
            event = await anext(rest, None)
    except ServeError as exc:
        logger.warning("reply.stream_failed type=%s message=%s", exc.error_type, exc.message)
        yield sse("error", error_body(exc.error_type, exc.message, exc.param))
    except Exception:  # noqa: BLE001 - the client must still get a terminal event
        logger.exception("reply.stream_crashed")
        yield sse("error", error_body("server_error", "internal server error"))
    finally:
        await rest.aclose()


@router.post("/v1/reply", response_model=None)
async def reply(body: ReplyBody, request: Request) -> JSONResponse | EventSourceResponse:
    pipeline = pipeline_of(request)
    events = pipeline.reply(body.to_request())
    try:
        first = await anext(events)  # routing, admission and prompt errors become HTTP errors here
    except BaseException:
        await events.aclose()
        raise
    if body.stream:
        ping = runtime_of(request).settings.server.sse_ping_seconds
        return EventSourceResponse(_events(first, events), ping=ping, sep="\n",
                                   background=BackgroundTask(events.aclose))
    result: dict[str, Any] = {"reply": ""}
    try:
        event: ReplyEvent | None = first
        while event is not None:
            if isinstance(event, IntentEvent):
                result["intent"] = intent_json(event)
            elif isinstance(event, DeltaEvent):
                result["reply"] += event.text
            else:
                result.update(done_json(event))
            event = await anext(events, None)
    finally:
        await events.aclose()
    return JSONResponse(result)


@router.post("/v1/suggest")
async def suggest(body: SuggestBody, request: Request) -> dict[str, Any]:
    pipeline = pipeline_of(request)
    intent, decision, lang, suggestions, timings = await pipeline.suggest(body.to_request(), body.n)
    return {
        "intent": {**result_json(intent), "route": decision.route, "reason": decision.reason, "lang": lang},
        "suggestions": suggestions,
        "timings": timings,
    }


@router.get("/v1/sessions/{session_id}")
async def get_session(session_id: str, request: Request) -> dict[str, Any]:
    runtime = runtime_of(request)
    if runtime.sessions is None:
        raise BackendUnavailable("the session store is not ready")
    session = await runtime.sessions.get(session_id)
    if session is None:
        raise NotFound(f"no session {session_id!r} (unknown or expired)", param="session_id")
    return asdict(session)
