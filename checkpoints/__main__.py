"""python -m checkpoints fetch | prepare | build-router CONFIG [--force] | build-router-trt CONFIG |
build-llm CONFIG [--dry-run] | finetune-llm CONFIG [--output DIR]"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from serve.config import load_settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m checkpoints")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("fetch", help="fetch and convert the embedded default models into the cache")
    prep = sub.add_parser(
        "prepare", help="fetch the embedded default models and build the default router (csreply prepare)"
    )
    prep.add_argument(
        "--quick",
        action="store_true",
        help="build only the quick lexical router (seconds); the server builds the BERT router while "
        "it serves (router.build_in_background)",
    )
    router = sub.add_parser("build-router", help="train, export and evaluate an intent router")
    router.add_argument("config", type=Path, help="build_configs/router/<name>.yaml")
    router.add_argument("--force", action="store_true", help="rebuild even if the output is current")
    router.add_argument(
        "--quick",
        action="store_true",
        help="the lexical head alone, in seconds (a stand-in while the full router builds)",
    )
    trt = sub.add_parser(
        "build-router-trt", help="TensorRT engine for a built router (GPU host with TensorRT)"
    )
    trt.add_argument("config", type=Path, help="build_configs/router/<name>.yaml (its tensorrt: section)")
    llm = sub.add_parser("build-llm", help="TensorRT-LLM checkpoint and engine from a preset (GPU host)")
    llm.add_argument("config", type=Path, help="build_configs/llm/<model>-<gpu>-<precision>.yaml")
    llm.add_argument(
        "--dry-run", action="store_true", help="print the commands and the manifest; run nothing"
    )
    llm.add_argument(
        "--examples-dir", help="TensorRT-LLM examples directory (default: the release container's)"
    )
    tune = sub.add_parser(
        "finetune-llm", help="LoRA fine-tune the reply model, evaluate before/after, gate, merge"
    )
    tune.add_argument("config", type=Path, help="build_configs/finetune/<name>.yaml")
    tune.add_argument("--output", type=Path, help="output directory (default: <cache>/finetune/<name>)")
    args = parser.parse_args(argv)
    if args.command == "finetune-llm":
        from checkpoints.finetune import main as finetune_main

        return finetune_main(args.config, None, args.output)
    cache = load_settings().cache_dir
    if args.command == "fetch":
        from checkpoints.fetch import prepare_defaults

        return prepare_defaults(cache, with_router=False)
    if args.command == "prepare":
        from checkpoints.fetch import prepare_defaults

        return prepare_defaults(cache, quick=args.quick)
    if args.command == "build-router":
        from checkpoints.router import build_router
        from checkpoints.router_config import ConfigError, load_router_config
        from checkpoints.router_data import DataError

        try:
            config = load_router_config(args.config)
            if args.quick:
                from checkpoints.router import output_dir
                from checkpoints.router_quick import build_quick_router

                build_quick_router(config, cache, output_dir(config, cache))
            else:
                build_router(config, cache, force=args.force)
        except (ConfigError, DataError) as exc:
            print(exc, file=sys.stderr)
            return 2
    if args.command == "build-router-trt":
        return _build_router_trt(args.config, cache)
    if args.command == "build-llm":
        return _build_llm(args.config, cache, args.dry_run, args.examples_dir)
    return 0


def _build_llm(config_path: Path, cache: Path, dry: bool, examples_dir: str | None) -> int:
    from checkpoints.llm import LlmBuildError, dry_run, plan_build, run_build
    from checkpoints.llm_config import LlmConfigError, load_llm_config

    try:
        config = load_llm_config(config_path)
    except LlmConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    plan = plan_build(config, cache, examples_dir)
    if dry:
        print(dry_run(plan))
        return 0
    try:
        manifest = run_build(plan)
    except LlmBuildError as exc:
        print(f"build-llm: {exc}", file=sys.stderr)
        return 1
    print(f"build-llm: done; manifest {manifest}", file=sys.stderr)
    return 0


def _build_router_trt(config_path: Path, cache: Path) -> int:
    from checkpoints.router import output_dir
    from checkpoints.router_config import ConfigError, load_router_config
    from checkpoints.router_export import PLAIN_ONNX
    from checkpoints.router_trt import EngineBuildError, build_engine

    try:
        config = load_router_config(config_path)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    router_dir = output_dir(config, cache)
    onnx_path = router_dir / PLAIN_ONNX
    if not onnx_path.is_file():
        print(f"build-router-trt: {onnx_path} missing: run build-router {config_path} first", file=sys.stderr)
        return 2
    try:
        engine = build_engine(onnx_path, router_dir, config.tensorrt)
    except EngineBuildError as exc:
        print(f"build-router-trt: {exc}", file=sys.stderr)
        return 1
    print(f"engine written: {engine}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
