"""`openai` generator: streams from remote OpenAI-compatible servers (trtllm-serve, Triton's OpenAI frontend,
NIM, vLLM, or another csreply) over httpx.

Several base URLs form one member: each request goes to the healthy upstream with the fewest outstanding
requests; a connection error, timeout, 429 or 5xx before the first token moves it to the next upstream
(nothing has reached the customer yet), a failure after it ends the stream with `GenerationFailed`.
Every upstream has its own breaker, opened by failures or by the periodic health check (GET .../models),
closed again when a health check passes. Closing the iterator closes the HTTP stream, which the remote
server sees as a disconnect and aborts.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

import httpx

from serve.breaker import Breaker
from serve.config import MemberSettings
from serve.errors import BackendUnavailable, ContextLengthExceeded, GenerationFailed, InvalidRequest
from serve.generation.base import (
    ChatMessage,
    FinishReason,
    GenerationChunk,
    GenerationRequest,
    GeneratorStats,
)

logger = logging.getLogger(__name__)

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "eos": "stop",
    "abort": "cancelled",
    "cancelled": "cancelled",
    "timeout": "error",
    "error": "error",
}


class _Retryable(Exception):
    """An upstream failed before the first token; the request may go to another upstream."""


@dataclass
class Upstream:
    base_url: str
    breaker: Breaker
    outstanding: int = 0
    requests: int = 0
    failures: int = 0


class RemoteOpenAIGenerator:
    name = "openai"

    def __init__(
        self,
        settings: MemberSettings,
        languages: tuple[str, ...] = ("en",),
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        assert settings.model is not None
        self.settings = settings
        self.model_name = settings.model
        self.languages = tuple(settings.languages or languages)
        self.upstreams = [
            Upstream(url.rstrip("/"), Breaker(settings.failures_to_open, settings.cooldown_s))
            for url in settings.base_urls
        ]
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._chat: Any = None
        self._active = 0
        self._requests_total = 0
        key = os.environ.get(settings.api_key_env) if settings.api_key_env else None
        if settings.api_key_env and not key:
            raise BackendUnavailable(
                f"generators[{settings.name}]: environment variable {settings.api_key_env} "
                "is empty; it must hold the remote servers' API key"
            )
        self._headers = {"authorization": f"Bearer {key}"} if key else {}

    def load(self) -> None:
        """Optional exact token counts from a local tokenizer (the remote one is not reachable)."""
        if self.settings.tokenizer_dir is not None:
            from serve.generation.chat import ChatTokenizer

            self._chat = ChatTokenizer.from_dir(self.settings.tokenizer_dir)

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:  # created on the serving event loop
            s = self.settings
            self._client = httpx.AsyncClient(
                transport=self._transport,
                timeout=httpx.Timeout(
                    connect=s.connect_timeout_s,
                    read=s.read_timeout_s,
                    write=s.connect_timeout_s,
                    pool=s.connect_timeout_s,
                ),
                limits=httpx.Limits(
                    max_connections=s.max_connections, max_keepalive_connections=s.max_connections
                ),
                headers=self._headers,
            )
        return self._client

    # ------------------------------------------------------------------ generation
    def payload(self, request: GenerationRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model_name,
            "messages": self._messages(request),
            "max_tokens": request.max_new_tokens,
            "temperature": request.temperature,
            "top_p": request.top_p,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.prefix and self.settings.prefill:
            body["continue_final_message"] = True
            body["add_generation_prompt"] = False
        if request.stop:
            body["stop"] = list(request.stop)
        if request.seed is not None:
            body["seed"] = request.seed
        if request.presence_penalty:
            body["presence_penalty"] = request.presence_penalty
        if request.frequency_penalty:
            body["frequency_penalty"] = request.frequency_penalty
        # Not in OpenAI's schema; trtllm-serve and vLLM accept them as sampling extras.
        if request.repetition_penalty != 1.0:
            body["repetition_penalty"] = request.repetition_penalty
        if request.no_repeat_ngram_size:
            body["no_repeat_ngram_size"] = request.no_repeat_ngram_size
        if request.ignore_eos:
            body["ignore_eos"] = True
        return body

    def _messages(self, request: GenerationRequest) -> list[dict[str, str]]:
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        if not request.prefix:
            return messages
        if self.settings.prefill:
            return [*messages, {"role": "assistant", "content": request.prefix}]
        # A server that cannot continue an assistant message is told where the reply stands instead.
        note = (
            f'\nThe reply has already begun with: "{request.prefix}" Write only what comes after it, '
            "without repeating it."
        )
        if messages and messages[0]["role"] == "system":
            return [{"role": "system", "content": messages[0]["content"] + note}, *messages[1:]]
        return [{"role": "system", "content": note.strip()}, *messages]

    def _ordered(self) -> list[Upstream]:
        now = time.monotonic()
        allowed = [u for u in self.upstreams if u.breaker.allows(now)]
        return sorted(allowed, key=lambda u: u.outstanding)

    async def generate(self, request: GenerationRequest) -> AsyncGenerator[GenerationChunk, None]:
        body = self.payload(request)
        errors: list[str] = []
        self._requests_total += 1
        self._active += 1
        try:
            for upstream in self._ordered():
                # half-open: one probe at a time; the rest of a burst tries the next upstream or fails fast
                probe = upstream.breaker.is_open
                if not upstream.breaker.admit():
                    continue
                upstream.outstanding += 1
                upstream.requests += 1
                try:
                    async for chunk in self._stream(upstream, body):
                        yield chunk
                    upstream.breaker.record_success()
                    return
                except GenerationFailed as exc:
                    upstream.failures += 1
                    upstream.breaker.record_failure(error=exc.message)
                    raise
                except _Retryable as exc:
                    upstream.failures += 1
                    upstream.breaker.record_failure(error=str(exc))
                    errors.append(f"{upstream.base_url}: {exc}")
                    logger.warning("remote.retry upstream=%s error=%s", upstream.base_url, exc)
                finally:
                    upstream.outstanding -= 1
                    if probe:
                        upstream.breaker.end_probe()
            if not errors:
                errors.append("every upstream's circuit breaker is open")
            raise BackendUnavailable(
                f"generator {self.settings.name}: no upstream could serve (" + "; ".join(errors) + ")"
            )
        finally:
            self._active -= 1

    async def _stream(
        self, upstream: Upstream, body: dict[str, Any]
    ) -> AsyncGenerator[GenerationChunk, None]:
        started = False
        finish: FinishReason | None = None
        usage: dict[str, Any] = {}
        try:
            async with self.client.stream(
                "POST", upstream.base_url + "/chat/completions", json=body
            ) as response:
                if response.status_code != 200:
                    await self._refuse(response)
                async for line in response.aiter_lines():
                    if not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]":
                        break
                    event = json.loads(data)
                    if "error" in event and not event.get("choices"):
                        message = str(event["error"].get("message", event["error"]))
                        if not started:
                            raise _Retryable(f"stream error before the first token: {message}")
                        raise GenerationFailed(f"remote generator failed mid-stream: {message}")
                    usage = event.get("usage") or usage
                    for choice in event.get("choices") or []:
                        text = (choice.get("delta") or {}).get("content") or ""
                        if text:
                            started = True
                            yield GenerationChunk(text)
                        if choice.get("finish_reason"):
                            finish = _FINISH.get(choice["finish_reason"], "stop")
        except (httpx.TransportError, json.JSONDecodeError) as exc:
            # TransportError covers connect errors, timeouts and a server that died mid-response.
            if not started:
                raise _Retryable(f"{type(exc).__name__}: {exc}") from exc
            raise GenerationFailed(
                f"remote generator {upstream.base_url} failed mid-stream: {type(exc).__name__}"
            ) from exc
        if finish is None:
            if not started:
                raise _Retryable("the stream ended without a finish reason")
            raise GenerationFailed(
                f"remote generator {upstream.base_url} ended the stream without a finish reason"
            )
        yield GenerationChunk(
            "",
            finish,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
        )

    async def _refuse(self, response: httpx.Response) -> None:
        raw = (await response.aread())[:2000].decode("utf-8", "replace")
        try:
            message = str(json.loads(raw)["error"]["message"])
        except (ValueError, KeyError, TypeError):
            message = raw.strip() or response.reason_phrase
        if response.status_code in (400, 413, 422):
            error = ContextLengthExceeded if "context" in message.lower() else InvalidRequest
            raise error(f"the remote generator refused the request: {message}")
        raise _Retryable(f"HTTP {response.status_code}: {message[:200]}")

    # ------------------------------------------------------------------ the rest of the protocol
    def count_prompt_tokens(self, messages: tuple[ChatMessage, ...]) -> int:
        if self._chat is not None:
            return len(self._chat.encode(messages))
        # No tokenizer: a conservative estimate (about 3 UTF-8 bytes a token, plus the chat markup).
        return sum(len(m.content.encode("utf-8")) // 3 + 8 for m in messages) + 4

    async def warmup(self) -> None:
        await self.check_health()

    async def check_health(self) -> None:
        """Probe every upstream (GET .../models); each failure opens that upstream's breaker, each pass
        closes it. Raises when none is healthy."""
        healthy = 0
        for upstream in self.upstreams:
            try:
                response = await self.client.get(
                    upstream.base_url + "/models", timeout=self.settings.connect_timeout_s
                )
                if response.status_code != 200:
                    raise httpx.HTTPStatusError(
                        f"HTTP {response.status_code}", request=response.request, response=response
                    )
            except httpx.HTTPError as exc:
                if not upstream.breaker.is_open:
                    logger.warning("remote.unhealthy upstream=%s error=%s", upstream.base_url, exc)
                upstream.breaker.trip(error=f"health check failed: {type(exc).__name__}")
                continue
            if upstream.breaker.is_open:
                logger.info("remote.recovered upstream=%s", upstream.base_url)
            upstream.breaker.record_success()
            healthy += 1
        if not healthy:
            raise BackendUnavailable(f"generator {self.settings.name}: no upstream answers its health check")

    def describe_upstreams(self) -> list[dict[str, Any]]:
        return [
            {
                "base_url": u.base_url,
                "state": u.breaker.state(),
                "outstanding": u.outstanding,
                "requests": u.requests,
                "failures": u.failures,
                "last_error": u.breaker.last_error,
            }
            for u in self.upstreams
        ]

    def stats(self) -> GeneratorStats:
        outstanding = sum(u.outstanding for u in self.upstreams)
        return GeneratorStats(
            self.name, self.model_name, self._active, outstanding, 0, requests_total=self._requests_total
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
