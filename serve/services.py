"""What the running server holds, built once by the lifespan after every backend has settled.

`build_services` loads the router chain and each member of the engine pool (a trtllm member that cannot
load is replaced by the hf generator, and the note says so), then builds the prompt library, the session
store, the response cache, the pipeline and the completions service around the settled objects. Nothing
is swapped afterwards: runtime failover happens inside the pool, so every consumer holds the same pool.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from serve.admission import Admission
from serve.breaker import Breaker
from serve.completions import CompletionService
from serve.config import MemberSettings, Settings
from serve.generation.base import Generator, Loadable
from serve.generation.pool import GeneratorPool, PoolMember
from serve.inbox import FeedbackInbox, build_inbox
from serve.knowledge.store import KnowledgeStore
from serve.metrics import Metrics
from serve.pipeline import ReplyPipeline
from serve.prompts import PROMPTS_DIR, PromptLibrary
from serve.reply_bank import ReplySelector
from serve.response_cache import MemoryResponseCache, RedisResponseCache, ResponseCache
from serve.retrieval import one_blas_thread
from serve.retrieval.semantic import load_semantic
from serve.router.background import RouterBuild
from serve.router.base import IntentClassifier
from serve.router.fallback import FallbackRouter
from serve.sessions import MemorySessionStore, RedisSessionStore, SessionStore

logger = logging.getLogger(__name__)


@dataclass
class Lifecycle:
    """The one mutable part: whether the server takes traffic."""

    ready: bool = False
    draining: bool = False


@dataclass(frozen=True)
class Services:
    settings: Settings
    generator: GeneratorPool
    router: FallbackRouter
    library: PromptLibrary
    sessions: SessionStore
    cache: ResponseCache | None
    admission: Admission
    pipeline: ReplyPipeline
    completions: CompletionService
    knowledge: KnowledgeStore
    notes: list[str] = field(default_factory=list)  # why it runs degraded (the list changes on a router swap)
    inbox: FeedbackInbox | None = None
    builder: RouterBuild | None = None
    started_at: float = field(default_factory=time.time)
    lifecycle: Lifecycle = field(default_factory=Lifecycle)

    @property
    def degraded(self) -> list[str]:
        """Why the server runs below its configured backends, now."""
        return [*self.notes, *self.router.degraded, *self.generator.degraded]

    @property
    def selector(self) -> ReplySelector | None:
        return self.pipeline.selector

    async def aclose(self) -> None:
        self.lifecycle.ready = False
        if self.builder is not None:
            await self.builder.aclose()
        if self.inbox is not None:
            await self.inbox.aclose()  # first: the rows queued by the last requests are written, not lost
        await self.router.aclose()
        await self.sessions.aclose()
        if self.cache is not None:
            await self.cache.aclose()
        await self.generator.aclose()


# ----------------------------------------------------------------------------- generators
def hf_generator(settings: Settings) -> Generator:
    from serve.generation.hf import HfGenerator

    return HfGenerator(settings.generator, settings.generator_model_dir)


def member_generator(member: MemberSettings, settings: Settings) -> tuple[Generator, list[str]]:
    """The member's generator, not yet loaded, and notes on any fallback taken."""
    if member.backend == "hf":
        return hf_generator(settings), []
    if member.backend == "openai":
        from serve.generation.remote import RemoteOpenAIGenerator

        return RemoteOpenAIGenerator(member), []
    import importlib.util

    if importlib.util.find_spec("tensorrt_llm") is None:
        note = (
            f"generator {member.name}: trtllm configured but TensorRT-LLM is not importable; serving with hf"
        )
        logger.warning("generator.fallback %s", note)
        return hf_generator(settings), [note]
    from serve.generation.trtllm import from_preset

    assert member.trtllm_preset is not None
    return from_preset(member.trtllm_preset, settings.cache_dir), []


async def load_generator(
    generator: Generator, member: str, settings: Settings
) -> tuple[Generator, list[str]]:
    """Load a generator (blocking loads run in a worker thread); a trtllm one that cannot load gives way
    to hf (trtllm -> hf), so the server starts and says why it is degraded."""
    if not isinstance(generator, Loadable):
        return generator, []
    started = time.perf_counter()
    try:
        await asyncio.to_thread(generator.load)
    except Exception as exc:
        if generator.name != "trtllm":
            raise
        note = f"generator {member}: trtllm failed to load ({exc}); serving with hf"
        logger.error("generator.fallback %s", note)
        fallback, notes = await load_generator(hf_generator(settings), member, settings)
        return fallback, [note, *notes]
    logger.info(
        "generator.ready member=%s backend=%s load_s=%.1f",
        member,
        generator.name,
        time.perf_counter() - started,
    )
    return generator, []


