"""Which generated replies the response cache may answer or keep, and under which key. The stores, the key and
the digests are serve/response_cache.py's; this is the policy the reply path applies to them:

* a reply about one customer (the request carries customer context, or the message is part of a conversation)
  is neither looked up nor stored: it answers that customer, not the question;
* the key covers everything besides the question that shapes a reply: the variant that writes it (each A/B
  variant has its own replies), the engines' settings, max_tokens, the prompt library's version and the
  version of the knowledge base whose passages are in the prompt;
* only a complete reply is stored (not one cut by its budget or the loop guard).
"""

from __future__ import annotations

from serve.config import ReplySettings
from serve.generation.base import ChatMessage, Generator, VariantRouting
from serve.prompts import PromptLibrary
from serve.reply_events import ReplyRequest
from serve.response_cache import CachePolicy, ResponseCache, cache_key, should_store


class ReplyCache:
    def __init__(
        self,
        store: ResponseCache | None,
        generator: Generator,
        settings: ReplySettings,
        library: PromptLibrary,
    ) -> None:
        self.store = store
        # a generator with variants (the engine pool) has an engine behind each: any of them may write a reply
        engines = list(generator.engines) if isinstance(generator, VariantRouting) else [generator]
        self.policy = CachePolicy(
            generator.name, generator.model_name, engines, settings.model_dump(mode="json"), library
        )

    def key(
        self,
        request: ReplyRequest,
        lang: str,
        intent: str,
        history: tuple[ChatMessage, ...],
        variant: str | None,
        max_tokens: int,
        knowledge: str = "",
    ) -> str | None:
        """The key this reply is looked up and stored under; None when it may not be cached. `knowledge`:
        the version of the knowledge base whose passages are in the prompt ("" when none are)."""
        if self.store is None or request.context or history:
            return None
        return cache_key(
            request.domain,
            lang,
            f"{intent}@{variant or ''}",
            request.message,
            self.policy.variant(max_tokens, knowledge),
        )

    async def lookup(self, key: str | None) -> str | None:
        """The cached reply under `key`, if there is one."""
        if key is None or self.store is None:
            return None
        return await self.store.get(key)

    async def keep(self, key: str | None, finish_reason: str, text: str) -> None:
        """Store a reply that ended complete under `key`."""
        if key is not None and self.store is not None and should_store(finish_reason, text):
            await self.store.set(key, text)
