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
from serve.router.base import IntentClassifier
from serve.router.fallback import FallbackRouter

logger = logging.getLogger(__name__)


def build_generator(settings: Settings) -> Generator:
    """The configured generator backend, not yet loaded."""
    from serve.generation.hf import HfGenerator

    return HfGenerator(settings.generator, settings.generator_model_dir)


@dataclass
class Runtime:
    settings: Settings
    generator: Generator
    admission: Admission
    completions: CompletionService
    router: FallbackRouter | None = None
    started_at: float = field(default_factory=time.time)
    ready: bool = False
    notes: list[str] = field(default_factory=list)

    @classmethod
    def create(
        cls, settings: Settings, generator: Generator | None = None, router: IntentClassifier | None = None
    ) -> Runtime:
        generator = generator or build_generator(settings)
        admission = Admission(settings.generator.max_concurrent_requests)
        runtime = cls(settings, generator, admission, CompletionService(generator, settings.generator, admission))
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
        load = getattr(self.generator, "load", None)
        if load is not None:
            started = time.perf_counter()
            await asyncio.to_thread(load)
            logger.info("generator.ready backend=%s load_s=%.1f", self.generator.name, time.perf_counter() - started)
        if self.settings.generator.warmup:
            await self.generator.warmup()
        self.ready = True

    async def stop(self) -> None:
        self.ready = False
        if self.router is not None:
            await self.router.aclose()
        await self.generator.aclose()
