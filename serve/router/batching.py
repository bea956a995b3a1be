"""Micro-batching in front of a model backend: texts that arrive together run as one batch in a worker
thread (ONNX Runtime and TensorRT release the GIL).

The window adapts to load. A request that arrives alone, with no other expected within `max_wait_ms`, runs
at once: waiting would only add latency. Requests that queue (while a batch runs, or when arrivals come
closer together than the window) are taken together, and the batcher waits up to `max_wait_ms` for more,
for about as long as it takes the current arrival rate to fill the batch. `adaptive=False` keeps the old
fixed window: every batch waits `max_wait_ms` after its first text unless it fills up."""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

R = TypeVar("R")

_Job = tuple[list[str], "asyncio.Future[list[R]]"]
_GAP_SMOOTHING = 0.3  # weight of the newest inter-arrival gap in its moving average


class MicroBatcher(Generic[R]):
    def __init__(
        self,
        run_batch: Callable[[list[str]], Sequence[R]],
        max_batch_size: int = 32,
        max_wait_ms: float = 1.0,
        adaptive: bool = True,
    ) -> None:
        if max_batch_size < 1 or max_wait_ms < 0:
            raise ValueError("max_batch_size must be >= 1 and max_wait_ms >= 0")
        self._run_batch = run_batch
        self.max_batch_size = max_batch_size
        self.max_wait = max_wait_ms / 1000.0
        self.adaptive = adaptive
        self._queue: asyncio.Queue[tuple[list[str], asyncio.Future[list[R]]]] | None = None
        self._worker: asyncio.Task[None] | None = None
        self._last_arrival: float | None = None
        self.gap_ema = math.inf  # seconds between submissions, smoothed
        self.batches_run = 0
        self.largest_batch = 0
        self.windows_waited = 0  # batches that waited for more texts (the rest ran at once)

    async def submit(self, texts: list[str]) -> list[R]:
        loop = asyncio.get_running_loop()
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._worker = asyncio.create_task(self._work(self._queue), name="router-microbatcher")
        now = loop.time()
        if self._last_arrival is not None:
            gap = now - self._last_arrival
            self.gap_ema = (
                gap
                if math.isinf(self.gap_ema)
                else (1 - _GAP_SMOOTHING) * self.gap_ema + _GAP_SMOOTHING * gap
            )
        self._last_arrival = now
        future: asyncio.Future[list[R]] = loop.create_future()
        await self._queue.put((texts, future))
        return await future

    async def aclose(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None
            self._queue = None

    def window(self, jobs: int, texts: int) -> float:
        """How long to wait for more texts, given what is already collected."""
        if not self.adaptive:
            return self.max_wait
        free = self.max_batch_size - texts
        if free <= 0 or (jobs == 1 and self.gap_ema >= self.max_wait):
            return 0.0  # full, or alone with nobody expected in time
        return min(self.max_wait, self.gap_ema * free)

    async def _collect(self, queue: asyncio.Queue[tuple[list[str], asyncio.Future[list[R]]]]) -> list:
        jobs = [await queue.get()]
        count = len(jobs[0][0])
        while count < self.max_batch_size and not queue.empty():  # what already waits costs no extra wait
            job = queue.get_nowait()
            jobs.append(job)
            count += len(job[0])
        loop = asyncio.get_running_loop()
        window = self.window(len(jobs), count)
        if window > 0 and count < self.max_batch_size:
            self.windows_waited += 1
        deadline = loop.time() + window
        while count < self.max_batch_size:
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            try:
                job = await asyncio.wait_for(queue.get(), remaining)
            except (TimeoutError, asyncio.TimeoutError):  # one class from 3.11, two on 3.10
                break
            jobs.append(job)
            count += len(job[0])
        return jobs

    async def _work(self, queue: asyncio.Queue[tuple[list[str], asyncio.Future[list[R]]]]) -> None:
        while True:
            jobs = [j for j in await self._collect(queue) if not j[1].done()]  # skip callers that left
            if not jobs:
                continue
            texts = [t for job_texts, _ in jobs for t in job_texts]
            self.batches_run += 1
            self.largest_batch = max(self.largest_batch, len(texts))
            try:
                results = list(await asyncio.to_thread(self._run_batch, texts))
            except Exception as exc:  # noqa: BLE001 - handed to every caller of this batch
                for _, future in jobs:
                    if not future.done():
                        future.set_exception(exc)
                continue
            start = 0
            for job_texts, future in jobs:
                if not future.done():
                    future.set_result(results[start : start + len(job_texts)])
                start += len(job_texts)
