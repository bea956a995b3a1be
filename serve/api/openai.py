"""POST /v1/chat/completions, OpenAI-compatible (streaming over SSE and not)."""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sse_starlette.sse import EventSourceResponse
from starlette.background import BackgroundTask

from serve.api.errors import error_body
from serve.api.health import runtime_of
from serve.api.schemas import (
    AssistantMessage,
    ChatCompletionChunk,
    ChatCompletionRequest,
    ChatCompletionResponse,
    Choice,
    ChunkChoice,
    Delta,
    Usage,
)
from serve.completions import ChoiceEvent, ChoiceStream, CompletionParams
from serve.errors import InvalidRequest, ServeError
from serve.generation.base import ChatMessage

logger = logging.getLogger(__name__)
router = APIRouter()


@router.post("/v1/chat/completions", response_model=None)
async def chat_completions(body: ChatCompletionRequest, request: Request) -> JSONResponse | EventSourceResponse:
    runtime = runtime_of(request)
    model = runtime.generator.model_name
    if body.model not in (None, model):
        raise InvalidRequest(f"model {body.model!r} is not served here; use {model!r}", param="model")
    params = to_params(body)
    events = await runtime.completions.open(params)
    created = int(time.time())
    if body.stream:
        frames = stream_frames(events, params.request_id, created, model, body.n, body.include_usage)
        # The background task closes the stream even if the client left before the first frame was sent.
        return EventSourceResponse(
            frames, ping=runtime.settings.server.sse_ping_seconds, sep="\n", background=BackgroundTask(events.aclose)
        )
    response = await collect(events, params.request_id, created, model, body.n)
    return JSONResponse(response.model_dump())


def to_params(body: ChatCompletionRequest) -> CompletionParams:
    messages = tuple(
        ChatMessage("system" if m.role == "developer" else m.role, m.text()) for m in body.messages
    )
    max_tokens = body.max_completion_tokens if body.max_completion_tokens is not None else body.max_tokens
    return CompletionParams(
        request_id=f"chatcmpl-{secrets.token_hex(12)}",
        messages=messages,
        max_tokens=max_tokens,
        temperature=body.temperature,
        top_p=body.top_p,
        n=body.n,
        stop=tuple(body.stop_strings),
        seed=body.seed,
    )


async def collect(
    events: ChoiceStream, request_id: str, created: int, model: str, n: int
) -> ChatCompletionResponse:
    texts = [""] * n
    finish: list[str | None] = [None] * n
    prompt_tokens = completion_tokens = 0
    try:
        async for event in events:
            texts[event.index] += event.text
            if event.finish_reason:
                finish[event.index] = event.finish_reason
                prompt_tokens = event.prompt_tokens
                completion_tokens += event.completion_tokens
    finally:
        await events.aclose()
    choices = [
        Choice(index=i, message=AssistantMessage(content=texts[i]), finish_reason=finish[i]) for i in range(n)
    ]
    usage = Usage(
        prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
    )
    return ChatCompletionResponse(id=request_id, created=created, model=model, choices=choices, usage=usage)


async def stream_frames(
    events: ChoiceStream | AsyncIterator[ChoiceEvent], request_id: str, created: int, model: str, n: int, include_usage: bool
) -> AsyncIterator[dict[str, str]]:
    """SSE frames: a role chunk per choice, content chunks (finish_reason null), a finish chunk per choice
    (the last one carries usage when asked), then [DONE]. A failure after the 200 becomes an error frame."""

    def frame(choice: ChunkChoice | None, usage: Usage | None = None) -> dict[str, str]:
        chunk = ChatCompletionChunk(
            id=request_id, created=created, model=model, choices=[choice] if choice else [], usage=usage
        )
        data: dict[str, Any] = chunk.model_dump(exclude={"usage"} if not include_usage else set())
        for choice_data in data["choices"]:
            choice_data["delta"] = {k: v for k, v in choice_data["delta"].items() if v is not None}
        return {"data": json.dumps(data, ensure_ascii=False)}

    open_choices = n
    prompt_tokens = completion_tokens = 0
    try:
        for i in range(n):
            yield frame(ChunkChoice(index=i, delta=Delta(role="assistant", content="")))
        async for event in events:
            if event.text:
                yield frame(ChunkChoice(index=event.index, delta=Delta(content=event.text)))
            if event.finish_reason:
                open_choices -= 1
                prompt_tokens = event.prompt_tokens
                completion_tokens += event.completion_tokens
                usage = None
                if include_usage and open_choices == 0:
                    usage = Usage(
                        prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                        total_tokens=prompt_tokens + completion_tokens,
                    )
                yield frame(ChunkChoice(index=event.index, delta=Delta(), finish_reason=event.finish_reason), usage)
    except ServeError as exc:
        logger.warning("stream.failed type=%s message=%s", exc.error_type, exc.message)
        yield {"data": json.dumps(error_body(exc.error_type, exc.message, exc.param), ensure_ascii=False)}
    except Exception:  # noqa: BLE001 - the client must still get a terminal frame
        logger.exception("stream.crashed")
        yield {"data": json.dumps(error_body("server_error", "internal server error"))}
    finally:
        await events.aclose()  # type: ignore[attr-defined]
    yield {"data": "[DONE]"}
