"""Test doubles, named as such. `ScriptedFakeGenerator` stands in for an engine in API tests only; the real
engine is exercised by tests/e2e against the embedded SmolLM2 model."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field

from serve.errors import BackendUnavailable, ServeError
from serve.generation.base import ChatMessage, GenerationChunk, GenerationRequest, GeneratorStats
from serve.router.base import IntentResult, Ranked
from serve.router.encoding import detect_lang
from serve.taxonomy import INTENTS

# Sequence, not list: a script that only returns chunks is a script too (list is invariant)
Script = Callable[[GenerationRequest], Sequence[GenerationChunk | ServeError]]


def echo_script(request: GenerationRequest) -> list[GenerationChunk | ServeError]:
    """Replies with the last user message, one word per chunk; finish_reason 'stop'."""
    words = request.messages[-1].content.split()
    words = words[: request.max_new_tokens]
    chunks: list[GenerationChunk | ServeError] = [GenerationChunk(w + " ") for w in words[:-1]]
    chunks.append(GenerationChunk(words[-1], "stop", prompt_tokens=7, completion_tokens=len(words)))
    return chunks


@dataclass
class ScriptedFakeGenerator:
    """Replays scripted chunks per request; records started, finished and aborted request ids.

    `gate`, when set, makes every request wait for it after its first chunk (to hold streams open)."""

    script: Script = echo_script
    name: str = "fake"
    model_name: str = "fake-model"
    languages: tuple[str, ...] = ("en",)
    gate: asyncio.Event | None = None
    started: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    aborted: list[str] = field(default_factory=list)
    requests: list[GenerationRequest] = field(default_factory=list)
    healthy: bool = True
    closed: bool = False

    async def generate(self, request: GenerationRequest) -> AsyncGenerator[GenerationChunk, None]:
        self.started.append(request.request_id)
        self.requests.append(request)
        done = False
        try:
            for i, item in enumerate(self.script(request)):
                if isinstance(item, ServeError):
                    raise item
                yield item
                if i == 0 and self.gate is not None:
                    await self.gate.wait()
                await asyncio.sleep(0)
            done = True
            self.finished.append(request.request_id)
        finally:
            if not done:
                self.aborted.append(request.request_id)

    def count_prompt_tokens(self, messages: tuple[ChatMessage, ...]) -> int:
        return sum(len(m.content.split()) for m in messages)

    async def warmup(self) -> None:
        return None

    async def check_health(self) -> None:
        if not self.healthy:
            raise BackendUnavailable("fake engine marked unhealthy")

    def stats(self) -> GeneratorStats:
        active = len(set(self.started) - set(self.finished) - set(self.aborted))
        return GeneratorStats(self.name, self.model_name, active, active, 0, requests_total=len(self.started))

    async def aclose(self) -> None:
        self.closed = True


class ScriptedTestRouter:
    """Test double for the router: a fixed (label, confidence) per text (below 0.5: uncertain), so pipeline
    rules (follow-ups, the feedback inbox) are tested apart from any one router build."""

    name = "scripted-test"

    def __init__(self, answers: dict[str, tuple[str, float]]) -> None:
        self.labels = INTENTS
        self.answers = answers
        self.asked: list[str] = []

    async def classify(self, texts: list[str], top_k: int = 5) -> list[IntentResult]:
        self.asked += texts
        out = []
        for text in texts:
            label, confidence = self.answers.get(text, ("out_of_scope", 0.99))
            unsure = confidence < 0.5  # the default build's threshold floor
            out.append(
                IntentResult(
                    label,
                    confidence,
                    (Ranked(label, confidence), Ranked("out_of_scope", 0.0)),
                    unsure,
                    "low_confidence" if unsure else None,
                    self.name,
                    detect_lang(text),
                )
            )
        return out

    async def check_health(self) -> None:
        return None

    async def aclose(self) -> None:
        return None
