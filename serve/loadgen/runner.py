"""Load points: a fixed number of requests in flight (closed loop) or Poisson arrivals at a request rate."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass
from typing import Any

import httpx

from serve.loadgen.client import RequestRecord, send
from serve.loadgen.stats import summarise
from serve.loadgen.workload import Endpoint, Prompt, request_body


@dataclass(frozen=True, slots=True)
class Target:
    base_url: str
    endpoint: Endpoint
    model: str | None = None
    ignore_eos: bool = False
    temperature: float = 0.0

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + (
            "/v1/reply" if self.endpoint == "reply" else "/v1/chat/completions"
        )


def make_client(max_connections: int, timeout_s: float) -> httpx.AsyncClient:
    """One client for the whole run; the pool is sized to the largest load point, so no request waits for
    a connection (that wait would count as TTFT)."""
    limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
    return httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(timeout_s, connect=30.0))


async def discover_model(client: httpx.AsyncClient, base_url: str) -> str | None:
    """The first model of GET /v1/models (OpenAI servers want a model name; ours accepts none)."""
    try:
        response = await client.get(base_url.rstrip("/") + "/v1/models")
        data = response.json().get("data") or []
        return str(data[0]["id"]) if response.status_code == 200 and data else None
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return None


async def run_point(
    client: httpx.AsyncClient,
    target: Target,
    prompts: list[Prompt],
    *,
    concurrency: int | None,
    rate: float | None = None,
    seed: int = 0,
    progress: Any = None,
) -> dict[str, Any]:
    """Send every prompt once. `concurrency` bounds the requests in flight; `rate` (req/s) spaces arrivals
    by exponential gaps (a Poisson process), optionally still capped by `concurrency`."""
    limit = asyncio.Semaphore(concurrency) if concurrency else None
    records: list[RequestRecord] = []

    async def one(prompt: Prompt) -> None:
        body = request_body(target.endpoint, prompt, target.model, target.ignore_eos, target.temperature)
        if limit is None:
            records.append(await send(client, target.url, target.endpoint, body))
        else:
            async with limit:
                records.append(await send(client, target.url, target.endpoint, body))
        if progress is not None:
            progress.update(1)

    rng = random.Random(seed)
    started = time.perf_counter()
    tasks = []
    for prompt in prompts:
        tasks.append(asyncio.create_task(one(prompt)))
        if rate:
            await asyncio.sleep(rng.expovariate(rate))
    await asyncio.gather(*tasks)
    duration = time.perf_counter() - started
    point = summarise(records, duration, sum(p.output_len for p in prompts))
    return {"concurrency": concurrency, "rate": rate, **point}
