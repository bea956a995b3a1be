"""Response cache for repeated FAQ-like questions: same domain, language, intent and normalised text, and
the same everything else that shapes the reply (`variant`: model, decoding settings and guards, max_tokens,
the prompt library's version).

Only generated (`llm`) replies are cached, only complete ones (finish reason `stop`: not cut by length,
not ended by the loop guard), and never when the request carries customer context or a conversation
history: those replies are about one customer, not about the question (serve/reply_cache.py applies these
rules on the reply path)."""

from __future__ import annotations

import hashlib
import json
import re
import time
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Protocol

from serve.router.encoding import normalize

if TYPE_CHECKING:
    from serve.prompts import PromptLibrary

KEY_PREFIX = "csreply:reply:"
_NOISE = re.compile(r"[\W_]+", re.UNICODE)


def cache_key(domain: str, lang: str, intent: str, message: str, variant: str = "") -> str:
    text = _NOISE.sub(" ", normalize(message).lower()).strip()
    return hashlib.sha256(f"{domain}\x1f{lang}\x1f{intent}\x1f{text}\x1f{variant}".encode()).hexdigest()[:32]


def variant_of(**parts: Any) -> str:
    """A stable digest of everything besides the question that changes the reply."""
    blob = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


_VERSIONS: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def prompt_version(library: PromptLibrary) -> str:
    """Digest of the whole prompt library (manifest, every file, the reply bank): an edited prompt is a new
    version."""
    version = _VERSIONS.get(library)
    if version is None:
        blob = (
            library.manifest.model_dump_json()
            + "".join(
                f"{domain}/{lang}:{pf.model_dump_json()}"
                for (domain, lang), pf in sorted(library.files.items())
            )
            + "".join(
                f"bank:{d}/{lang}:{b.model_dump_json()}" for (d, lang), b in sorted(library.banks.items())
            )
        )
        version = _VERSIONS[library] = hashlib.sha256(blob.encode()).hexdigest()[:16]
    return version


class CachePolicy:
    """Everything besides the question that shapes a cached reply: the engines and their decoding defaults
    (penalties, guards), the reply settings, max_tokens, the prompt library's version and the knowledge base's
    (its passages go into the prompt). All of it but max_tokens and the knowledge version is fixed once the
    services are built, so each digest is computed once."""

    def __init__(
        self, backend: str, model: str, engines: list[Any], reply: dict[str, Any], library: PromptLibrary
    ) -> None:
        self._fixed = {
            "backend": backend,
            "model": model,
            "decoding": [engine_fingerprint(e) for e in engines],
            "reply": reply,
        }
        self._library = library
        self._known: dict[tuple[int, str], str] = {}

    def variant(self, max_tokens: int, knowledge: str = "") -> str:
        key = (max_tokens, knowledge)
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = variant_of(
                **self._fixed,
                max_tokens=max_tokens,
                prompts=prompt_version(self._library),
                knowledge=knowledge,
            )
        return known


def should_store(finish_reason: str, text: str) -> bool:
    """Only complete replies: a reply cut by length or by the loop guard is not worth serving twice."""
    return finish_reason == "stop" and bool(text.strip())


class ResponseCache(Protocol):
    name: str
    hits: int
    misses: int

    async def get(self, key: str) -> str | None: ...

    async def set(self, key: str, reply: str) -> None: ...

    async def aclose(self) -> None: ...


class MemoryResponseCache:
    name = "memory"

    def __init__(self, max_entries: int = 5000, ttl_s: float = 3600.0) -> None:
        self.max_entries = max_entries
        self.ttl_s = ttl_s
        self.hits = self.misses = 0
        self._data: OrderedDict[str, tuple[float, str]] = OrderedDict()

    async def get(self, key: str) -> str | None:
        entry = self._data.get(key)
        if entry is None or time.monotonic() - entry[0] > self.ttl_s:
            self._data.pop(key, None)
            self.misses += 1
            return None
        self._data.move_to_end(key)
        self.hits += 1
        return entry[1]

    async def set(self, key: str, reply: str) -> None:
        self._data[key] = (time.monotonic(), reply)
        self._data.move_to_end(key)
        while len(self._data) > self.max_entries:
            self._data.popitem(last=False)

    async def aclose(self) -> None:
        return None


class RedisResponseCache:
    name = "redis"

    def __init__(self, url: str, ttl_s: float = 3600.0, client: Any = None) -> None:
        import redis.asyncio as redis

        self.ttl_s = ttl_s
        self.hits = self.misses = 0
        self._redis = client or redis.Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0)

    async def get(self, key: str) -> str | None:
        raw = await self._redis.get(KEY_PREFIX + key)
        if raw is None:
            self.misses += 1
            return None
        self.hits += 1
        return raw.decode() if isinstance(raw, bytes) else str(raw)

    async def set(self, key: str, reply: str) -> None:
        await self._redis.set(KEY_PREFIX + key, reply, ex=max(1, int(self.ttl_s)))

    async def aclose(self) -> None:
        await self._redis.aclose()


def engine_fingerprint(engine: Any) -> dict[str, Any]:
    """What of one engine shapes its replies: backend, model (name and weights directory) and settings."""
    dump = getattr(getattr(engine, "settings", None), "model_dump", None)
    return {
        "backend": getattr(engine, "name", None),
        "model": getattr(engine, "model_name", None),
        "model_dir": str(getattr(engine, "model_dir", "")),
        "settings": dump(mode="json") if dump is not None else None,
    }
