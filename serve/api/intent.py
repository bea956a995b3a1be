"""POST /v1/intent: classify one message or a batch (label, confidence, top-k ranking, backend, latency)."""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, model_validator

from serve.api.deps import ServicesDep
from serve.errors import InvalidRequest
from serve.router.base import IntentResult

router = APIRouter()

MAX_TEXT_CHARS = 200_000  # longer texts are refused; anything under is truncated to the model's window


class IntentRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str | None = Field(None, max_length=MAX_TEXT_CHARS)
    texts: list[str] | None = Field(None, min_length=1)
    top_k: int = Field(5, ge=1, le=25)

    @model_validator(mode="after")
    def _one_of(self) -> IntentRequest:
        if (self.text is None) == (self.texts is None):
            raise ValueError("send exactly one of `text` or `texts`")
        return self


def result_json(result: IntentResult) -> dict[str, Any]:
    data = asdict(result)
    data.pop("embedding", None)  # the sentence vector is for retrieval inside the server, not for clients
    data["ranking"] = [{"label": r.label, "confidence": r.confidence} for r in result.ranking]
    return data


@router.post("/v1/intent")
async def classify_intent(body: IntentRequest, services: ServicesDep) -> dict[str, Any]:
    texts = [body.text] if body.text is not None else list(body.texts or [])
    limit = services.settings.router.max_texts_per_request
    if len(texts) > limit:
        raise InvalidRequest(f"texts has {len(texts)} items; at most {limit} per request", param="texts")
    for i, text in enumerate(texts):
        param = "text" if body.text is not None else f"texts[{i}]"
        if not text.strip():
            raise InvalidRequest(f"{param} is empty", param=param)
        if len(text) > MAX_TEXT_CHARS:
            raise InvalidRequest(f"{param} is longer than {MAX_TEXT_CHARS} characters", param=param)
    started = time.perf_counter()
    results = await services.router.classify(texts, body.top_k)
    if body.text is not None:
        return result_json(results[0])
    return {
        "results": [result_json(r) for r in results],
        "backend": results[0].backend,
        "latency_ms": round((time.perf_counter() - started) * 1000, 3),
    }
