"""A real uvicorn process (the `csreply run` serving path: DrainingServer, middleware, signals) around the
test-only FastTestEngine, on loopback. Load, disconnect and drain tests use it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.conftest import REPO
from tests.e2e.conftest import LiveServer, free_port


def start_fast_server(log: Path, env: dict[str, str] | None = None, tokens: int = 12,
                      deadline_s: float = 120) -> LiveServer:
    port = free_port()
    full_env = {**os.environ, "CSREPLY_LOGGING__JSON_FORMAT": "true", "CSREPLY_GENERATOR__WARMUP": "false",
                **(env or {})}
    handle = open(log, "wb")
    process = subprocess.Popen([sys.executable, "-m", "tests.fast_engine", "--port", str(port), "--tokens",
                                str(tokens)], cwd=REPO, env=full_env, stdout=handle, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    until = time.monotonic() + deadline_s
    while time.monotonic() < until:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                return LiveServer(url, process, log)
        except httpx.TransportError:
            pass
        time.sleep(0.2)  # waiting for a subprocess to listen; nothing is timed here
    process.kill()
    raise RuntimeError(f"server not ready after {deadline_s}s:\n{log.read_text()[-3000:]}")
