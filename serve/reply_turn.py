"""What one request carries through the pipeline: the plan of its reply, and the turn as far as it has got."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from serve.conversation import Reading
from serve.generated import Outcome
from serve.knowledge.base import KnowledgeHit
from serve.reply_events import ReplyRequest, RouteDecision
from serve.sessions import Session


@dataclass(frozen=True, slots=True)
class Plan:
    reading: Reading
    decision: RouteDecision
    text: str | None  # the reply of every route but llm
    passages: tuple[KnowledgeHit, ...] = ()  # the llm route's reference passages


@dataclass(eq=False)
class ReplyTurn:
    """One /v1/reply or /v1/suggest request as far as it has got, filled in by the pipeline as it goes: what
    the API needs when it stops the work early (the deadline: `ReplyPipeline.end_on_deadline`; the client
    leaving, the drain, an error: the usage for the metrics)."""

    request: ReplyRequest
    started: float = field(default_factory=time.perf_counter)
    session: Session | None = None
    reading: Reading | None = None
    decision: RouteDecision | None = None
    variant: str | None = None  # the engine-pool member the reply was assigned to (generated replies)
    outcome: Outcome = field(default_factory=Outcome)
    streamed: list[str] = field(default_factory=list)  # the texts of the delta events handed out so far
    remembered: bool = False  # the turn is in the session

    @property
    def text(self) -> str:
        return "".join(self.streamed)

    def elapsed_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 3)

    def usage(self) -> tuple[int, int]:
        """(prompt tokens, completion tokens) generated so far."""
        return self.outcome.prompt_tokens, self.outcome.completion_tokens
