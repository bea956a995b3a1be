"""`csreply kb check | build | search | reload`: the knowledge base from the command line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from serve.config import Settings


def add_parser(
    sub: argparse._SubParsersAction,
    settings_of: Callable[[argparse.Namespace], Settings | None],  # type: ignore[type-arg]
) -> None:
    kb = sub.add_parser("kb", help="the knowledge base: check, build the index, search, reload a server")
    kb_sub = kb.add_subparsers(dest="kb_command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", type=Path, help="YAML settings file (also CSREPLY_CONFIG)")
    common.add_argument(
        "--path",
        type=Path,
        help="knowledge base folder (default: knowledge.path, else the project's knowledge/)",
    )

    check = kb_sub.add_parser(
        "check", parents=[common], help="validate every file and entry; exit 1 on problems"
    )
    check.set_defaults(func=lambda a: _check(a, settings_of(a)))

    build = kb_sub.add_parser(
        "build",
        parents=[common],
        help="index the entries and the reply bank with the router's sentence vectors (cached "
        "for the server; `csreply prepare` runs it)",
    )
    build.set_defaults(func=lambda a: _build(a, settings_of(a)))

    search = kb_sub.add_parser("search", parents=[common], help="the best entries for a message, with scores")
    search.add_argument("query", help="a customer message")
    search.add_argument("--domain", choices=("telecom", "ecommerce"), required=True)
    search.add_argument("--lang", choices=("auto", "en", "zh"), default="auto")
    search.add_argument("-k", type=int, default=5, help="how many entries (default 5)")
    search.add_argument("--lexical", action="store_true", help="without the router's vectors")
    search.add_argument("--json", action="store_true", help="print JSON")
    search.set_defaults(func=lambda a: _search(a, settings_of(a)))

    reload = kb_sub.add_parser("reload", help="ask a running server to reload its knowledge base")
    reload.add_argument(
        "--url", default="http://127.0.0.1:8000", help="the server (default http://127.0.0.1:8000)"
    )
    reload.add_argument(
        "--api-key-env",
        default="CSREPLY_API_KEY",
        help="environment variable holding an API key, if the server requires one",
    )
    reload.set_defaults(func=_reload)


def _root(args: argparse.Namespace, settings: Settings) -> Path:
    from serve.retrieval import one_blas_thread

    one_blas_thread()  # every kb command indexes or searches
    from serve.knowledge.entries import KNOWLEDGE_DIR

    return args.path or settings.knowledge.path or KNOWLEDGE_DIR


def _check(args: argparse.Namespace, settings: Settings | None) -> int:
    from serve.knowledge.entries import KnowledgeError, load_entries, sentences

    if settings is None:
        return 2
    root = _root(args, settings)
    try:
        loaded = load_entries(root)
    except KnowledgeError as exc:
        print(f"csreply kb check: {exc}", file=sys.stderr)
        return 1
    counts = Counter((e.domain, e.lang) for e in loaded.entries)
    print(
        f"knowledge base {root}: {len(loaded.entries)} entries in {loaded.files} files, digest "
        f"{loaded.digest}"
    )
    for (domain, lang), n in sorted(counts.items()):
        print(f"  {domain}/{lang}: {n} entries")
    for e in loaded.expired:
        print(f"  expired (left out): {e.source}: {e.id} (valid_until {e.valid_until})")
    notes = []
    for e in loaded.entries:
        if not e.questions:
            notes.append(
                f"{e.source}: {e.id}: no example questions (retrieval matches the title and text only)"
            )
        if len(sentences(e.text)) > 3:
            notes.append(
                f"{e.source}: {e.id}: {len(sentences(e.text))} sentences; a direct answer sends at most 3"
            )
    by_id = {(e.domain, e.lang, e.id) for e in loaded.entries}
    for domain, lang, entry_id in sorted(by_id):
        other = "zh" if lang == "en" else "en"
        if (domain, other, entry_id) not in by_id and counts.get((domain, other)):
            notes.append(f"{domain}/{lang}: {entry_id}: no {other} version (answered in {lang} with a note)")
    for note in notes:
        print(f"  note: {note}")
    return 0


def _router(settings: Settings) -> Any:
    from serve.router.loading import load_router

    chain, notes = load_router(settings)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    return chain


def _vector_model(settings: Settings) -> tuple[Any, str | None]:
    found = _router(settings).vector_model()
    return found if found is not None else (None, None)


def _build(args: argparse.Namespace, settings: Settings | None) -> int:
    from serve.knowledge.entries import KnowledgeError

    if settings is None:
        return 2
    try:
        build_indexes(settings, _root(args, settings))
    except KnowledgeError as exc:
        print(f"csreply kb build: {exc}", file=sys.stderr)
        return 1
    return 0


def build_indexes(settings: Settings, root: Path | None = None) -> None:
    """Index the knowledge base and the reply bank with the router's vectors, so that the server finds the
    vectors and fitted projections in the cache and starts in seconds (`csreply prepare` runs this too)."""
    from serve.knowledge.base import KnowledgeBase
    from serve.prompts import PROMPTS_DIR, PromptLibrary
    from serve.reply_bank import ReplySelector
    from serve.retrieval.semantic import load_semantic

    started = time.perf_counter()
    embed, space = _vector_model(settings)
    semantic = load_semantic(settings.cache_dir, settings.knowledge.semantic_search)
    base = KnowledgeBase.load(
        root or _root(argparse.Namespace(path=None), settings), embed, space, settings.vectors_dir, semantic
    )
    selector = ReplySelector(
        PromptLibrary.load(settings.prompts_dir or PROMPTS_DIR), embed, space, settings.vectors_dir, semantic
    )
    vectors = "with the router's sentence vectors" if base.dense else "lexical only (no router vectors)"
    if base.semantic_search:
        vectors += " and, in English, the search encoder's"
    print(
        f"indexed {base.size} knowledge entries and {selector.size} bank replies {vectors} in "
        f"{time.perf_counter() - started:.1f} s (knowledge digest {base.digest}; cache "
        f"{settings.vectors_dir})"
    )


def _search(args: argparse.Namespace, settings: Settings | None) -> int:
    from serve.followup import script_lang
    from serve.knowledge.base import KnowledgeBase
    from serve.knowledge.entries import KnowledgeError
    from serve.retrieval.semantic import load_semantic

    if settings is None:
        return 2
    from serve.evaluation.kb_eval import read_all

    chain = None if args.lexical else _router(settings)
    embed, space = (chain.vector_model() if chain is not None else None) or (None, None)
    try:
        semantic = load_semantic(settings.cache_dir, settings.knowledge.semantic_search and not args.lexical)
        base = KnowledgeBase.load(_root(args, settings), embed, space, settings.vectors_dir, semantic)
    except KnowledgeError as exc:
        print(f"csreply kb search: {exc}", file=sys.stderr)
        return 1
    lang = (
        args.lang
        if args.lang != "auto"
        else (script_lang(args.query) or settings.reply.default_language[args.domain])
    )
    reading = read_all(chain, [args.query])[0] if chain is not None else None
    hits = base.search(
        args.domain,
        lang,
        args.query,
        reading.embedding if reading else None,
        k=args.k,
        intents={r.label: r.confidence for r in reading.ranking} if reading else None,
    )
    answer_at = settings.knowledge.answer_min_score
    rows = [
        {
            "id": h.entry.id,
            "title": h.entry.title,
            "lang": h.entry.lang,
            "score": h.score,
            "bm25": h.hit.bm25,
            "covered": h.hit.covered,
            "dense": h.hit.dense,
            "answers": h.score >= answer_at,
            "text": h.entry.text,
        }
        for h in hits
    ]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    print(f"{args.domain}/{lang}, answering at score >= {answer_at}:")
    for r in rows:
        mark = "*" if r["answers"] else " "
        print(
            f"{mark} {r['score']:.3f}  {r['id']}  ({r['title']})  bm25 {r['bm25']:.2f} covered "
            f"{r['covered']:.2f} dense {r['dense'] if r['dense'] is not None else '-'}"
        )
    if rows and rows[0]["answers"]:
        print(f"\nreply: {rows[0]['text']}")
    return 0


def _reload(args: argparse.Namespace) -> int:
    import os

    import httpx

    headers = {}
    key = os.environ.get(args.api_key_env)
    if key:
        headers["authorization"] = f"Bearer {key}"
    try:
        response = httpx.post(args.url.rstrip("/") + "/admin/knowledge/reload", headers=headers, timeout=120)
    except httpx.HTTPError as exc:
        print(f"csreply kb reload: cannot reach {args.url}: {exc}", file=sys.stderr)
        return 2
    if response.status_code != 200:
        try:
            message = response.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = response.text
        print(f"csreply kb reload: the server refused ({response.status_code}): {message}", file=sys.stderr)
        return 1
    body = response.json()
    print(
        f"reloaded: {body.get('entries')} entries, digest {body.get('previous_digest')} -> "
        f"{body.get('digest')}"
    )
    return 0
