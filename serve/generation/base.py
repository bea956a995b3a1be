"""The generator seam: every engine (hf, trtllm, canned) implements `Generator`.

Contract:
1. `generate` is an async generator of `GenerationChunk`s; closing or cancelling the iterator aborts the
   request in the engine (backends abort from a `finally` block).
2. A backend raises only `serve.errors` types (InvalidRequest for requests it cannot take, BackendError
   subclasses for engine trouble).
3. Heavy imports (torch, transformers, tensorrt_llm) happen only inside the backend module.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

FinishReason = Literal["stop", "length", "cancelled", "error", "timeout"]
Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    request_id: str
    messages: tuple[ChatMessage, ...]
    max_new_tokens: int
    temperature: float = 0.0  # 0 means greedy
    top_p: float = 1.0
    stop: tuple[str, ...] = ()
    seed: int | None = None
    # Decoding guards against loops (names as in TensorRT-LLM's SamplingParams); neutral values by default.
    repetition_penalty: float = 1.0
    presence_penalty: float = 0.0
    frequency_penalty: float = 0.0
    no_repeat_ngram_size: int = 0  # 0 = off
    # Benchmarks: the model's end-of-turn tokens do not end the reply, so it runs to max_new_tokens (stop
    # strings still apply). TensorRT-LLM's SamplingParams and vLLM's API have the same name.
    ignore_eos: bool = False
    # Engine pool: `variant` pins a member by name; otherwise `affinity` (session or request id) picks
    # one by weight, the same one every time for the same key.
    affinity: str | None = None
    variant: str | None = None
    # The reply's opening, already sent to the customer (the pipeline's fact lead): the engine continues
    # after it, so the model's text reads on from it, and does not stream it again.
    prefix: str = ""


@dataclass(frozen=True, slots=True)
class GenerationChunk:
    text: str  # delta since the previous chunk; may be empty on the final chunk
    finish_reason: FinishReason | None = None
    prompt_tokens: int | None = None  # final chunk only
    completion_tokens: int | None = None  # final chunk only
    queue_ms: float | None = None  # final chunk only: time the engine held the request before starting it
    served_by: str | None = None  # final chunk only, set by the engine pool: the member that served it
    # The tokens this chunk's text came from, where the engine knows (an engine may put several in one chunk,
    # or hold back a token that ends mid-character); None: the engine does not say (counted as 1 per chunk).
    tokens: int | None = None


@dataclass(frozen=True, slots=True)
class GeneratorStats:
    backend: str
    model: str
    active_requests: int  # requests this process is streaming
    engine_running: int  # requests the engine is decoding
    engine_waiting: int  # requests the engine has queued
    requests_total: int = 0  # generation requests accepted since start
    kv_blocks_used: int | None = None
    kv_blocks_total: int | None = None
    extra: dict[str, float] = field(default_factory=dict)


class Generator(Protocol):
    # Read-only: a backend may declare these as class attributes, a pool computes them.
    @property
    def name(self) -> str: ...

    @property
    def model_name(self) -> str: ...

    @property
    def languages(self) -> tuple[str, ...]: ...

    def generate(self, request: GenerationRequest) -> AsyncGenerator[GenerationChunk, None]:
        """Stream the reply; closing the iterator aborts the request."""
        ...

    def count_prompt_tokens(self, messages: tuple[ChatMessage, ...]) -> int:
        """Tokens the rendered chat prompt takes (for budgets and usage)."""
        ...

    async def warmup(self) -> None: ...

    async def check_health(self) -> None:
        """Raise BackendUnavailable when the engine cannot serve."""
        ...

    def stats(self) -> GeneratorStats: ...

    async def aclose(self) -> None: ...


@runtime_checkable
class Loadable(Protocol):
    """A generator with work to do before it serves (weights or a tokenizer to read): the services call
    `load` once, in a worker thread, before the first request. A wrapper that forwards to another generator
    must define `load` itself: from Python 3.12, isinstance() does not see an attribute that only
    `__getattr__` provides."""

    def load(self) -> None: ...


@runtime_checkable
class VariantRouting(Protocol):
    """A generator in front of named variants (the engine pool's members, an A/B split): what the pipeline
    needs to pin a reply to a variant or give a conversation its own. A plain engine has no variants."""

    @property
    def engines(self) -> Sequence[Generator]:
        """The engines behind the variants: each one's settings shape the replies (the cache keys them)."""
        ...

    def check_variant(self, name: str) -> None:
        """Raise InvalidRequest for a variant this generator does not have."""
        ...

    def variant_for(self, affinity: str) -> str:
        """The variant a conversation (its affinity key) belongs to: the same one every time."""
        ...


@runtime_checkable
class ReportsUpstreams(Protocol):
    """A generator in front of several servers (the remote backend): their state, for /ready."""

    def describe_upstreams(self) -> list[dict[str, Any]]: ...
