"""`csreply` command line: run, prepare (eval and bench arrive with their issues)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from serve.config import load_settings


def _run(args: argparse.Namespace) -> int:
    import uvicorn

    from serve.app import create_app
    from serve.logsetup import configure_logging

    settings = load_settings(args.config)
    server = settings.server.model_copy(
        update={k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    )
    settings = settings.model_copy(update={"server": server})
    configure_logging(settings.logging.level, settings.logging.json_format)
    app = create_app(settings)
    uvicorn.run(app, host=server.host, port=server.port, log_config=None, timeout_graceful_shutdown=10)
    return 0


def _prepare(args: argparse.Namespace) -> int:
    from checkpoints.fetch import prepare_defaults

    return prepare_defaults(load_settings(args.config).cache_dir)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="csreply", description="customer-service reply server")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="start the server (default 127.0.0.1:8000)")
    run.add_argument("--config", type=Path, help="YAML settings file (also CSREPLY_CONFIG)")
    run.add_argument("--host")
    run.add_argument("--port", type=int)
    run.set_defaults(func=_run)

    prepare = sub.add_parser("prepare", help="fetch/convert the embedded default models (idempotent)")
    prepare.add_argument("--config", type=Path)
    prepare.set_defaults(func=_prepare)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
