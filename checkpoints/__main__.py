"""`python -m checkpoints fetch` (build-llm and build-router arrive with their issues)."""

import argparse
import sys

from checkpoints.fetch import prepare_defaults
from serve.config import load_settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m checkpoints")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("fetch", help="fetch and convert the embedded default models into the cache")
    args = parser.parse_args(argv)
    if args.command == "fetch":
        return prepare_defaults(load_settings().cache_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
