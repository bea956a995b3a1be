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
    """Runs the build tool as its own process: the server package does not import checkpoints/."""
    import os
    import subprocess

    env = {**os.environ, "CSREPLY_CACHE_DIR": str(load_settings(args.config).cache_dir)}
    return subprocess.run([sys.executable, "-m", "checkpoints", "prepare"], env=env).returncode


def _eval_router(args: argparse.Namespace) -> int:
    from serve.evaluation.router_eval import run_eval

    settings = load_settings(args.config)
    if args.router_dir:
        settings = settings.model_copy(
            update={"router": settings.router.model_copy(update={"router_dir": args.router_dir})}
        )
    if not args.data.is_file():
        print(f"csreply eval router: no such file: {args.data}", file=sys.stderr)
        return 2
    return run_eval(args.data, args.backend, settings, args.json, args.compare, args.confusion,
                    args.latency_samples)


def _eval_replies(args: argparse.Namespace) -> int:
    from serve.evaluation.replies_eval import run_eval

    if not args.data.is_file():
        print(f"csreply eval replies: no such file: {args.data}", file=sys.stderr)
        return 2
    return run_eval(args.data, args.url, load_settings(args.config), args.json, args.concurrency, args.results,
                    args.limit)


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

    evaluate = sub.add_parser("eval", help="offline evaluation")
    eval_sub = evaluate.add_subparsers(dest="target", required=True)
    router = eval_sub.add_parser("router", help="intent router: accuracy, macro-F1, per intent, latency")
    router.add_argument("--data", type=Path, required=True, help='JSONL of {"text", "intent", "lang"}')
    router.add_argument("--backend", default="onnx",
                        help="onnx | onnx-fp32 | onnx-int8 | tensorrt | rules | torch (default onnx)")
    router.add_argument("--compare", help="a second backend on the same data (e.g. onnx-int8)")
    router.add_argument("--json", type=Path, help="write the metrics here (flat keys, DESIGN.md section 6)")
    router.add_argument("--confusion", type=Path, help="confusion matrix PNG (default: next to --json)")
    router.add_argument("--router-dir", type=Path, help="a build-router output (default: the embedded router)")
    router.add_argument("--latency-samples", type=int, default=200)
    router.add_argument("--config", type=Path)
    router.set_defaults(func=_eval_router)
    replies = eval_sub.add_parser("replies", help="reply set: language, handoff, must_include, canned, repetition, unsupported facts, chrF")
    replies.add_argument("--data", type=Path, required=True, help="JSONL reply cases (DESIGN.md section 5)")
    replies.add_argument("--url", help="a running server (default: run the pipeline in this process)")
    replies.add_argument("--json", type=Path, help="write the metrics and per-case results here")
    replies.add_argument("--config", type=Path)
    replies.add_argument("--concurrency", type=int, default=1, help="cases in flight at once (default 1)")
    replies.add_argument("--results", type=Path,
                         help="append each scored case here as it finishes (JSONL; default: next to --json)")
    replies.add_argument("--limit", type=int, help="only the first N cases")
    replies.set_defaults(func=_eval_replies)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
