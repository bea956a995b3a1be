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
    started_at: float = field(default_factory=time.time)
    ready: bool = False
    degraded: list[str] = field(default_factory=list)

    @classmethod
    def create(cls, settings: Settings, generator: Generator | None = None) -> Runtime:
        generator = generator or build_generator(settings)
        admission = Admission(settings.generator.max_concurrent_requests)
        return cls(settings, generator, admission, CompletionService(generator, settings.generator, admission))

    async def start(self) -> None:
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
        await self.generator.aclose()
