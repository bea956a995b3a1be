"""`csreply router inbox`: the feedback inbox grouped by predicted intent, and a labelling file from it."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, get_args

from serve.config import InboxReason, Settings
from serve.evaluation.datasets import text_key
from serve.inbox import rotated

EXPORT_FIELDS = ("text", "lang", "intent", "predicted", "confidence", "reason")


def add_parser(sub: Any, load_settings: Callable[[argparse.Namespace], Settings | None]) -> None:
    """`load_settings` reads `--config` and reports a bad one the way every csreply command does (None: it
    was reported)."""
    router = sub.add_parser("router", help="router tools: the feedback inbox")
    router_sub = router.add_subparsers(dest="router_command", required=True)
    inbox = router_sub.add_parser(
        "inbox",
        help="messages the router was unsure about (or handed off), grouped by predicted intent",
        description="Reads the feedback inbox the server writes when feedback_inbox.enabled is true (the "
        "file or Redis list of the settings, unless --path or --redis-url/--key say otherwise).",
    )
    inbox.add_argument("--config", type=Path, help="the server's YAML settings (also CSREPLY_CONFIG)")
    inbox.add_argument(
        "--path", type=Path, help="an inbox file (its rotated files NAME.1, NAME.2... are read too)"
    )
    inbox.add_argument("--redis-url", help="read a Redis inbox at this URL (default: the settings')")
    inbox.add_argument("--key", help="the Redis list's key (default: the settings')")
    inbox.add_argument("--limit", type=int, metavar="N", help="only the newest N rows")
    inbox.add_argument("--reason", choices=get_args(InboxReason), help="only rows recorded for this reason")
    inbox.add_argument(
        "--examples", type=int, default=3, metavar="K", help="example texts per intent (default 3)"
    )
    inbox.add_argument(
        "--export",
        type=Path,
        metavar="OUT.jsonl",
        help="write a labelling file: one row per distinct text, `intent` null for the labeller",
    )
    inbox.set_defaults(func=partial(run, load_settings=load_settings))


def run(args: argparse.Namespace, load_settings: Callable[[argparse.Namespace], Settings | None]) -> int:
    settings = load_settings(args)
    if settings is None:
        return 2
    try:
        rows, where, bad = read_inbox(args, settings)
    except (OSError, ValueError) as exc:
        print(f"csreply router inbox: {exc}", file=sys.stderr)
        return 2
    if bad:
        print(f"csreply router inbox: {bad} lines that are not JSON objects were skipped", file=sys.stderr)
    if args.reason:
        rows = [r for r in rows if r.get("reason") == args.reason]
    if args.limit is not None:
        rows = rows[-args.limit :] if args.limit > 0 else []
    print(summary(rows, where, args.examples))
    if args.export:
        written, duplicates = export(rows, args.export)
        print(
            f"\nwrote {written} rows to {args.export} ({duplicates} repeated texts left out). Fill in "
            "`intent` for each row (or delete the row), then add the file to a router build config's "
            "data.extra_data."
        )
    return 0


def read_inbox(args: argparse.Namespace, settings: Settings) -> tuple[list[dict[str, Any]], str, int]:
    """The rows, oldest first, where they came from, and how many lines were not JSON objects."""
    config = settings.feedback_inbox
    use_redis = args.path is None and (args.redis_url or args.key or config.backend == "redis")
    if use_redis:
        url, key = args.redis_url or settings.inbox_redis_url, args.key or config.key
        rows, bad = parse_lines(asyncio.run(_redis_lines(url, key)))
        return rows, f"redis {key}", bad
    path = args.path or settings.inbox_path
    files = [*rotated_files(path), path] if path.exists() else rotated_files(path)
    if not files:
        raise FileNotFoundError(
            f"no inbox file at {path} (the server writes one when feedback_inbox.enabled "
            "is true and a message was recorded)"
        )
    lines = [line for f in files for line in f.read_text(encoding="utf-8").splitlines()]
    rows, bad = parse_lines(lines)
    return rows, f"{path}" + (f" and {len(files) - 1} rotated files" if len(files) > 1 else ""), bad


def rotated_files(path: Path) -> list[Path]:
    """NAME.N ... NAME.1: the rotated files, oldest first."""
    numbered = []
    for candidate in path.parent.glob(f"{path.name}.*"):
        suffix = candidate.name[len(path.name) + 1 :]
        if suffix.isdigit() and candidate == rotated(path, int(suffix)):
            numbered.append((int(suffix), candidate))
    return [p for _, p in sorted(numbered, reverse=True)]


async def _redis_lines(url: str, key: str) -> list[str]:
    import redis.asyncio as redis

    client = redis.Redis.from_url(url, socket_timeout=5.0, socket_connect_timeout=5.0)
    try:
        raw = await client.lrange(key, 0, -1)
    except redis.RedisError as exc:
        raise OSError(f"cannot read {key} from {url}: {exc}") from exc
    finally:
        await client.aclose()
    return [item.decode() if isinstance(item, bytes) else str(item) for item in raw]


def parse_lines(lines: list[str]) -> tuple[list[dict[str, Any]], int]:
    """A partly written last line (a crash mid-write) must not hide the rest, so bad lines are counted."""
    rows, bad = [], 0
    for line in lines:
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            bad += 1
            continue
        if isinstance(row, dict) and isinstance(row.get("text"), str):
            rows.append(row)
        else:
            bad += 1
    return rows, bad


def summary(rows: list[dict[str, Any]], where: str, examples: int) -> str:
    reasons = Counter(str(r.get("reason")) for r in rows)
    distinct = len({text_key(r["text"]) for r in rows})
    out = [
        f"{where}: {len(rows)} rows, {distinct} distinct texts"
        + (": " + ", ".join(f"{reason} {n}" for reason, n in reasons.most_common()) if rows else "")
    ]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[str(row.get("predicted"))].append(row)
    columns = [reason for reason in get_args(InboxReason) if reasons[reason]]
    width = max([len("predicted intent"), *(len(g) for g in groups)])
    out.append(f"\n{'predicted intent':<{width}}  {'rows':>5}" + "".join(f"  {c:>{len(c)}}" for c in columns))
    for predicted, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        by_reason = Counter(str(r.get("reason")) for r in members)
        out.append(
            f"{predicted:<{width}}  {len(members):>5}"
            + "".join(f"  {by_reason[c]:>{len(c)}}" for c in columns)
        )
        shown: set[str] = set()
        for row in reversed(members):  # the newest first
            if len(shown) >= examples:
                break
            if text_key(row["text"]) in shown:
                continue
            shown.add(text_key(row["text"]))
            out.append(
                f"    {json.dumps(row['text'], ensure_ascii=False)}  "
                f"({row.get('confidence', 0):.2f}, {row.get('reason')}, {row.get('lang')})"
            )
    return "\n".join(out)


def export(rows: list[dict[str, Any]], out: Path) -> tuple[int, int]:
    """One row per distinct text (the first seen), sorted by predicted intent; returns (written, repeats)."""
    seen: dict[str, dict[str, Any]] = {}
    for row in rows:
        seen.setdefault(text_key(row["text"]), row)
    chosen = sorted(seen.values(), key=lambda r: (str(r.get("predicted")), r["text"]))
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as fh:
        for row in chosen:
            labelled = {field: row.get(field) for field in EXPORT_FIELDS}
            labelled["intent"] = None
            fh.write(json.dumps(labelled, ensure_ascii=False) + "\n")
    return len(chosen), len(rows) - len(chosen)