async def build_pool(
    settings: Settings, override: Generator | None = None
) -> tuple[GeneratorPool, list[str]]:
    if isinstance(override, GeneratorPool):
        return override, []
    members: list[PoolMember] = []
    notes: list[str] = []
    for config in settings.pool_members():
        member_notes: list[str] = []
        if override is not None:
            generator = override
        else:
            generator, member_notes = member_generator(config, settings)
        generator, load_notes = await load_generator(generator, config.name, settings)
        notes += member_notes + load_notes
        members.append(
            PoolMember(
                config.name,
                generator,
                config.weight,
                Breaker(config.failures_to_open, config.cooldown_s),
                config.health_interval_s,
            )
        )
        if override is not None:
            break  # tests hand in one engine: a pool of one
    return GeneratorPool(members), notes


# ----------------------------------------------------------------------------- the rest
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


async def build_router(
    settings: Settings, override: IntentClassifier | None
) -> tuple[FallbackRouter, list[str]]:
    if override is not None:
        return (override if isinstance(override, FallbackRouter) else FallbackRouter([override])), []
    from serve.router.loading import load_router

    return await asyncio.to_thread(load_router, settings)


async def build_services(
    settings: Settings,
    generator: Generator | None = None,
    router: IntentClassifier | None = None,
    metrics: Metrics | None = None,
) -> Services:
    """Settle every backend, then wire them once. `generator`/`router` replace the configured ones (tests)."""
    library = PromptLibrary.load(settings.prompts_dir or PROMPTS_DIR)  # fails loudly if invalid, before loads
    chain, notes = await build_router(settings, router)
    await chain.classify(["hello"])  # warm-up: the first ONNX Runtime run allocates
    sessions = build_session_store(settings)
    await sessions.check_health()
    cache = build_response_cache(settings)
    pool, pool_notes = await build_pool(settings, generator)
    if settings.generator.warmup:
        await pool.warmup()
    pool.start_health_checks()
    limits = settings.admission  # admission bounds and their gauges (issue 11)
    admission = Admission(
        limits.max_in_flight or settings.generator.max_concurrent_requests,
        limits.max_queue,
        limits.max_queue_wait_s,
        limits.retry_after_s,
        metrics,
    )
    inbox = build_inbox(settings, metrics)
    if inbox is not None:
        inbox.start()
    # the knowledge base and the reply bank search with the router's sentence vectors (same space as the
    # query vectors it returns with each classification); without them, lexically
    embed, space = chain.vector_model() or (None, None)
    one_blas_thread()
    # and English search with the shipped MiniLM's own vectors too (serve/retrieval/semantic.py). Not while
    # the quick lexical router serves and the BERT one is being built (`make run`): encoding the indexes'
    # English texts takes about 15 s, which would delay the first reply; the swap brings it in.
    semantic = None
    if not (settings.router.build_in_background and router is None and embed is None):
        semantic = await asyncio.to_thread(
            load_semantic, settings.cache_dir, settings.knowledge.semantic_search
        )
    knowledge = KnowledgeStore(settings.knowledge, embed, space, settings.vectors_dir, semantic)
    await asyncio.to_thread(knowledge.load)
    selector = await asyncio.to_thread(ReplySelector, library, embed, space, settings.vectors_dir, semantic)
    pipeline = ReplyPipeline(
        router=chain,
        generator=pool,
        library=library,
        sessions=sessions,
        cache=cache,
        admission=admission,
        settings=settings,
        inbox=inbox,
        knowledge=knowledge,
        selector=selector,
        metrics=metrics,
    )
    completions = CompletionService(pool, settings.generator, admission)
    services = Services(
        settings,
        pool,
        chain,
        library,
        sessions,
        cache,
        admission,
        pipeline,
        completions,
        knowledge,
        notes + pool_notes,
        inbox,
    )
    if settings.router.build_in_background and router is None:
        builder = RouterBuild(
            settings.router_dir,
            settings.cache_dir,
            lambda: swap_router(services, router_notes=notes),
            settings.router.build_command,
        )
        object.__setattr__(
            services, "builder", builder
        )  # the dataclass is frozen; the builder needs services
        builder.start()
    services.lifecycle.ready = True
    return services


async def swap_router(services: Services, router_notes: list[str]) -> None:
    """Load the router the background build just wrote and serve with it from the next message on; the
    knowledge base and the reply bank are re-indexed with its sentence vectors first."""
    from serve.router.loading import load_router

    settings = services.settings
    fresh, notes = await asyncio.to_thread(load_router, settings)
    found = fresh.vector_model()
    if found is None:
        await fresh.aclose()
        raise RuntimeError("the build left no loadable model router: " + "; ".join(notes))
    await fresh.classify(["hello"])  # warm-up before it takes traffic
    embed, space = found
    semantic = services.knowledge.semantic or await asyncio.to_thread(
        load_semantic, settings.cache_dir, settings.knowledge.semantic_search
    )
    selector = await asyncio.to_thread(
        ReplySelector, services.library, embed, space, settings.vectors_dir, semantic
    )
    services.knowledge.use_vectors(embed, space, semantic)
    await services.knowledge.reload()
    old = services.router.adopt(fresh)
    services.pipeline.selector = selector
    for note in router_notes:
        if note in services.notes:
            services.notes.remove(note)
    services.notes.extend(notes)
    for backend in old:
        await backend.aclose()
