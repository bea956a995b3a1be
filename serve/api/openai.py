"""POST /v1/chat/completions, OpenAI-compatible (streaming over SSE and not)."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator

from fastapi import APIRouter, Header
from fastapi.responses import JSONResponse

from serve.api.chunks import ChunkTemplates
from serve.api.deps import OpsDep, ServicesDep
from serve.api.guarded import GENERATION_RESPONSES, closing_all, guarded_choices, open_guarded
from serve.api.reply import VARIANT_HEADER
from serve.api.reply_models import check_text
from serve.api.schemas import (
    AssistantMessage,
    ChatCompletionRequest,
    ChatCompletionResponse,
    Choice,
    Usage,
)
from serve.api.sse import DONE, Frame, SSEResponse, sse_response
from serve.completions import ChoiceEvent, ChoiceStream, CompletionParams
from serve.errors import InvalidRequest
from serve.generation.base import ChatMessage
from serve.metrics import RequestObserver
from serve.streams import TIMEOUT_HEADER

logger = logging.getLogger(__name__)
router = APIRouter()


@router.post("/v1/chat/completions", response_model=None, responses=GENERATION_RESPONSES)
async def chat_completions(
    body: ChatCompletionRequest,
    services: ServicesDep,
    ops: OpsDep,
    variant: str | None = Header(None, alias=VARIANT_HEADER),
    timeout: str | None = Header(
        None, alias=TIMEOUT_HEADER, description="deadline in seconds (capped by the server)"
    ),
) -> JSONResponse | SSEResponse:
    models = services.generator.model_names
    model = services.generator.model_name
    if body.model not in (None, *models):
        raise InvalidRequest(f"model {body.model!r} is not served here; use {model!r}", param="model")
    limit = services.settings.reply.max_message_chars
    for i, message in enumerate(body.messages):
        check_text(message.text(), f"messages[{i}].content", limit)
    params = to_params(body, variant)
    observer = RequestObserver(ops.metrics, "chat")
    guard = ops.streams.open(timeout)
    events = await open_guarded(guard, observer, services.completions.open(params, guard.remaining()))
    observer.queued(events.queued_s)
    guarded = guarded_choices(events, body.n, guard, observer)

    async def close() -> None:
        await closing_all(guarded, events)
        guard.done()
        observer.finish("aborted")  # no-op unless the stream never ran (client gone before its first frame)

    created = int(time.time())
    if body.stream:
        frames = stream_frames(guarded, params.request_id, created, model, body.n, body.include_usage)
        return sse_response(frames, close, services.settings.server.sse_ping_seconds, trailer=DONE)
    try:
        response = await collect(guarded, params.request_id, created, model, body.n)
    finally:
        await close()
    return JSONResponse(response.model_dump())


def to_params(body: ChatCompletionRequest, variant: str | None = None) -> CompletionParams:
    messages = tuple(
        ChatMessage("system" if m.role == "developer" else m.role, m.text()) for m in body.messages
    )
    prefix = ""
    if body.continue_final_message:
        prefix, messages = messages[-1].content, messages[:-1]
    max_tokens = body.max_completion_tokens if body.max_completion_tokens is not None else body.max_tokens
    return CompletionParams(
        request_id=f"chatcmpl-{secrets.token_hex(12)}",
        messages=messages,
        prefix=prefix,
        max_tokens=max_tokens,
        temperature=body.temperature,
        top_p=body.top_p,
        n=body.n,
        stop=tuple(body.stop_strings),
        seed=body.seed,
        session_id=body.session_id,
        variant=variant,
        ignore_eos=body.ignore_eos,
    )


async def collect(
    events: ChoiceStream | AsyncGenerator[ChoiceEvent, None],
    request_id: str,
    created: int,
    model: str,
    n: int,
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
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
    )
    return ChatCompletionResponse(id=request_id, created=created, model=model, choices=choices, usage=usage)


async def stream_frames(
    events: ChoiceStream | AsyncIterator[ChoiceEvent],
    request_id: str,
    created: int,
    model: str,
    n: int,
    include_usage: bool,
) -> AsyncIterator[Frame]:
    """SSE frames: a role chunk per choice, content chunks (finish_reason null), a finish chunk per choice,
    then, when asked (include_usage), one usage chunk with empty `choices` (as OpenAI sends it; every other
    chunk then has `usage: null`). `sse_response` adds the error frame and [DONE]."""
    chunks = ChunkTemplates(request_id, created, model, n, include_usage)
    open_choices = n
    prompt_tokens = completion_tokens = 0
    for i in range(n):
        yield chunks.role(i)
    async for event in events:
        if event.text:
            yield chunks.content(event.index, event.text)
        if event.finish_reason:
            open_choices -= 1
            prompt_tokens = event.prompt_tokens
            completion_tokens += event.completion_tokens
            yield chunks.finish(event.index, event.finish_reason)
    if include_usage:
        yield chunks.usage(prompt_tokens, completion_tokens)
