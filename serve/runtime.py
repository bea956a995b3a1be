"""What the running server holds: settings, the generator, admission control and the services."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from serve.admission import Admission
from serve.completions import CompletionService
from serve.config import Settings
from serve.generation.base import Generator
from serve.pipeline import ReplyPipeline
from serve.prompts import PROMPTS_DIR, PromptLibrary
from serve.response_cache import MemoryResponseCache, RedisResponseCache, ResponseCache
from serve.router.base import IntentClassifier
from serve.router.fallback import FallbackRouter
from serve.sessions import MemorySessionStore, RedisSessionStore, SessionStore

logger = logging.getLogger(__name__)


def hf_generator(settings: Settings) -> Generator:
    from serve.generation.hf import HfGenerator

    return HfGenerator(settings.generator, settings.generator_model_dir)


def build_generator(settings: Settings) -> tuple[Generator, list[str]]:
    """The configured generator, not yet loaded, and notes on any fallback taken."""
    config = settings.generator
    if config.backend != "trtllm":
        return hf_generator(settings), []
    import importlib.util

    if importlib.util.find_spec("tensorrt_llm") is None:
        note = "generator: trtllm configured but TensorRT-LLM is not importable; serving with hf"
        logger.warning("generator.fallback %s", note)
        return hf_generator(settings), [note]
    from serve.generation.trtllm import from_preset

    assert config.trtllm_preset is not None
    return from_preset(config.trtllm_preset, settings.cache_dir), []


def build_session_store(settings: Settings) -> SessionStore:
    config = settings.sessions
    if config.backend == "redis":
        return RedisSessionStore(config.redis_url, config.ttl_s)
    return MemorySessionStore(config.max_sessions, config.ttl_s)


def build_response_cache(settings: Settings) -> ResponseCache | None:
    config = settings.cache
    if config.backend == "off":
        return None
    if config.backend == "redis":
        return RedisResponseCache(config.redis_url, config.ttl_s)
    return MemoryResponseCache(config.max_entries, config.ttl_s)


@dataclass
class Runtime:
    settings: Settings
    generator: Generator
    admission: Admission
    completions: CompletionService
    router: FallbackRouter | None = None
    library: PromptLibrary | None = None
    sessions: SessionStore | None = None
    cache: ResponseCache | None = None
    pipeline: ReplyPipeline | None = None
    started_at: float = field(default_factory=time.time)
    ready: bool = False
    notes: list[str] = field(default_factory=list)

    @classmethod
    def create(
        cls, settings: Settings, generator: Generator | None = None, router: IntentClassifier | None = None
    ) -> Runtime:
        notes: list[str] = []
        if generator is None:
            generator, notes = build_generator(settings)
        admission = Admission(settings.generator.max_concurrent_requests)
        runtime = cls(settings, generator, admission, CompletionService(generator, settings.generator, admission),
                      notes=notes)
        if router is not None:
            runtime.router = router if isinstance(router, FallbackRouter) else FallbackRouter([router])
        return runtime

    @property
    def degraded(self) -> list[str]:
        """Why the server runs below its configured backends, now."""
        return list(self.notes) + (self.router.degraded if self.router else [])

    async def start(self) -> None:
        if self.router is None:
            from serve.router.loading import load_router

            self.router, notes = await asyncio.to_thread(load_router, self.settings)
            self.notes.extend(notes)
        await self.router.classify(["hello"])  # warm-up: first ONNX Runtime run allocates
        self.library = PromptLibrary.load(self.settings.prompts_dir or PROMPTS_DIR)  # fails loudly if invalid
        self.sessions = build_session_store(self.settings)
        await self.sessions.check_health()
        self.cache = build_response_cache(self.settings)
        gen = self.settings.generator
        self.pipeline = ReplyPipeline(
            self.router, self.generator, self.library, self.sessions, self.cache, self.admission,
            self.settings.reply, gen.max_model_len, gen.max_tokens_limit, self.settings.sessions.max_turns,
        )
        await self._load_generator()
        if self.settings.generator.warmup:
            await self.generator.warmup()
        self.ready = True

    async def _load_generator(self) -> None:
        """Load the generator; a trtllm generator that cannot load gives way to hf (trtllm -> hf)."""
        load = getattr(self.generator, "load", None)
        if load is None:
            return
        started = time.perf_counter()
        try:
            await asyncio.to_thread(load)
        except Exception as exc:
            if self.generator.name != "trtllm":
                raise
            note = f"generator: trtllm failed to load ({exc}); serving with hf"
            logger.error("generator.fallback %s", note)
            self.notes.append(note)
            self.generator = hf_generator(self.settings)
            self.completions.generator = self.generator
            await self._load_generator()
            return
        logger.info("generator.ready backend=%s load_s=%.1f", self.generator.name, time.perf_counter() - started)

    async def stop(self) -> None:
        self.ready = False
        if self.router is not None:
            await self.router.aclose()
        if self.sessions is not None:
            await self.sessions.aclose()
        if self.cache is not None:
            await self.cache.aclose()
        await self.generator.aclose()
