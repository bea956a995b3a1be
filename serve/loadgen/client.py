"""One streamed request, timed: TTFT (first content), the gaps between content events (ITL), E2E."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from serve.loadgen.workload import Endpoint


@dataclass(slots=True)
class RequestRecord:
    ok: bool = False
    error: str | None = None
    ttft_s: float | None = None
    e2e_s: float = 0.0
    itl_s: list[float] = field(default_factory=list)
    output_tokens: int = 0  # the server's usage count; content events when it sends none
    content_events: int = 0


def _sse_events(buffer: bytearray) -> list[tuple[str, bytes]]:
    """Complete events at the front of `buffer` (removed from it), as (event name, data)."""
    events: list[tuple[str, bytes]] = []
    while True:
        end = buffer.find(b"\n\n")
        if end < 0:
            return events
        block = bytes(buffer[:end]).replace(b"\r", b"")
        del buffer[: end + 2]
        name, data = "message", []
        for line in block.split(b"\n"):
            if line.startswith(b"data:"):
                data.append(line[5:].lstrip())
            elif line.startswith(b"event:"):
                name = line[6:].strip().decode()
        if data:
            events.append((name, b"\n".join(data)))


def _content(endpoint: Endpoint, name: str, payload: Any, record: RequestRecord) -> bool:
    """Whether this event carries generated text; records usage, finish and errors on the way."""
    if endpoint == "reply":
        if name == "delta":
            return bool(payload.get("text"))
        if name == "done":
            record.output_tokens = int(payload.get("usage", {}).get("completion_tokens") or 0)
            record.ok = True
        elif name == "error":
            record.error = str(payload.get("error", {}).get("message", payload))[:200]
        return False
    if "error" in payload:
        record.error = str(payload["error"].get("message", payload["error"]))[:200]
        return False
    if payload.get("usage"):
        record.output_tokens = int(payload["usage"].get("completion_tokens") or 0)
    return any((c.get("delta") or {}).get("content") for c in payload.get("choices") or ())


async def send(
    client: httpx.AsyncClient, url: str, endpoint: Endpoint, body: dict[str, Any]
) -> RequestRecord:
    record = RequestRecord()
    start = time.perf_counter()
    last: float | None = None
    try:
        async with client.stream("POST", url, json=body) as response:
            if response.status_code != 200:
                text = (await response.aread()).decode(errors="replace")
                record.error = f"HTTP {response.status_code}: {text[:200]}"
                return record
            buffer = bytearray()
            async for data in response.aiter_bytes():
                now = time.perf_counter()
                buffer += data
                for name, raw in _sse_events(buffer):
                    if raw == b"[DONE]":
                        record.ok = record.error is None
                        continue
                    if not _content(endpoint, name, json.loads(raw), record):
                        continue
                    record.content_events += 1
                    if last is None:
                        record.ttft_s = now - start
                    else:
                        record.itl_s.append(now - last)
                    last = now
    except (httpx.HTTPError, ValueError, OSError) as exc:
        record.error = f"{type(exc).__name__}: {exc}"[:200]
    finally:
        record.e2e_s = time.perf_counter() - start
    if record.error is not None:
        record.ok = False
    elif not record.ok:
        record.error = "the stream ended without its final event"
    if not record.output_tokens:
        record.output_tokens = record.content_events
    return record
