"""TEST/BENCHMARK ONLY: the real server (same app and uvicorn settings as `csreply run`) with a chosen engine.

    python -m serve.testing.server --engine zero-cost --port 8123 [--workers N]
    python -m serve.testing.server --engine hf --port 8123      # the configured engine, as `csreply run`

`--engine zero-cost` swaps in `ZeroCostTestGenerator`, so what is measured is the server itself (HTTP,
validation, routing for /v1/reply, SSE framing). The product never takes this path.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from fastapi import FastAPI

from serve.config import Settings, load_settings

_ENGINE_ENV = "CSREPLY_TEST_SERVER_ENGINE"  # how `--workers` hands the choice to each worker process


def _settings(config: Path | None, max_concurrent: int) -> Settings:
    settings = load_settings(config)
    # Benchmarks open hundreds of streams; the admission limit would answer 429 to most of them.
    generator = settings.generator.model_copy(update={"max_concurrent_requests": max_concurrent})
    return settings.model_copy(update={"generator": generator})


def make_app() -> FastAPI:
    """App factory for uvicorn workers: reads the choices that `main` put in the environment."""
    from serve.app import create_app
    from serve.logsetup import configure_logging
    from serve.testing.zero_cost import ZeroCostTestGenerator

    config = os.environ.get("CSREPLY_CONFIG")
    settings = _settings(
        Path(config) if config else None, int(os.environ.get("CSREPLY_TEST_MAX_CONCURRENT", "4096"))
    )
    configure_logging(settings.logging.level, settings.logging.json_format)
    engine = os.environ.get(_ENGINE_ENV, "zero-cost")
    coalesce = os.environ.get("CSREPLY_TEST_ENGINE_COALESCE", "1") == "1"
    generator = ZeroCostTestGenerator(coalesce=coalesce) if engine == "zero-cost" else None
    return create_app(settings, generator=generator)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--engine", choices=["zero-cost", "hf"], default="zero-cost")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8123)
    parser.add_argument("--workers", type=int, default=1, help="server processes sharing the port")
    parser.add_argument("--max-concurrent", type=int, default=4096, help="admission limit (default 4096)")
    parser.add_argument(
        "--per-token-chunks",
        action="store_true",
        help="zero-cost engine: one chunk per token even when the reader is behind",
    )
    parser.add_argument("--config", type=Path)
    args = parser.parse_args(argv)

    import uvicorn

    os.environ[_ENGINE_ENV] = args.engine
    os.environ["CSREPLY_TEST_ENGINE_COALESCE"] = "0" if args.per_token_chunks else "1"
    os.environ["CSREPLY_TEST_MAX_CONCURRENT"] = str(args.max_concurrent)
    if args.config:
        os.environ["CSREPLY_CONFIG"] = str(args.config)
    # The same uvicorn settings as `csreply run`; several workers share one listening socket.
    target = "serve.testing.server:make_app" if args.workers > 1 else make_app()
    uvicorn.run(
        target,
        host=args.host,
        port=args.port,
        log_config=None,
        timeout_graceful_shutdown=10,
        factory=args.workers > 1,
        workers=args.workers if args.workers > 1 else None,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
