"""OpenAI-compatible wire models for /v1/chat/completions and /v1/models (pydantic, no engine types)."""

from __future__ import annotations

import logging
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

logger = logging.getLogger(__name__)

MAX_STOP_STRINGS = 4
MAX_CHOICES = 4
MAX_MESSAGES = 200
MAX_MESSAGE_CHARS = 200_000  # a ceiling; reply.max_message_chars is the limit


class TextPart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["text"]
    text: str


class ChatMessageIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    # "developer" is OpenAI's newer name for the system role.
    role: Literal["system", "developer", "user", "assistant"]
    content: str | list[TextPart] = Field(
        max_length=MAX_MESSAGE_CHARS
    )  # the configured limit is checked later
    name: str | None = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "".join(part.text for part in self.content)


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    include_usage: bool = False


# OpenAI fields that change nothing about the reply: accepted and ignored, so clients keep working.
HARMLESS_FIELDS = frozenset(
    {"user", "metadata", "store", "service_tier", "safety_identifier", "prompt_cache_key"}
)


def _neutral(name: str, value: Any) -> bool:
    """Whether an unsupported OpenAI field carries its neutral value (then nothing is silently ignored)."""
    if value is None or value is False or value == [] or value == {}:
        return True
    if name in ("presence_penalty", "frequency_penalty"):
        return value == 0
    if name == "response_format":
        return isinstance(value, dict) and value.get("type") == "text"
    if name == "tool_choice":
        return value == "none"
    if name == "modalities":
        return value == ["text"]
    if name == "parallel_tool_calls":
        return True  # meaningless without tools, which are refused on their own
    return False


class ChatCompletionRequest(BaseModel):
    # Extra fields are collected, then checked: harmless OpenAI ones pass, anything that would change the
    # reply (tools, logprobs, response_format, ...) or that nobody defines is a 400 naming it.
    model_config = ConfigDict(extra="allow")

    model: str | None = None
    messages: list[ChatMessageIn] = Field(min_length=1, max_length=MAX_MESSAGES)
    max_tokens: int | None = Field(None, ge=1)
    max_completion_tokens: int | None = Field(None, ge=1)
    temperature: float = Field(1.0, ge=0.0, le=2.0)
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    n: int = Field(1, ge=1, le=MAX_CHOICES)
    stop: str | list[str] | None = None
    seed: int | None = None
    stream: bool = False
    stream_options: StreamOptions | None = None
    # vLLM's and TGI's extension: the last message is an assistant reply already begun, to be continued (not
    # streamed again); it needs add_generation_prompt false, as there (a new turn would not continue it).
    continue_final_message: bool = False
    add_generation_prompt: bool = True
    # vLLM's, SGLang's and trtllm-serve's extension for benchmarks: the model's end-of-turn token does not end
    # the reply, so every reply is max_tokens long; stop strings still apply.
    ignore_eos: bool = False
    # Product extras of /v1/reply, accepted (and ignored) so one body can go to both endpoints.
    domain: Literal["telecom", "ecommerce"] | None = None
    session_id: str | None = Field(None, max_length=128)
    context: dict[str, Any] | None = None

    @field_validator("stop")
    @classmethod
    def _check_stop(cls, value: str | list[str] | None) -> list[str]:
        stops = [value] if isinstance(value, str) else list(value or [])
        if len(stops) > MAX_STOP_STRINGS:
            raise ValueError(f"at most {MAX_STOP_STRINGS} stop strings are allowed")
        if any(not s for s in stops):
            raise ValueError("stop strings must not be empty")
        return stops

    @model_validator(mode="after")
    def _check_messages(self) -> ChatCompletionRequest:
        for i, message in enumerate(self.messages):
            if message.role != "assistant" and not message.text().strip():
                raise ValueError(f"messages[{i}].content is empty")
        if self.continue_final_message:
            if self.add_generation_prompt:
                raise ValueError("continue_final_message needs add_generation_prompt false")
            if (
                len(self.messages) < 2
                or self.messages[-1].role != "assistant"
                or not self.messages[-1].text().strip()
            ):
                raise ValueError(
                    "continue_final_message needs a conversation that ends with an assistant message "
                    "with content"
                )
        elif not self.add_generation_prompt:
            raise ValueError("add_generation_prompt false is only supported with continue_final_message true")
        if self.model_extra:
            refused = sorted(
                k for k, v in self.model_extra.items() if k not in HARMLESS_FIELDS and not _neutral(k, v)
            )
            if refused:
                raise ValueError(
                    f"unsupported field{'s' if len(refused) > 1 else ''}: {', '.join(refused)} "
                    "(this server does not implement them; remove them from the request)"
                )
        return self

    @property
    def stop_strings(self) -> list[str]:
        return self.stop if isinstance(self.stop, list) else []

    @property
    def include_usage(self) -> bool:
        return bool(self.stream_options and self.stream_options.include_usage)


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int
    message: AssistantMessage
    finish_reason: str | None
    logprobs: None = None


class ChatCompletionResponse(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: Usage


class Delta(BaseModel):
    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(BaseModel):
    index: int
    delta: Delta
    finish_reason: str | None = None
    logprobs: None = None


class ChatCompletionChunk(BaseModel):
    id: str
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: Usage | None = None


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "csreply"


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]
