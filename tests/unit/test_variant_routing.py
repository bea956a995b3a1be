"""The pipeline reaches a generator's variants through the VariantRouting protocol, not through its class:
a generator in front of named variants that is no GeneratorPool still gets its replies assigned and pinned,
and a plain engine is left alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from serve.admission import Admission
from serve.breaker import Breaker
from serve.config import GeneratorSettings, Settings
from serve.errors import InvalidRequest
from serve.generation.base import Generator, VariantRouting
from serve.generation.pool import GeneratorPool, PoolMember
from serve.pipeline import ReplyPipeline
from serve.prompts import PromptLibrary
from serve.reply_events import ReplyRequest
from serve.sessions import MemorySessionStore
from tests.conftest import GENERATED_ONLY
from tests.fakes import ScriptedFakeGenerator, ScriptedTestRouter

MESSAGE = "How do I turn on roaming for my trip?"
LIBRARY = PromptLibrary.load()


class TwoVariantsTestEngine(ScriptedFakeGenerator):
    """Test double: one engine that serves the variants "a" and "b" by itself (no pool, no members); every
    conversation belongs to "b"."""

    @property
    def engines(self) -> list[Generator]:
        return [self]

    def check_variant(self, name: str) -> None:
        if name not in ("a", "b"):
            raise InvalidRequest(f"no generator variant {name!r}", param="x-csreply-variant")

    def variant_for(self, affinity: str) -> str:
        return "b"


def pipeline(generator: Generator, tmp_path: Path) -> ReplyPipeline:
    settings = Settings(cache_dir=tmp_path, generator=GeneratorSettings(warmup=False), **GENERATED_ONLY)
    return ReplyPipeline(
        router=ScriptedTestRouter({MESSAGE: ("roaming_international", 0.95)}),
        generator=generator,
        library=LIBRARY,
        sessions=MemorySessionStore(),
        cache=None,
        admission=Admission(4),
        settings=settings,
    )


async def reply(pipeline: ReplyPipeline, variant: str | None = None) -> None:
    request = ReplyRequest("telecom", MESSAGE, session_id="s-1", variant=variant)
    async for _ in pipeline.reply(request):
        pass


def test_the_pool_and_the_double_route_variants_and_a_plain_engine_does_not() -> None:
    pool = GeneratorPool([PoolMember("a", ScriptedFakeGenerator(), 1.0, Breaker(2, 60.0))])
    assert isinstance(pool, VariantRouting)
    assert isinstance(TwoVariantsTestEngine(), VariantRouting)
    assert not isinstance(ScriptedFakeGenerator(), VariantRouting)


async def test_a_generator_with_variants_gets_the_conversation_assigned_to_one(tmp_path: Path) -> None:
    engine = TwoVariantsTestEngine()
    await reply(pipeline(engine, tmp_path))
    assert [r.variant for r in engine.requests] == ["b"]


async def test_a_pinned_variant_the_generator_lacks_is_refused_before_any_generation(tmp_path: Path) -> None:
    engine = TwoVariantsTestEngine()
    with pytest.raises(InvalidRequest, match="no generator variant 'c'"):
        await reply(pipeline(engine, tmp_path), variant="c")
    assert engine.requests == []
    await reply(pipeline(engine, tmp_path), variant="a")
    assert [r.variant for r in engine.requests] == ["a"]


async def test_a_plain_engine_gets_no_variant(tmp_path: Path) -> None:
    engine = ScriptedFakeGenerator()
    await reply(pipeline(engine, tmp_path))
    assert [r.variant for r in engine.requests] == [None]
