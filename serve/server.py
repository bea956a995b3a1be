"""Run the app under uvicorn with a graceful drain on SIGTERM / SIGINT.

The first signal stops admitting (generating endpoints answer 503, /ready answers 503 so a load balancer
moves traffic away), lets open streams finish for up to `server.drain_timeout_s`, then ends the rest with
a terminal event (an `error` saying the server is shutting down, then `[DONE]` on the OpenAI stream) and
only then lets uvicorn close the connections and run the lifespan shutdown. The process exits 0. A second
signal skips the wait.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from types import FrameType
from typing import Any

import uvicorn
from fastapi import FastAPI

from serve.config import Settings

logger = logging.getLogger(__name__)

# After the drain stopped the remaining streams: how long their terminal frames may take to go out.
_FLUSH_S = 5.0


class DrainingServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, app: FastAPI, drain_timeout_s: float) -> None:
        super().__init__(config)
        self.app = app
        self.drain_timeout_s = drain_timeout_s
        self._drain_task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def serve(self, sockets: Any = None) -> None:
        self._loop = asyncio.get_running_loop()
        if hasattr(signal, "SIGHUP"):  # SIGHUP: reload the knowledge base (the operator edited it)
            self._loop.add_signal_handler(signal.SIGHUP, self._reload_knowledge)
        await super().serve(sockets)

    def _reload_knowledge(self) -> None:
        services = getattr(self.app.state, "services", None)
        if services is None:
            return
        task = asyncio.ensure_future(services.knowledge.reload())
        task.add_done_callback(_log_reload)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        # Not recorded in uvicorn's captured signals: those are re-raised after serving, and a re-raised
        # SIGTERM would kill the process with status -15 after a clean drain.
        if (
            self._drain_task is not None
            or self._loop is None
            or getattr(self.app.state, "services", None) is None
        ):
            self.should_exit = True  # second signal, or nothing to drain yet: stop now
            if self._drain_task is not None:
                self.force_exit = sig == signal.SIGINT
            return
        self._loop.call_soon_threadsafe(self._start_drain, sig)

    def _start_drain(self, sig: int) -> None:
        if self._drain_task is None:
            self._drain_task = asyncio.ensure_future(self.drain(signal.Signals(sig).name))

    async def drain(self, reason: str = "signal") -> None:
        services, ops = self.app.state.services, self.app.state.ops
        services.lifecycle.draining = True
        services.admission.drain()
        ops.metrics.draining.set(1)
        open_streams = len(ops.streams.active)
        logger.warning(
            "server.draining reason=%s open_streams=%d timeout_s=%.1f",
            reason,
            open_streams,
            self.drain_timeout_s,
        )
        if not await ops.streams.wait_closed(self.drain_timeout_s):
            ops.streams.stop_all("shutdown")
            await ops.streams.wait_closed(_FLUSH_S)
        logger.warning("server.drained left=%d", len(ops.streams.active))
        self.should_exit = True


def _log_reload(task: asyncio.Task[Any]) -> None:
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None:  # an invalid knowledge base on disk: the one in use stays, the log says why
        logger.error("knowledge.reload_failed error=%s", exc)


def serve_app(app: FastAPI, settings: Settings) -> int:
    server = settings.server
    config = uvicorn.Config(
        app,
        host=server.host,
        port=server.port,
        log_config=None,
        access_log=False,
        timeout_keep_alive=int(server.keep_alive_s),
        timeout_graceful_shutdown=int(_FLUSH_S),
    )
    DrainingServer(config, app, server.drain_timeout_s).run()
    return 0
