"""The knowledge base in use, replaced whole on reload (`csreply kb reload`, POST /admin/knowledge/reload or
SIGHUP): the new one is loaded and indexed in a worker thread while requests keep using the old one, then
swapped in one assignment. A reload that fails validation keeps the old one and reports every problem."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from serve.config import KnowledgeSettings
from serve.knowledge.base import KnowledgeBase
from serve.knowledge.entries import KNOWLEDGE_DIR
from serve.retrieval.semantic import SemanticEncoder
from serve.retrieval.vectors import Embed

logger = logging.getLogger(__name__)


class KnowledgeStore:
    def __init__(
        self,
        settings: KnowledgeSettings,
        embed: Embed | None,
        space: str | None,
        vectors_dir: Path | None,
        semantic: SemanticEncoder | None = None,
    ) -> None:
        self.settings = settings
        self.semantic = semantic
        self.root = settings.path or KNOWLEDGE_DIR
        self._embed, self._space, self._vectors_dir = embed, space, vectors_dir
        self.current: KnowledgeBase | None = None
        self.reloads = 0
        self._lock = asyncio.Lock()  # one reload at a time; requests never wait on it

    def load(self) -> KnowledgeBase | None:
        """Blocking first load (start-up, in a worker thread)."""
        if not self.settings.enabled:
            return None
        self.current = KnowledgeBase.load(
            self.root, self._embed, self._space, self._vectors_dir, self.semantic
        )
        return self.current

    def use_vectors(
        self, embed: Embed | None, space: str | None, semantic: SemanticEncoder | None = None
    ) -> None:
        """A new router (hot swap): later loads index with its vectors (and the search encoder's, when given);
        call `reload` to re-index now."""
        self._embed, self._space = embed, space
        if semantic is not None:
            self.semantic = semantic

    async def reload(self) -> KnowledgeBase | None:
        async with self._lock:
            if not self.settings.enabled:
                return None
            fresh = await asyncio.to_thread(
                KnowledgeBase.load, self.root, self._embed, self._space, self._vectors_dir, self.semantic
            )
            old = self.current.digest if self.current is not None else None
            self.current = fresh
            self.reloads += 1
            logger.info("knowledge.reloaded digest=%s previous=%s entries=%d", fresh.digest, old, fresh.size)
            return fresh

    @property
    def digest(self) -> str:
        return self.current.digest if self.current is not None else ""
