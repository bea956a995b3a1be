"""Building the BERT router while the server serves (`router.build_in_background`).

A new machine can answer at once with the quick lexical router (`csreply prepare --quick`, seconds) while the
full build runs in a child process at low priority: 5 minutes on a CPU with native bfloat16, about 16 on one
without (2 cores). When the child ends, the server loads the new router and swaps it in (serve/services.py),
so the next message is classified by it; `/ready` shows the build's progress and ETA meanwhile, from the
progress file the build writes (serve/router/progress.py). A build that fails leaves the server on the
router it has, says so in `/ready`, and keeps the log.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from serve.router.progress import read_progress

logger = logging.getLogger(__name__)

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "build_configs" / "router" / "default.yaml"
LOG_EVERY_S = 30.0


class RouterBuild:
    def __init__(
        self,
        router_dir: Path,
        cache_dir: Path,
        on_built: Callable[[], Awaitable[None]],
        command: list[str] | None = None,
    ) -> None:
        self.router_dir = router_dir
        self.cache_dir = cache_dir
        self.on_built = on_built
        self.command = command or [sys.executable, "-m", "checkpoints", "build-router", str(DEFAULT_CONFIG)]
        self.log_path = router_dir.with_name(router_dir.name + ".build.log")
        self.state = "idle"  # idle | building | swapping | ready | failed
        self.error: str | None = None
        self.started: float | None = None
        self.finished: float | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        self.state, self.started = "building", time.time()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "CSREPLY_CACHE_DIR": str(self.cache_dir)}
        with self.log_path.open("wb") as log:
            try:
                self._process = await asyncio.create_subprocess_exec(
                    *self.command, stdout=log, stderr=log, env=env, preexec_fn=_lower_priority
                )
            except OSError as exc:
                self._fail(f"could not start the router build: {exc}")
                return
            logger.info("router.build started pid=%s log=%s", self._process.pid, self.log_path)
            code = await self._wait_logging_progress(self._process)
        if code != 0:
            self._fail(f"the router build exited with {code}; see {self.log_path}")
            return
        self.state = "swapping"
        try:
            await self.on_built()
        except Exception as exc:  # noqa: BLE001 - any failure to load keeps the running router
            self._fail(f"the new router could not be loaded: {exc}")
            return
        self.state, self.finished = "ready", time.time()
        logger.info("router.build swapped_in build_s=%.0f", self.finished - (self.started or self.finished))

    async def _wait_logging_progress(self, process: asyncio.subprocess.Process) -> int:
        while True:
            try:
                return await asyncio.wait_for(process.wait(), LOG_EVERY_S)
            except asyncio.TimeoutError:
                progress = self.progress()
                if progress:
                    logger.info(
                        "router.build progress=%.0f%% stage=%s eta_s=%s",
                        100 * float(progress["fraction"]),
                        progress["stage"],
                        progress.get("eta_s"),
                    )

    def _fail(self, message: str) -> None:
        self.state, self.error, self.finished = "failed", message, time.time()
        logger.error("router.build failed: %s", message)

    def progress(self) -> dict[str, Any] | None:
        return read_progress(self.router_dir) if self.state == "building" else None

    def status(self) -> dict[str, Any]:
        body: dict[str, Any] = {"state": self.state, "log": str(self.log_path)}
        progress = self.progress()
        if progress:
            body.update({k: progress.get(k) for k in ("stage", "fraction", "eta_s", "elapsed_s")})
        if self.error:
            body["error"] = self.error
        return body

    async def aclose(self) -> None:
        """On shutdown: stop a build still running (the next start begins it again)."""
        if self._process is not None and self._process.returncode is None:
            self._process.terminate()
            try:
                await asyncio.wait_for(self._process.wait(), 10)
            except asyncio.TimeoutError:
                self._process.kill()
        if self._task is not None:
            self._task.cancel()


def _lower_priority() -> None:
    """In the child: a lower scheduling priority, so requests keep the cores they need."""
    try:
        os.nice(10)
    except OSError:
        pass
