"""Conversation store: `session_id` -> turns. In-memory LRU with TTL by default, Redis when configured
(so a conversation survives a restart and is shared by several server processes)."""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

KEY_PREFIX = "csreply:session:"


@dataclass
class Turn:
    role: str  # "user" | "assistant"
    content: str
    intent: str | None = None
    route: str | None = None


@dataclass
class Session:
    session_id: str
    domain: str | None = None
    turns: list[Turn] = field(default_factory=list)
    uncertain_streak: int = 0
    last_intent: str | None = None  # the last intent the router was sure of (for follow-up messages)
    lang: str | None = None  # the conversation's language (a bare order number keeps it)
    variant: str | None = None  # the engine-pool member that wrote the last generated reply (A/B)
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)

    def add(self, turn: Turn, max_turns: int) -> None:
        self.turns.append(turn)
        del self.turns[:-max_turns]
        self.updated = time.time()

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: str | bytes) -> Session:
        data = json.loads(raw)
        data["turns"] = [Turn(**t) for t in data.get("turns", [])]
        return cls(**data)


class SessionStore(Protocol):
    name: str

    async def get(self, session_id: str) -> Session | None: ...

    async def save(self, session: Session) -> None: ...

    async def delete(self, session_id: str) -> None: ...

    async def check_health(self) -> None: ...

    async def aclose(self) -> None: ...


class MemorySessionStore:
    name = "memory"

    def __init__(self, max_sessions: int = 10_000, ttl_s: float = 1800.0) -> None:
        self.max_sessions = max_sessions
        self.ttl_s = ttl_s
        self._data: OrderedDict[str, tuple[float, str]] = OrderedDict()

    async def get(self, session_id: str) -> Session | None:
        entry = self._data.get(session_id)
        if entry is None:
            return None
        stamp, raw = entry
        if time.monotonic() - stamp > self.ttl_s:
            del self._data[session_id]
            return None
        self._data.move_to_end(session_id)
        return Session.from_json(raw)  # a copy: callers cannot mutate the stored state by accident

    async def save(self, session: Session) -> None:
        self._data[session.session_id] = (time.monotonic(), session.to_json())
        self._data.move_to_end(session.session_id)
        while len(self._data) > self.max_sessions:
            self._data.popitem(last=False)

    async def delete(self, session_id: str) -> None:
        self._data.pop(session_id, None)

    async def check_health(self) -> None:
        return None

    async def aclose(self) -> None:
        return None

    def __len__(self) -> int:
        return len(self._data)


class RedisSessionStore:
    name = "redis"

    def __init__(self, url: str, ttl_s: float = 1800.0, client: Any = None) -> None:
        import redis.asyncio as redis

        self.ttl_s = ttl_s
        self.url = url
        self._redis = client or redis.Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0)

    async def get(self, session_id: str) -> Session | None:
        raw = await self._redis.get(KEY_PREFIX + session_id)
        return Session.from_json(raw) if raw is not None else None

    async def save(self, session: Session) -> None:
        await self._redis.set(KEY_PREFIX + session.session_id, session.to_json(), ex=max(1, int(self.ttl_s)))

    async def delete(self, session_id: str) -> None:
        await self._redis.delete(KEY_PREFIX + session_id)

    async def check_health(self) -> None:
        await self._redis.ping()

    async def aclose(self) -> None:
        await self._redis.aclose()
