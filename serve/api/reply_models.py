"""Wire models of /v1/reply and /v1/suggest: request bodies and the JSON answers (so the OpenAPI schema
describes them). The SSE events of a streamed reply carry the same objects: `intent` is `IntentOut`,
`done` is `DoneOut`, `delta` is `{"text"}`."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from serve.config import ReplySettings
from serve.errors import InvalidRequest
from serve.generation.base import ChatMessage
from serve.reply_events import Citation, DoneEvent, IntentEvent, ReplyRequest
from serve.router.base import IntentResult

# A hard ceiling for the wire models; the configured limit (reply.max_message_chars) is checked per request
# by `check_lengths`, which also refuses control characters.
MAX_MESSAGE_CHARS = 200_000
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def check_text(text: str, param: str, limit: int) -> None:
    """One message against the configured limit; control characters (other than tab and newlines) are
    refused: they are never customer text, and they break logs and prompts."""
    if len(text) > limit:
        raise InvalidRequest(f"{param} is {len(text)} characters; the limit is {limit}", param=param)
    bad = _CONTROL.search(text)
    if bad is not None:
        raise InvalidRequest(f"{param} contains the control character U+{ord(bad.group()):04X}", param=param)


def check_lengths(body: ReplyBody, settings: ReplySettings) -> None:
    limit = settings.max_message_chars
    check_text(body.message, "message", limit)
    for i, message in enumerate(body.history):
        check_text(message.content, f"history[{i}].content", limit)


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

    def to_request(self, variant: str | None = None) -> ReplyRequest:
        return ReplyRequest(
            domain=self.domain,
            message=self.message,
            lang=self.lang,
            history=tuple(ChatMessage(m.role, m.content) for m in self.history),
            session_id=self.session_id,
            context={k: v for k, v in self.context.items() if v is not None},
            max_tokens=self.max_tokens,
            variant=variant,
        )


class SuggestBody(ReplyBody):
    n: int = Field(3, ge=1, le=4)
    stream: bool = False


class RankedOut(BaseModel):
    label: str
    confidence: float


class IntentOut(BaseModel):
    label: str
    confidence: float
    ranking: list[RankedOut]
    uncertain: bool
    uncertain_reason: str | None
    backend: str
    lang: str
    truncated: bool = False
    tokens: int = 0
    latency_ms: float = 0.0
    route: str | None = Field(
        None, description="act | handoff | knowledge | selected | clarify | canned | template | llm"
    )
    reason: str | None = None
    carried_over: bool = False
    match_score: float | None = Field(
        None,
        description="knowledge and selected routes: how well the knowledge "
        "entry or the bank reply matched the message (0-1)",
    )

    @classmethod
    def of(cls, intent: IntentResult, **extra: object) -> IntentOut:
        fields: dict[str, object] = {
            "label": intent.label,
            "confidence": intent.confidence,
            "ranking": [RankedOut(label=r.label, confidence=r.confidence) for r in intent.ranking],
            "uncertain": intent.uncertain,
            "uncertain_reason": intent.uncertain_reason,
            "backend": intent.backend,
            "lang": intent.lang,
            "truncated": intent.truncated,
            "tokens": intent.tokens,
            "latency_ms": intent.latency_ms,
        }
        return cls.model_validate({**fields, **extra})

    @classmethod
    def of_event(cls, event: IntentEvent) -> IntentOut:
        return cls.of(
            event.intent,
            route=event.route.route,
            reason=event.route.reason,
            lang=event.lang,
            carried_over=event.carried_over,
            match_score=event.route.match_score,
        )


class CitationOut(BaseModel):
    id: str = Field(description="knowledge-base entry id")
    title: str
    lang: str
    score: float


def citations_out(citations: tuple[Citation, ...]) -> list[CitationOut]:
    return [CitationOut(id=c.id, title=c.title, lang=c.lang, score=c.score) for c in citations]


class Handoff(BaseModel):
    needed: bool
    reason: str | None


class UsageOut(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class Timings(BaseModel):
    router_ms: float
    queue_ms: float = 0.0
    ttft_ms: float = 0.0
    total_ms: float


class DoneOut(BaseModel):
    finish_reason: str
    handoff: Handoff
    usage: UsageOut
    timings: Timings
    cached: bool
    session_id: str | None
    variant: str | None = Field(None, description="the engine-pool member that generated the reply")
    fallback: str | None = Field(None, description="set when a generated reply was replaced, and why")
    citations: list[CitationOut] = Field(
        default_factory=list,
        description="knowledge-base entries the reply "
        "is built on (its answer, or passages given to the model)",
    )

    @classmethod
    def of(cls, event: DoneEvent) -> DoneOut:
        return cls(
            finish_reason=event.finish_reason,
            handoff=Handoff(needed=event.handoff_needed, reason=event.handoff_reason),
            usage=UsageOut(
                prompt_tokens=event.prompt_tokens,
                completion_tokens=event.completion_tokens,
                total_tokens=event.prompt_tokens + event.completion_tokens,
            ),
            timings=Timings(
                router_ms=event.router_ms,
                queue_ms=event.queue_ms,
                ttft_ms=event.ttft_ms,
                total_ms=event.total_ms,
            ),
            cached=event.cached,
            session_id=event.session_id,
            variant=event.variant,
            fallback=event.fallback,
            citations=citations_out(event.citations),
        )


class ReplyResponse(DoneOut):
    """The answer of /v1/reply with `stream: false`."""

    reply: str
    intent: IntentOut


class Suggestion(BaseModel):
    text: str
    source: str = Field(
        description="llm, or the route that produced it (knowledge, selected, canned, template, ...)"
    )


class SuggestTimings(BaseModel):
    router_ms: float
    total_ms: float


class SuggestResponse(BaseModel):
    intent: IntentOut
    suggestions: list[Suggestion]
    timings: SuggestTimings
    citations: list[CitationOut] = Field(
        default_factory=list, description="knowledge-base entries behind the suggestions"
    )
