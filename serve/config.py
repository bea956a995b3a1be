"""Server settings: defaults < YAML file (`--config` or CSREPLY_CONFIG) < CSREPLY_* environment variables."""

from __future__ import annotations

import contextvars
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    YamlConfigSettingsSource,
)

_yaml_file: contextvars.ContextVar[str | None] = contextvars.ContextVar("csreply_yaml_file", default=None)

SMOLLM2_DIRNAME = "smollm2-135m-instruct"
# SmolLM2 with the project's customer-service LoRA adapter merged in (`csreply prepare`; docs/evaluation.md)
SMOLLM2_CS_DIRNAME = "smollm2-135m-cs"
MINILM_DIRNAME = "all-minilm-l6-v2"


def default_cache_dir() -> Path:
    """Where fetched and built models live, outside the clone so CI runs on one machine share them."""
    override = os.environ.get("CSREPLY_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "csreply"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ServerSettings(_Section):
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    max_body_bytes: int = Field(1_000_000, ge=1024, description="larger request bodies get 413")
    sse_ping_seconds: float = Field(15.0, gt=0)
    keep_alive_s: float = Field(
        75.0,
        gt=0,
        description="idle keep-alive connections close after this; keep it "
        "above the idle timeout of the load balancer in front",
    )
    request_timeout_s: float = Field(120.0, gt=0, description="deadline of a generating request (default)")
    max_request_timeout_s: float = Field(
        600.0, gt=0, description="cap on a request's x-csreply-timeout header"
    )
    drain_timeout_s: float = Field(30.0, ge=0, description="on SIGTERM: how long open streams may finish")
    api_keys: list[str] = Field(default_factory=list, description="Bearer keys; empty = no authentication")
    api_keys_env: str | None = Field(None, description="environment variable with comma-separated keys")
    public_paths: list[str] = Field(
        ["/health", "/ready", "/metrics"], description="paths served without a key when api_keys are set"
    )
    cors_origins: list[str] = Field(default_factory=list, description="origins allowed by CORS; empty = none")
    docs: bool = Field(True, description="serve /docs (assets bundled, no CDN) and /openapi.json")

    def keys(self) -> list[str]:
        """The configured API keys, from the file/environment and from `api_keys_env`."""
        keys = list(self.api_keys)
        if self.api_keys_env:
            keys += [k.strip() for k in os.environ.get(self.api_keys_env, "").split(",") if k.strip()]
        return keys


class AdmissionSettings(_Section):
    """Per generating endpoint (chat completions; reply + suggest): in-flight limit, then a FIFO queue."""

    max_in_flight: int | None = Field(None, ge=1, description="default: generator.max_concurrent_requests")
    max_queue: int = Field(256, ge=0, description="requests waiting for a slot; beyond: 429")
    max_queue_wait_s: float = Field(30.0, gt=0, description="longest wait in the queue; then 429")
    retry_after_s: float = Field(1.0, gt=0, description="Retry-After of a 429")


class GeneratorSettings(_Section):
    backend: Literal["hf", "trtllm"] = "hf"
    trtllm_preset: Path | None = Field(
        None, description="build_configs/llm/*.yaml, required for backend trtllm"
    )
    model_dir: Path | None = Field(None, description="HF model directory; default: the embedded SmolLM2")
    model_name: str = "smollm2-135m-instruct"
    # The embedded SmolLM2-135M declares none: judged on real customer messages, its replies were acceptable
    # 1 time in 12, with invented facts, so /v1/reply answers from the knowledge base, the reply bank and the
    # reviewed texts. A production model (Llama 3.1, Qwen 2.5: their presets say en, zh) writes the replies.
    languages: tuple[str, ...] = Field(
        (),
        description="languages this model writes customer replies well in "
        "(/v1/reply generates only in these)",
    )
    device: str = Field("auto", description="'auto', 'cpu', 'cuda' or 'cuda:N'")
    dtype: Literal["float32", "bfloat16", "float16", "auto"] = "float32"
    attn_implementation: str = "sdpa"
    num_threads: int | None = Field(None, ge=1, description="torch intra-op threads; default: CPU cores")
    # Paged KV cache: page_size tokens per block, num_blocks blocks. Sized explicitly because
    # transformers otherwise sizes the cache from 60 % of system RAM on CPU.
    page_size: int = Field(32, ge=16)
    num_blocks: int = Field(512, ge=4)
    max_batch_tokens: int = Field(512, ge=64)
    max_model_len: int = Field(2048, ge=128, description="prompt + completion tokens")
    default_max_tokens: int = Field(256, ge=1)
    max_tokens_limit: int = Field(1024, ge=1)
    max_concurrent_requests: int = Field(64, ge=1)
    warmup: bool = True
    # Decoding guards (issue 9): the generator's defaults, used when a request leaves a guard at its
    # neutral value. Chosen by measurement on the reply set (docs/evaluation.md).
    repetition_penalty: float = Field(
        1.1, gt=0, description="1.0 = off; > 1 discourages tokens already in the reply"
    )
    presence_penalty: float = Field(0.0, ge=-2, le=2)
    frequency_penalty: float = Field(0.0, ge=-2, le=2)
    no_repeat_ngram_size: int = Field(4, ge=0, description="0 = off; bans repeating any n-gram of the reply")

    @model_validator(mode="after")
    def _check_limits(self) -> GeneratorSettings:
        if self.backend == "trtllm" and self.trtllm_preset is None:
            raise ValueError("generator.trtllm_preset is required when generator.backend is trtllm")
        if self.default_max_tokens > self.max_tokens_limit:
            raise ValueError("default_max_tokens must not exceed max_tokens_limit")
        if self.max_tokens_limit >= self.max_model_len:
            raise ValueError("max_tokens_limit must be smaller than max_model_len")
        return self


class MemberSettings(_Section):
    """One member of the engine pool (`generators:`). Members with weight 0 take traffic only by failover
    or when a request pins them (header `x-csreply-variant`)."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,40}$")
    backend: Literal["hf", "trtllm", "openai"]
    weight: float = Field(1.0, ge=0, description="share of sessions (A/B split); 0 = failover only")
    languages: tuple[str, ...] | None = Field(None, description="default: the backend's own declaration")
    trtllm_preset: Path | None = Field(None, description="backend trtllm: build_configs/llm/*.yaml")
    base_urls: list[str] = Field(default_factory=list, description="backend openai: .../v1 of each server")
    model: str | None = Field(None, description="backend openai: the model name the remote servers serve")
    api_key_env: str | None = Field(None, description="backend openai: environment variable with the key")
    connect_timeout_s: float = Field(2.0, gt=0)
    read_timeout_s: float = Field(60.0, gt=0, description="longest silence between two streamed chunks")
    max_connections: int = Field(512, ge=1)
    health_interval_s: float = Field(5.0, gt=0)
    max_model_len: int = Field(8192, ge=128, description="backend openai: the remote context length")
    tokenizer_dir: Path | None = Field(
        None, description="backend openai: HF tokenizer for exact token counts"
    )
    prefill: bool = Field(
        False,
        description="backend openai: the servers continue a final assistant message "
        "(continue_final_message, as vLLM and TGI accept); off: the reply's opening is given "
        "to the model as an instruction instead",
    )
    failures_to_open: int = Field(
        3, ge=1, description="failures before the first token that open the breaker"
    )
    cooldown_s: float = Field(10.0, gt=0, description="open breaker: wait this long before a probe")

    @model_validator(mode="after")
    def _check_backend(self) -> MemberSettings:
        if self.backend == "trtllm" and self.trtllm_preset is None:
            raise ValueError(f"generators[{self.name}]: backend trtllm needs trtllm_preset")
        if self.backend == "openai":
            if not self.base_urls:
                raise ValueError(f"generators[{self.name}]: backend openai needs base_urls")
            if not self.model:
                raise ValueError(f"generators[{self.name}]: backend openai needs model")
            for url in self.base_urls:
                if not url.startswith(("http://", "https://")):
                    raise ValueError(
                        f"generators[{self.name}]: base url {url!r} must start with http:// or https://"
                    )
        return self


class RouterSettings(_Section):
    backend: Literal["onnx", "tensorrt", "rules"] = "onnx"
    router_dir: Path | None = Field(None, description="a build-router output; default <cache>/router/default")
    variant: Literal["auto", "fp32", "int8"] = Field(
        "auto", description="onnx file; auto = the build's choice"
    )
    device: str = "cpu"
    threads: int | None = Field(None, ge=1, description="ONNX Runtime intra-op threads; default: all cores")
    spin_wait: bool = Field(
        False,
        description="ONNX Runtime threads spin-wait between runs (lower latency on "
        "idle cores, about twice the CPU per classification)",
    )
    max_batch_size: int = Field(32, ge=1, le=256)
    max_wait_ms: float = Field(1.0, ge=0, le=100)
    min_confidence: float | None = Field(None, ge=0, le=1, description="override the build's threshold")
    min_margin: float | None = Field(None, ge=0, le=1)
    max_texts_per_request: int = Field(64, ge=1, le=1024)
    build_in_background: bool = Field(
        False,
        description="build the default router in a child process while serving "
        "(with the quick lexical router, or a stale build) and swap it in when done; "
        "`make run` turns it on",
    )
    build_command: list[str] | None = Field(
        None,
        description="the build's command line (default: python -m "
        "checkpoints build-router build_configs/router/default.yaml)",
    )
    breaker_failures: int = Field(3, ge=1, description="consecutive failures that open the circuit breaker")
    breaker_cooldown_s: float = Field(30.0, gt=0)


class SessionSettings(_Section):
    backend: Literal["memory", "redis"] = "memory"
    redis_url: str = "redis://127.0.0.1:6379/0"
    ttl_s: float = Field(1800.0, gt=0, description="idle conversations expire after this")
    max_sessions: int = Field(10_000, ge=1, description="memory backend: least recently used beyond this go")
    max_turns: int = Field(20, ge=2, description="turns kept per conversation")


class CacheSettings(_Section):
    backend: Literal["off", "memory", "redis"] = "memory"
    redis_url: str = "redis://127.0.0.1:6379/0"
    ttl_s: float = Field(3600.0, gt=0)
    max_entries: int = Field(5000, ge=1)


class ReplySettings(_Section):
    max_tokens: int = Field(
        96, ge=1, description="reply length for generated replies (a chat reply is 2-4 sentences)"
    )
    temperature: float = Field(0.0, ge=0, le=2, description="0 = greedy (cacheable, reproducible)")
    max_message_chars: int = Field(4000, ge=1)
    max_history_turns: int = Field(50, ge=0)
    suggest_temperature: float = Field(0.7, gt=0, le=2)
    # Loop guard (issue 9): replies end at a sentence boundary when they repeat themselves or reach this.
    suggest_max_tokens: int = Field(80, ge=1, description="length of each /v1/suggest suggestion")
    max_sentences: int = Field(5, ge=1, description="a generated reply ends after this many sentences")
    loop_guard: bool = Field(
        True, description="off: stream the engine's text as is (no repeat/sentence checks)"
    )
    fact_lead: bool = Field(
        True,
        description="a generated reply opens with the intent's `lead` sentence (the customer "
        "facts that answer it, from the prompt library) and the model continues after it",
    )
    default_language: dict[Literal["telecom", "ecommerce"], Literal["en", "zh"]] = Field(
        default_factory=lambda: {"telecom": "en", "ecommerce": "en"},  # type: ignore[arg-type,return-value]
        description="per domain: the reply language for a message that shows none (an order number, 'ok', an "
        "emoji) when the conversation has none either; set it to your customers' language",
    )
    select_min_score: dict[Literal["en", "zh"], float] = Field(
        default_factory=lambda: {"en": 0.45, "zh": 0.55},  # type: ignore[arg-type,return-value]
        description="per language: a reply-bank reply is selected for the message at or above this match "
        "score (else the knowledge base, a template, a clarifying question or the LLM); judged on real "
        "messages, Chinese picks below 0.55 were right less often than the general acknowledgement",
    )
    reply_bank: bool = Field(
        True,
        description="select reply-bank replies for messages (off: per-intent templates, "
        "canned texts and generated replies only)",
    )
    selected_over_llm: tuple[Literal["en", "zh"], ...] = Field(
        ("en", "zh"),
        description="languages in which a selected bank reply is sent instead of a generated one",
    )

    @model_validator(mode="after")
    def _languages(self) -> ReplySettings:
        for domain in ("telecom", "ecommerce"):
            self.default_language.setdefault(domain, "en")  # type: ignore[index]
        for lang, score in (("en", 0.45), ("zh", 0.55)):
            self.select_min_score.setdefault(lang, score)  # type: ignore[arg-type]
        return self


class KnowledgeSettings(_Section):
    enabled: bool = True
    path: Path | None = Field(None, description="knowledge base folder; default: the project's knowledge/")
    answer_min_score: float = Field(
        0.65, ge=0, le=1, description="a hit at or above this answers the message directly (knowledge route)"
    )
    passage_min_score: float = Field(
        0.45, ge=0, le=1, description="hits at or above this go into the LLM's prompt as reference"
    )
    passages: int = Field(3, ge=0, le=10, description="at most this many passages in a prompt")
    history_turns: int = Field(
        1, ge=0, le=5, description="the customer's previous messages added to the query"
    )
    semantic_search: bool = Field(
        True,
        description="English search also compares the message with the shipped MiniLM's sentence vectors "
        "(built by `csreply prepare`; skipped with a warning when missing)",
    )
    vectors_dir: Path | None = Field(
        None,
        description="cache of the sentence vectors of the knowledge base and the "
        "reply bank (keyed by content); default <cache_dir>/vectors",
    )


InboxReason = Literal["uncertain", "handoff", "out_of_scope", "low_confidence"]


class FeedbackInboxSettings(_Section):
    """Opt-in: messages the router was unsure about (or that ended in a handoff), PII-redacted, kept for
    labelling (`csreply router inbox`)."""

    enabled: bool = False
    backend: Literal["file", "redis"] = "file"
    record: list[InboxReason] = Field(
        ["uncertain", "handoff"], min_length=1, description="which messages to keep"
    )
    low_confidence_below: float = Field(
        0.7, gt=0, le=1, description="record low_confidence: confident, but below this"
    )
    sample_rate: float = Field(1.0, ge=0, le=1, description="share of the matching messages kept")
    path: Path | None = Field(None, description="file backend; default <cache_dir>/inbox/router.jsonl")
    max_mb: float = Field(50.0, gt=0, description="file backend: rotate past this size")
    keep: int = Field(5, ge=0, description="file backend: rotated files kept (router.jsonl.1 ...)")
    redis_url: str | None = Field(None, description="redis backend; default: the sessions' or cache's Redis")
    key: str = Field("csreply:inbox:router", min_length=1, description="redis backend: the list's key")
    max_rows: int = Field(100_000, ge=1, description="redis backend: the list keeps the newest this many")
    queue_size: int = Field(1000, ge=1, description="rows waiting to be written; beyond, rows are dropped")
    session_salt_env: str | None = Field(
        None,
        description="environment variable with the salt of session "
        "hashes (share it across replicas); default: random per process",
    )


class LoggingSettings(_Section):
    level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    json_format: bool = True


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="CSREPLY_", env_nested_delimiter="__", extra="forbid", yaml_file=None
    )

    cache_dir: Path = Field(default_factory=default_cache_dir)
    server: ServerSettings = ServerSettings()
    generator: GeneratorSettings = GeneratorSettings()
    generators: list[MemberSettings] = Field(
        default_factory=list, description="engine pool; empty = one member from the generator section"
    )
    router: RouterSettings = RouterSettings()
    admission: AdmissionSettings = AdmissionSettings()
    sessions: SessionSettings = SessionSettings()
    cache: CacheSettings = CacheSettings()
    reply: ReplySettings = ReplySettings()
    knowledge: KnowledgeSettings = KnowledgeSettings()
    prompts_dir: Path | None = Field(None, description="prompt library; default: the repository's prompts/")
    logging: LoggingSettings = LoggingSettings()
    feedback_inbox: FeedbackInboxSettings = FeedbackInboxSettings()

    @model_validator(mode="after")
    def _check_pool(self) -> Settings:
        names = [m.name for m in self.generators]
        if len(set(names)) != len(names):
            raise ValueError(f"generators: member names must be unique, got {names}")
        if self.generators and not any(m.weight > 0 for m in self.generators):
            raise ValueError("generators: at least one member needs a weight above 0")
        if sum(m.backend == "hf" for m in self.generators) > 1:
            raise ValueError("generators: at most one hf member (it uses the generator section)")
        return self

    def pool_members(self) -> list[MemberSettings]:
        """The engine pool as configured; without `generators:`, one member from the generator section."""
        if self.generators:
            return list(self.generators)
        gen = self.generator
        return [MemberSettings(name="default", backend=gen.backend, trtllm_preset=gen.trtllm_preset)]

    @property
    def generator_model_dir(self) -> Path:
        """The configured model, else the fine-tuned SmolLM2 when prepared (it replies better: docs/
        evaluation.md), else the base SmolLM2."""
        if self.generator.model_dir:
            return self.generator.model_dir
        tuned = self.cache_dir / "models" / SMOLLM2_CS_DIRNAME
        return tuned if (tuned / "config.json").is_file() else self.cache_dir / "models" / SMOLLM2_DIRNAME

    @property
    def inbox_path(self) -> Path:
        return self.feedback_inbox.path or self.cache_dir / "inbox" / "router.jsonl"

    @property
    def inbox_redis_url(self) -> str:
        """The configured inbox Redis, else the one the sessions or the cache already use."""
        if self.feedback_inbox.redis_url:
            return self.feedback_inbox.redis_url
        for section in (self.sessions, self.cache):
            if section.backend == "redis":
                return section.redis_url
        return SessionSettings().redis_url

    @property
    def vectors_dir(self) -> Path:
        return self.knowledge.vectors_dir or self.cache_dir / "vectors"

    @property
    def router_dir(self) -> Path:
        return self.router.router_dir or self.cache_dir / "router" / "default"

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        yaml_path = _yaml_file.get() or os.environ.get("CSREPLY_CONFIG")
        if yaml_path:
            sources.append(YamlConfigSettingsSource(settings_cls, yaml_file=yaml_path))
        return tuple(sources)


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Build settings once, at the edge (CLI); everything else receives them as an argument."""
    if config_file is not None and not config_file.is_file():
        raise FileNotFoundError(f"config file not found: {config_file}")
    token = _yaml_file.set(str(config_file) if config_file is not None else None)
    try:
        return Settings(**overrides)
    finally:
        _yaml_file.reset(token)
