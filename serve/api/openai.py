"""POST /v1/chat/completions, OpenAI-compatible (streaming over SSE and not)."""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Header
from fastapi.responses import JSONResponse
from sse_starlette.sse import EventSourceResponse

from serve.api.deps import ServicesDep
from serve.api.reply import VARIANT_HEADER
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
from serve.api.sse import sse_response
from serve.completions import ChoiceEvent, ChoiceStream, CompletionParams
from serve.errors import InvalidRequest
from serve.generation.base import ChatMessage

logger = logging.getLogger(__name__)
router = APIRouter()


@router.post("/v1/chat/completions", response_model=None)
async def chat_completions(body: ChatCompletionRequest, services: ServicesDep,
                           variant: str | None = Header(None, alias=VARIANT_HEADER)) -> JSONResponse | EventSourceResponse:
    models = services.generator.model_names
    model = services.generator.model_name
    if body.model not in (None, *models):
        raise InvalidRequest(f"model {body.model!r} is not served here; use {model!r}", param="model")
    params = to_params(body, variant)
    events = await services.completions.open(params)
    created = int(time.time())
    if body.stream:
        frames = stream_frames(events, params.request_id, created, model, body.n, body.include_usage)
        return sse_response(frames, events.aclose, services.settings.server.sse_ping_seconds,
                            trailer={"data": "[DONE]"})
    response = await collect(events, params.request_id, created, model, body.n)
    return JSONResponse(response.model_dump())


def to_params(body: ChatCompletionRequest, variant: str | None = None) -> CompletionParams:
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
        session_id=body.session_id,
        variant=variant,
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
    (the last one carries usage when asked). `sse_response` adds the error frame and [DONE]."""

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
