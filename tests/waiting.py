"""Waiting in a test for what another task does. Where the code under test can set an asyncio.Event, wait
on that; where it cannot (a count, a server's /ready), poll with a deadline so that a broken test fails
instead of hanging the run."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable


async def until(
    condition: Callable[[], bool | Awaitable[bool]], timeout: float = 5.0, every: float = 0.01
) -> None:
    """Return once `condition()` (plain or async) holds; TimeoutError if it still does not after `timeout`
    seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        held = condition()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        if loop.time() >= deadline:
            raise TimeoutError(f"still not true after {timeout} s")
        await asyncio.sleep(every)
