"""A real uvicorn process (the `csreply run` serving path: DrainingServer, middleware, signals) around the
test-only FastTestEngine, on loopback. Load, disconnect and drain tests use it."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import LiveServer, start_server


def start_fast_server(log: Path, env: dict[str, str] | None = None, tokens: int = 12) -> LiveServer:
    return start_server(
        log,
        {"CSREPLY_LOGGING__JSON_FORMAT": "true", "CSREPLY_GENERATOR__WARMUP": "false", **(env or {})},
        args=["--tokens", str(tokens)],
        module="tests.fast_engine",
    )
