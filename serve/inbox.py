"""Feedback inbox: messages the router was unsure about, or that ended in a handoff, PII-redacted, kept for
labelling (`csreply router inbox`) and, once labelled, for the next router build (`extra_data`).

The pipeline calls `FeedbackInbox.offer` where it decides a route. `offer` never waits and never raises
into the request: it builds the row, puts it on a bounded queue and returns. A background task writes the
queued rows in batches to the sink, a JSONL file with size-based rotation or a capped Redis list. A full
queue drops the row and counts it (`csreply_inbox_dropped_total`). `aclose` (lifespan shutdown, after the
drain) writes what is still queued, then closes the sink.

Privacy: the text goes through the same `redact` as the logs (phones, e-mails, card and ID numbers) and the
session id is replaced by a keyed hash, so rows of one conversation group together without the raw id.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
import random
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from serve.config import FeedbackInboxSettings, InboxReason, Settings
from serve.generation.base import ChatMessage
from serve.logsetup import redact
from serve.metrics import Metrics
from serve.reply_events import RouteDecision
from serve.router.base import IntentResult
from serve.sessions import Session

logger = logging.getLogger(__name__)

BATCH_ROWS = 256  # rows written per sink call at most
CLOSE_TIMEOUT_S = 10.0  # shutdown waits this long for queued rows; a dead Redis must not hang it


class InboxSink(Protocol):
    name: str

    async def write(self, lines: list[str]) -> None:
        """Store JSON lines (no newline), oldest first; raise on failure."""
        ...

    async def aclose(self) -> None: ...


class FileSink:
    """Appends to a JSONL file; past `max_bytes` the file becomes `NAME.1` (older ones shift up to
    `NAME.<keep>`, the oldest is deleted)."""

    name = "file"

    def __init__(self, path: Path, max_bytes: int, keep: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.keep = keep

    async def write(self, lines: list[str]) -> None:
        await asyncio.to_thread(self._append, "".join(line + "\n" for line in lines).encode())

    def _append(self, data: bytes) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        size = self.path.stat().st_size if self.path.exists() else 0
        if size and size + len(data) > self.max_bytes:
            self._rotate()
        with open(self.path, "ab") as fh:
            fh.write(data)

    def _rotate(self) -> None:
        if self.keep == 0:
            self.path.unlink()
            return
        for i in range(self.keep - 1, 0, -1):
            older = rotated(self.path, i)
            if older.exists():
                older.replace(rotated(self.path, i + 1))
        self.path.replace(rotated(self.path, 1))

    async def aclose(self) -> None:
        return None


def rotated(path: Path, n: int) -> Path:
    return path.with_name(f"{path.name}.{n}")


class RedisSink:
    """A Redis list, newest rows last, trimmed to the newest `max_rows` on every write."""

    name = "redis"

    def __init__(self, url: str, key: str, max_rows: int, client: Any = None) -> None:
        import redis.asyncio as redis

        self.key = key
        self.max_rows = max_rows
        self._redis = client or redis.Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0)

    async def write(self, lines: list[str]) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.rpush(self.key, *lines)
            pipe.ltrim(self.key, -self.max_rows, -1)
            await pipe.execute()

    async def aclose(self) -> None:
        await self._redis.aclose()


def reason_for(
    intent: IntentResult, decision: RouteDecision, record: list[InboxReason], low_confidence_below: float
) -> InboxReason | None:
    """Why this message belongs in the inbox, the first that applies of handoff, uncertain, out_of_scope
    and low_confidence among those configured; None when it does not."""
    applies: list[InboxReason] = []
    if decision.route == "handoff":
        applies.append("handoff")
    if intent.uncertain:
        applies.append("uncertain")
    if intent.label == "out_of_scope":
        applies.append("out_of_scope")
    if not intent.uncertain and intent.confidence < low_confidence_below:
        applies.append("low_confidence")
    return next((r for r in applies if r in record), None)


def session_hash(session_id: str, salt: bytes) -> str:
    return hmac.new(salt, session_id.encode(), hashlib.sha256).hexdigest()[:16]


class FeedbackInbox:
    def __init__(
        self,
        sink: InboxSink,
        config: FeedbackInboxSettings,
        metrics: Metrics | None = None,
        salt: bytes | None = None,
        chance: Callable[[], float] = random.random,
    ) -> None:
        self.sink = sink
        self.config = config
        self.metrics = metrics
        self.salt = salt or secrets.token_bytes(16)
        self._chance = chance
        self._queue: asyncio.Queue[tuple[InboxReason, str]] = asyncio.Queue(config.queue_size)
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self.written = 0
        self.dropped = 0

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="feedback-inbox")

    def offer(
        self,
        message: str,
        intent: IntentResult,
        decision: RouteDecision,
        lang: str,
        session: Session | None,
        history: tuple[ChatMessage, ...],
    ) -> None:
        """Queue this message's row when it matches the configured reasons (and the sample)."""
        try:
            reason = reason_for(intent, decision, self.config.record, self.config.low_confidence_below)
            if reason is None or (self.config.sample_rate < 1 and self._chance() >= self.config.sample_rate):
                return
            row = self.row(message, intent, decision, lang, session, history, reason)
            self._put(reason, json.dumps(row, ensure_ascii=False))
        except Exception:  # noqa: BLE001 - the inbox is a side channel: a reply never fails because of it
            logger.exception("inbox.offer_failed")

    def row(
        self,
        message: str,
        intent: IntentResult,
        decision: RouteDecision,
        lang: str,
        session: Session | None,
        history: tuple[ChatMessage, ...],
        reason: InboxReason,
    ) -> dict[str, Any]:
        row: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "text": redact(message),
            "lang": lang,
            "predicted": intent.label,
            "confidence": intent.confidence,
            "top": [[r.label, r.confidence] for r in intent.ranking[:3]],
            "reason": reason,
            "route": decision.route,
        }
        if decision.route == "handoff":
            row["handoff_reason"] = decision.reason
        if session is not None:
            row["session"] = session_hash(session.session_id, self.salt)
        row["turn"] = sum(m.role == "user" for m in history) + 1
        if session is not None and session.last_intent is not None:
            row["previous_intent"] = session.last_intent
        row["intent"] = None  # the labeller's field
        return row

    def _put(self, reason: InboxReason, line: str) -> None:
        if self._closed:
            self._drop("closed")
            return
        try:
            self._queue.put_nowait((reason, line))
        except asyncio.QueueFull:
            self._drop("queue_full")

    def _drop(self, cause: str, n: int = 1) -> None:
        self.dropped += n
        if self.metrics is not None:
            self.metrics.inbox_dropped.labels(cause=cause).inc(n)

    async def _run(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while len(batch) < BATCH_ROWS and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            try:
                await self._write(batch)
            finally:
                for _ in batch:
                    self._queue.task_done()

    async def _write(self, batch: list[tuple[InboxReason, str]]) -> None:
        try:
            await self.sink.write([line for _, line in batch])
        except Exception as exc:  # noqa: BLE001 - a failing sink loses these rows, never the server
            logger.warning("inbox.write_failed sink=%s rows=%d error=%s", self.sink.name, len(batch), exc)
            self._drop("write_failed", len(batch))
            return
        self.written += len(batch)
        if self.metrics is not None:
            for reason, _ in batch:
                self.metrics.inbox_rows.labels(reason=reason).inc()

    async def aclose(self) -> None:
        """Write what is queued (at most CLOSE_TIMEOUT_S), then stop and close the sink."""
        self._closed = True
        if self._task is not None:
            try:
                await asyncio.wait_for(self._queue.join(), CLOSE_TIMEOUT_S)
            except (TimeoutError, asyncio.TimeoutError):  # one class from 3.11, two on 3.10
                left = self._queue.qsize()
                logger.error("inbox.close_timeout rows_lost=%d", left)
                self._drop("write_failed", left)
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.sink.aclose()
        logger.info("inbox.closed sink=%s written=%d dropped=%d", self.sink.name, self.written, self.dropped)


def build_inbox(settings: Settings, metrics: Metrics | None = None) -> FeedbackInbox | None:
    """The configured inbox, not yet started; None when it is off (the default)."""
    config = settings.feedback_inbox
    if not config.enabled:
        return None
    salt = None
    if config.session_salt_env:
        value = os.environ.get(config.session_salt_env)
        if not value:
            raise ValueError(
                f"feedback_inbox.session_salt_env names {config.session_salt_env}, which is not set"
            )
        salt = value.encode()
    sink: InboxSink
    if config.backend == "redis":
        sink = RedisSink(settings.inbox_redis_url, config.key, config.max_rows)
    else:
        sink = FileSink(settings.inbox_path, int(config.max_mb * 1024 * 1024), config.keep)
    logger.info(
        "inbox.enabled sink=%s record=%s sample_rate=%s", sink.name, config.record, config.sample_rate
    )
    return FeedbackInbox(sink, config, metrics, salt)
