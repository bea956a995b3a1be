"""Micro-batching in front of a model backend: collect up to `max_batch_size` texts or `max_wait_ms` after
the first one, then run the batch in a worker thread (ONNX Runtime and TensorRT release the GIL)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

R = TypeVar("R")

_Job = tuple[list[str], "asyncio.Future[list[R]]"]


class MicroBatcher(Generic[R]):
    def __init__(
        self, run_batch: Callable[[list[str]], Sequence[R]], max_batch_size: int = 32, max_wait_ms: float = 1.0
    ) -> None:
        if max_batch_size < 1 or max_wait_ms < 0:
            raise ValueError("max_batch_size must be >= 1 and max_wait_ms >= 0")
        self._run_batch = run_batch
        self.max_batch_size = max_batch_size
        self.max_wait = max_wait_ms / 1000.0
        self._queue: asyncio.Queue[tuple[list[str], asyncio.Future[list[R]]]] | None = None
        self._worker: asyncio.Task[None] | None = None
        self.batches_run = 0
        self.largest_batch = 0

    async def submit(self, texts: list[str]) -> list[R]:
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._worker = asyncio.create_task(self._work(self._queue), name="router-microbatcher")
        future: asyncio.Future[list[R]] = asyncio.get_running_loop().create_future()
        await self._queue.put((texts, future))
        return await future

    async def aclose(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None
            self._queue = None

    async def _collect(self, queue: asyncio.Queue[tuple[list[str], asyncio.Future[list[R]]]]) -> list:
        jobs = [await queue.get()]
        count = len(jobs[0][0])
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.max_wait
        while count < self.max_batch_size:
            remaining = deadline - loop.time()
            try:
                job = queue.get_nowait() if remaining <= 0 else await asyncio.wait_for(queue.get(), remaining)
            except (asyncio.QueueEmpty, TimeoutError):
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
