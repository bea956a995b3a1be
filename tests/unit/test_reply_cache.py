"""The response-cache policy of generated replies (serve/reply_cache.py): a reply about one customer is never
cached, each variant and each knowledge-base version has its own replies, only complete replies are kept.
(tests/api/test_reply.py and test_reply_guards.py cover customer context, max_tokens and cut replies
through the API.)"""

from __future__ import annotations

from serve.breaker import Breaker
from serve.config import GeneratorSettings, ReplySettings
from serve.generation.base import ChatMessage
from serve.generation.hf import HfGenerator
from serve.generation.pool import GeneratorPool, PoolMember
from serve.prompts import PromptLibrary
from serve.reply_cache import ReplyCache
from serve.reply_events import ReplyRequest
from serve.response_cache import MemoryResponseCache
from tests.fakes import ScriptedFakeGenerator

LIBRARY = PromptLibrary.load()
REQUEST = ReplyRequest("telecom", "How do I turn on roaming for my trip?")


def cache() -> ReplyCache:
    return ReplyCache(MemoryResponseCache(), ScriptedFakeGenerator(), ReplySettings(), LIBRARY)


def key(
    replies: ReplyCache,
    request: ReplyRequest = REQUEST,
    history: tuple[ChatMessage, ...] = (),
    variant: str | None = "a",
    knowledge: str = "",
) -> str | None:
    return replies.key(request, "en", "roaming_international", history, variant, 96, knowledge)


def test_a_message_inside_a_conversation_is_never_cached() -> None:
    replies = cache()
    assert key(replies) is not None
    assert key(replies, history=(ChatMessage("user", "hi"), ChatMessage("assistant", "Hello!"))) is None
    assert key(replies, request=ReplyRequest("telecom", REQUEST.message, context={"plan": "Travel"})) is None
    assert key(ReplyCache(None, ScriptedFakeGenerator(), ReplySettings(), LIBRARY)) is None  # no cache


def test_each_variant_and_knowledge_version_has_its_own_replies() -> None:
    replies = cache()
    assert key(replies) == key(replies)
    assert key(replies, variant="b") != key(replies)
    assert key(replies, knowledge="digest-2") != key(replies, knowledge="digest-1") != key(replies)


def test_the_engines_behind_the_variants_are_part_of_the_key(tmp_path) -> None:
    def pool_of(*settings: GeneratorSettings) -> GeneratorPool:
        return GeneratorPool(
            [
                PoolMember(f"m{i}", HfGenerator(s, tmp_path), 1.0, Breaker(2, 60.0))
                for i, s in enumerate(settings)
            ]
        )

    plain = pool_of(GeneratorSettings(), GeneratorSettings())
    guarded = pool_of(GeneratorSettings(), GeneratorSettings(no_repeat_ngram_size=3))
    keys = [key(ReplyCache(MemoryResponseCache(), p, ReplySettings(), LIBRARY)) for p in (plain, guarded)]
    assert keys[0] != keys[1]  # the second variant's guard shapes its replies


async def test_only_a_complete_reply_is_kept_and_found_again() -> None:
    replies = cache()
    found = key(replies)
    await replies.keep(found, "length", "Roaming is on in My plan >")
    assert await replies.lookup(found) is None
    await replies.keep(found, "stop", "Open My plan > Roaming.")
    assert await replies.lookup(found) == "Open My plan > Roaming."
    assert await replies.lookup(None) is None
