"""What the reply pipeline takes and streams: the request, the route decision and the events of a reply
(`intent`, `delta`..., `done`), free of HTTP and of any engine."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from serve.generation.base import ChatMessage
from serve.prompt_files import Route
from serve.router.base import IntentResult

Lang = Literal["en", "zh"]


@dataclass(frozen=True, slots=True)
class ReplyRequest:
    domain: Literal["telecom", "ecommerce"]
    message: str
    lang: Literal["auto", "en", "zh"] = "auto"
    history: tuple[ChatMessage, ...] = ()
    session_id: str | None = None
    context: dict[str, Any] = field(default_factory=dict)
    max_tokens: int | None = None
    variant: str | None = None  # pin an engine-pool member (offline A/B scoring); None = sticky by session


@dataclass(frozen=True, slots=True)
class Citation:
    """A knowledge-base entry a reply is built on: the knowledge route's answer or a passage in the prompt."""

    id: str
    title: str
    lang: str
    score: float


@dataclass(frozen=True, slots=True)
class RouteDecision:
    route: Route
    reason: str
    citations: tuple[Citation, ...] = ()
    handoff: bool = (
        False  # the reply passes the conversation to a person (handoff route, or a reply that does)
    )
    match_score: float | None = (
        None  # knowledge and selected routes: how well the entry or bank reply matched
    )


@dataclass(frozen=True, slots=True)
class IntentEvent:
    intent: IntentResult
    route: RouteDecision
    lang: Lang
    carried_over: bool = False


@dataclass(frozen=True, slots=True)
class DeltaEvent:
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DoneEvent:
    """The last event of a reply. Built in one place, the pipeline (`ReplyPipeline._done`), by keyword."""

    finish_reason: str
    handoff_needed: bool
    handoff_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    router_ms: float
    queue_ms: float
    ttft_ms: float
    total_ms: float
    cached: bool = False
    session_id: str | None = None
    variant: str | None = None  # the engine-pool member that generated the reply
    fallback: str | None = None  # why a generated reply was replaced (e.g. every generator down)
    citations: tuple[Citation, ...] = ()  # knowledge-base entries the reply was built on


ReplyEvent = IntentEvent | DeltaEvent | DoneEvent
