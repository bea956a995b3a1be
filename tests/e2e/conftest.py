"""A real uvicorn process serving the real embedded SmolLM2 model, shared by the e2e tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO

STARTUP_DEADLINE_S = 180

# The environment form of tests.conftest.GENERATED_ONLY, for servers whose tests are about the generated-reply
# path (streaming, cancellation, sessions): no knowledge-base answers, no reply-bank selections, and the
# embedded SmolLM2 writes English replies (by default it writes none: test_reply_default_live.py covers that).
GENERATED_ONLY_ENV = {
    "CSREPLY_KNOWLEDGE__ENABLED": "false",
    "CSREPLY_REPLY__REPLY_BANK": "false",
    "CSREPLY_GENERATOR__LANGUAGES": '["en"]',
}


@dataclass
class LiveServer:
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def engine_stats(self) -> dict[str, int]:
        return httpx.get(f"{self.url}/ready", timeout=10).json()["generator"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(
    log: Path,
    extra_env: dict[str, str] | None = None,
    args: list[str] | None = None,
    port: int | None = None,
    module: str = "serve",
) -> LiveServer:
    """`python -m serve run --port P [args]` (or another module taking --port), ready when /ready is 200."""
    port = port or free_port()
    env = {**os.environ, "CSREPLY_LOGGING__JSON_FORMAT": "false", **(extra_env or {})}
    handle = open(log, "ab")
    command = [
        sys.executable,
        "-m",
        module,
        *(["run"] if module == "serve" else []),
        "--port",
        str(port),
        *(args or []),
    ]
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=handle, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_DEADLINE_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                return LiveServer(url, process, log)
        except httpx.TransportError:
            pass
        time.sleep(0.25)  # waiting for a subprocess to listen; no test asserts on time here
    process.kill()
    raise RuntimeError(f"server not ready after {STARTUP_DEADLINE_S}s:\n{log.read_text()[-3000:]}")


def stop_server(server: LiveServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.process.kill()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("server") / "server.log", GENERATED_ONLY_ENV)
    try:
        yield server
    finally:
        stop_server(server)
