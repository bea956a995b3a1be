"""`csreply` command line: run, prepare, eval, bench, router inbox, kb."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import yaml
from pydantic import ValidationError

from serve.config import Settings, load_settings


def config_error(exc: Exception, config_file: Path | None) -> str:
    """One line naming the file and the setting, instead of a traceback."""
    source = f"config file {config_file}" if config_file else "settings (CSREPLY_* environment)"
    if isinstance(exc, ValidationError):
        errors = exc.errors()
        first = errors[0]
        key = ".".join(str(p) for p in first.get("loc", ())) or "(top level)"
        kind = first.get("type", "")
        message = "unknown setting" if kind == "extra_forbidden" else str(first.get("msg", "invalid"))
        message = message.removeprefix("Value error, ")
        if kind != "extra_forbidden" and "input" in first and not isinstance(first["input"], dict | list):
            message += f" (got {first['input']!r})"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"{source}: {key}: {message}{more}"
    if isinstance(exc, yaml.YAMLError):
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        return f"{source}:{where} is not valid YAML ({getattr(exc, 'problem', None) or exc})"
    return f"{source}: {exc}"


def _settings(args: argparse.Namespace) -> Settings | None:
    try:
        return load_settings(args.config)
    except (ValidationError, yaml.YAMLError, FileNotFoundError, ValueError) as exc:
        print(f"csreply: {config_error(exc, args.config)}", file=sys.stderr)
        return None


def _run(args: argparse.Namespace) -> int:
    from serve.app import create_app
    from serve.logsetup import configure_logging
    from serve.server import serve_app

    settings = _settings(args)
    if settings is None:
        return 2
    server = settings.server.model_copy(
        update={k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    )
    settings = settings.model_copy(update={"server": server})
    configure_logging(settings.logging.level, settings.logging.json_format)
    return serve_app(create_app(settings), settings)


def _prepare(args: argparse.Namespace) -> int:
    """Runs the build tool as its own process: the server package does not import checkpoints/."""
    import os
    import subprocess

    settings = _settings(args)
    if settings is None:
        return 2
    env = {**os.environ, "CSREPLY_CACHE_DIR": str(settings.cache_dir)}
    command = [sys.executable, "-m", "checkpoints", "prepare", *(["--quick"] if args.quick else [])]
    return subprocess.run(command, env=env).returncode


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
    if args.label_map and not args.label_map.is_file():
        print(f"csreply eval router: no such label mapping: {args.label_map}", file=sys.stderr)
        return 2
    return run_eval(
        args.data,
        args.backend,
        settings,
        args.json,
        args.compare,
        args.confusion,
        args.latency_samples,
        args.errors,
        args.report,
        args.label_map,
        args.label_field,
        args.dataset,
        args.by,
    )


def _eval_replies(args: argparse.Namespace) -> int:
    from serve.evaluation.replies_eval import run_eval

    if not args.data.is_file():
        print(f"csreply eval replies: no such file: {args.data}", file=sys.stderr)
        return 2
    return run_eval(
        args.data,
        args.url,
        load_settings(args.config),
        args.json,
        args.concurrency,
        args.results,
        args.limit,
        args.variant,
        args.report,
        args.worst,
        args.auto_lang,
        args.other_domain,
        args.sample,
        args.seed,
        args.judge_packet,
    )


def _eval_judged(args: argparse.Namespace) -> int:
    from serve.evaluation.judging import run_judged

    for path in (args.key, args.verdicts, args.second):
        if path is not None and not path.is_file():
            print(f"csreply eval judged: no such file: {path}", file=sys.stderr)
            return 2
    try:
        return run_judged(args.key, args.verdicts, args.second, args.json)
    except ValueError as exc:
        print(f"csreply eval judged: {exc}", file=sys.stderr)
        return 2


def _eval_kb(args: argparse.Namespace) -> int:
    from serve.evaluation.kb_eval import run_eval

    return _eval_retrieval(args, "kb", run_eval)


def _eval_bank(args: argparse.Namespace) -> int:
    from serve.evaluation.kb_eval import run_bank_eval

    return _eval_retrieval(args, "bank", run_bank_eval)


def _eval_retrieval(args: argparse.Namespace, name: str, run: Callable[..., int]) -> int:
    """`csreply eval kb|bank`: a labelled set through the knowledge base's or the reply bank's retrieval."""
    settings = _settings(args)
    if settings is None:
        return 2
    if not args.data.is_file():
        print(f"csreply eval {name}: no such file: {args.data}", file=sys.stderr)
        return 2
    try:
        return run(args.data, settings, args.json, args.lexical, args.misses)
    except ValueError as exc:
        print(f"csreply eval {name}: {exc}", file=sys.stderr)
        return 2


def _compare(args: argparse.Namespace) -> int:
    from serve.evaluation.compare import REPLY_METRICS, ROUTER_METRICS, compare, finish, load_result

    reports: tuple[str | None, str | None] = (None, None)
    try:
        if args.what == "files":
            metrics = ROUTER_METRICS if args.kind == "router" else REPLY_METRICS
            a, b = load_result(args.a), load_result(args.b)
            names = (args.a.stem, args.b.stem)
            reports = (a.get("report"), b.get("report"))
        else:
            a, b, names = _compare_router(args)
            metrics = ROUTER_METRICS
        result = compare(a, b, metrics, *names, threshold_points=args.threshold)
    except (ValueError, FileNotFoundError) as exc:
        print(f"csreply eval compare: {exc}", file=sys.stderr)
        return 2
    return finish(result, args.json, args.report, reports)


def _compare_router(args: argparse.Namespace) -> tuple[dict, dict, tuple[str, str]]:
    from serve.evaluation.datasets import load_intent_jsonl
    from serve.evaluation.router_eval import evaluate, make_backend

    if not args.data.is_file():
        raise FileNotFoundError(f"no such file: {args.data}")
    examples = load_intent_jsonl(args.data)
    results = []
    for backend, router_dir in ((args.a, args.a_router_dir), (args.b, args.b_router_dir)):
        settings = load_settings(args.config)
        if router_dir is not None:
            settings = settings.model_copy(
                update={"router": settings.router.model_copy(update={"router_dir": router_dir})}
            )
        results.append(evaluate(make_backend(backend, settings), examples, args.latency_samples))
    names = (
        f"{args.a}" + (f"@{args.a_router_dir.name}" if args.a_router_dir else ""),
        f"{args.b}" + (f"@{args.b_router_dir.name}" if args.b_router_dir else ""),
    )
    return results[0], results[1], names


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
    prepare.add_argument(
        "--quick",
        action="store_true",
        help="fetch the models and train only the quick lexical router (seconds), so the server can "
        "start at once and build the BERT router while it serves (`make run` does this)",
    )
    prepare.set_defaults(func=_prepare)

    evaluate = sub.add_parser("eval", help="offline evaluation")
    eval_sub = evaluate.add_subparsers(dest="target", required=True)
    router = eval_sub.add_parser("router", help="intent router: accuracy, macro-F1, per intent, latency")
    router.add_argument("--data", type=Path, required=True, help='JSONL of {"text", "intent", "lang"}')
    router.add_argument(
        "--backend",
        default="onnx",
        help="onnx | onnx-fp32 | onnx-int8 | tensorrt | rules | torch (default onnx)",
    )
    router.add_argument("--compare", help="a second backend on the same data (e.g. onnx-int8)")
    router.add_argument("--json", type=Path, help="write the metrics here")
    router.add_argument("--confusion", type=Path, help="confusion matrix PNG (default: next to --json)")
    router.add_argument("--report", type=Path, help="Markdown report (default: next to --json, .md)")
    router.add_argument(
        "--errors",
        type=int,
        default=10,
        metavar="N",
        help="the N most frequent confusions, with example messages (default 10; 0: none)",
    )
    router.add_argument(
        "--label-map",
        type=Path,
        help="CSV mapping another label scheme onto the intents (columns source_label|label, "
        "target_intent|intent, optional dataset)",
    )
    router.add_argument("--label-field", default="label", help="the JSONL field holding the foreign label")
    router.add_argument("--dataset", help="use only the label-map rows of this dataset")
    router.add_argument(
        "--by",
        default="source",
        metavar="FIELD",
        help="break the report down by this JSONL field (default: source; with --label-map, "
        "the --label-field gives accuracy per foreign label)",
    )
    router.add_argument(
        "--router-dir", type=Path, help="a build-router output (default: the embedded router)"
    )
    router.add_argument("--latency-samples", type=int, default=200)
    router.add_argument("--config", type=Path)
    router.set_defaults(func=_eval_router)
    replies = eval_sub.add_parser(
        "replies",
        help="reply set: language, handoff, must_include, canned, repetition, unsupported facts, chrF",
    )
    replies.add_argument(
        "--data", type=Path, required=True, help="JSONL reply cases (one JSON object per line)"
    )
    replies.add_argument("--url", help="a running server (default: run the pipeline in this process)")
    replies.add_argument(
        "--variant", help="with --url: pin this engine-pool member (score one build of an A/B pair)"
    )
    replies.add_argument("--json", type=Path, help="write the metrics and per-case results here")
    replies.add_argument("--config", type=Path)
    replies.add_argument("--concurrency", type=int, default=1, help="cases in flight at once (default 1)")
    replies.add_argument(
        "--results",
        type=Path,
        help="append each scored case here as it finishes (JSONL; default: next to --json)",
    )
    replies.add_argument("--limit", type=int, help="only the first N cases")
    replies.add_argument(
        "--report", type=Path, help="Markdown report with PNG plots beside it (default: next to --json, .md)"
    )
    replies.add_argument(
        "--worst",
        type=int,
        default=3,
        metavar="N",
        help="the report lists up to N failed cases per check (default 3)",
    )
    replies.add_argument(
        "--auto-lang",
        action="store_true",
        help="send lang auto (the server finds the language, as for real traffic) instead of the case's lang",
    )
    replies.add_argument(
        "--other-domain",
        choices=("telecom", "ecommerce"),
        help='run cases of "domain": "other" as this domain (default: skip them)',
    )
    replies.add_argument("--sample", type=int, metavar="N", help="N random cases per language (with --seed)")
    replies.add_argument(
        "--seed", type=int, default=0, help="seed of --sample and of the judge packet's order"
    )
    replies.add_argument(
        "--judge-packet",
        type=Path,
        help="write the replies blind (no intent or route) for judging with the reply rubric, "
        "and a key beside it (.key.jsonl); score the verdicts with `csreply eval judged`",
    )
    replies.set_defaults(func=_eval_replies)
    judged = eval_sub.add_parser(
        "judged",
        help="rubric verdicts on a judge packet: acceptable rate, failures per "
        "point, per language and route, judge agreement",
    )
    judged.add_argument("key", type=Path, help="the packet's key file (.key.jsonl)")
    judged.add_argument(
        "verdicts",
        type=Path,
        help='JSONL of {"id", "acceptable": true|false, "point": 1-6 when not acceptable}',
    )
    judged.add_argument(
        "second", type=Path, nargs="?", help="a second judge's verdicts: agreement is reported"
    )
    judged.add_argument("--json", type=Path, help="write the table here")
    judged.set_defaults(func=_eval_judged)
    kb = eval_sub.add_parser(
        "kb", help="knowledge-base retrieval: recall@1/@5, MRR, direct answers, per language"
    )
    kb.add_argument(
        "--data",
        type=Path,
        required=True,
        help='JSONL of {"text", "domain", "lang", "entry_ids": [...]} ([] when no entry answers)',
    )
    kb.add_argument("--json", type=Path, help="write the metrics here")
    kb.add_argument("--lexical", action="store_true", help="without the router's sentence vectors")
    kb.add_argument(
        "--misses", type=int, default=0, metavar="N", help="print N messages whose first hit is wrong"
    )
    kb.add_argument("--config", type=Path)
    kb.set_defaults(func=_eval_kb)
    bank = eval_sub.add_parser(
        "bank", help="reply selection: the bank reply chosen for each message, per language"
    )
    bank.add_argument(
        "--data",
        type=Path,
        required=True,
        help='JSONL of {"text", "domain", "lang", "reply_ids": [...]} ([] when no reply fits)',
    )
    bank.add_argument("--json", type=Path, help="write the metrics here")
    bank.add_argument("--lexical", action="store_true", help="without the router's sentence vectors")
    bank.add_argument(
        "--misses", type=int, default=0, metavar="N", help="print N messages whose first pick is wrong"
    )
    bank.add_argument("--config", type=Path)
    bank.set_defaults(func=_eval_bank)
    add_compare_parser(eval_sub)

    from serve.loadgen.cli import add_parser as add_bench_parser

    add_bench_parser(sub)
    from serve.inbox_cli import add_parser as add_router_parser

    add_router_parser(sub, _settings)
    from serve.knowledge.cli import add_parser as add_kb_parser

    add_kb_parser(sub, _settings)
    return parser


def add_compare_parser(eval_sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    gate = eval_sub.add_parser(
        "compare",
        help="two configurations on the same data; exit 1 when B is worse than A beyond a threshold",
    )
    what = gate.add_subparsers(dest="what", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--threshold",
        type=float,
        default=0.5,
        help="largest allowed drop of any metric, in points (default 0.5)",
    )
    common.add_argument("--json", type=Path, help="write the comparison here")
    common.add_argument("--report", type=Path, help="write a Markdown report here")
    files = what.add_parser("files", parents=[common], help="two saved `--json` results of csreply eval")
    files.add_argument("a", type=Path, help="the reference result (today's build)")
    files.add_argument("b", type=Path, help="the candidate result")
    files.add_argument("--kind", choices=("router", "replies"), required=True)
    router = what.add_parser("router", parents=[common], help="two router backends or builds on one set")
    router.add_argument("--data", type=Path, required=True, help='JSONL of {"text", "intent", "lang"}')
    router.add_argument("--a", default="onnx-fp32", help="reference backend (default onnx-fp32)")
    router.add_argument("--b", default="onnx-int8", help="candidate backend (default onnx-int8)")
    router.add_argument(
        "--a-router-dir", type=Path, help="build-router output for A (default: the embedded one)"
    )
    router.add_argument("--b-router-dir", type=Path, help="build-router output for B")
    router.add_argument("--latency-samples", type=int, default=50)
    router.add_argument("--config", type=Path)
    gate.set_defaults(func=_compare)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
