"""`csreply eval kb`: retrieval quality of the knowledge base on a labelled set.

Data: JSONL `{"text", "domain", "lang", "entry_ids": [...], "split"?}`; `entry_ids` lists the entries that
answer the message ([] for a message no entry answers); `split` (e.g. dev/test) adds a group per split.
Reported per language and domain: recall@1, recall@5 and MRR over the answerable messages, and for the
direct-answer threshold (`knowledge.answer_min_score`): how many answerable messages it answers, how often
that answer is right, and how many unanswerable ones it would answer anyway (each of those would be a wrong
reply)."""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from serve.acts import strip_wrapping
from serve.config import Settings
from serve.evaluation.datasets import jsonl_rows
from serve.retrieval import one_blas_thread
from serve.retrieval.semantic import load_semantic


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    domain: str
    lang: str
    entry_ids: tuple[str, ...]
    split: str = ""  # optional: e.g. dev (used to choose weights and thresholds) or test (only measured)


def load_questions(path: Path, ids_field: str = "entry_ids") -> list[Question]:
    out = []
    for n, row in jsonl_rows(path):
        try:
            ids = row[ids_field]
            question = Question(
                str(row["text"]),
                str(row["domain"]),
                str(row["lang"]),
                tuple(ids),
                str(row.get("split") or ""),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not a {{text, domain, lang, {ids_field}}} object ({exc})") from exc
        if question.domain not in ("telecom", "ecommerce") or question.lang not in ("en", "zh"):
            raise ValueError(f"{path}:{n}: domain must be telecom|ecommerce and lang en|zh")
        out.append(question)
    return out


def score(
    questions: list[Question], ranked: list[list[tuple[str, float]]], answer_at: float | dict[str, float]
) -> dict[str, Any]:
    """Metrics of ranked (entry id, score) lists, one per question, overall and per language and domain;
    `answer_at`: the threshold of a direct answer, or one per language."""

    def at(q: Question) -> float:
        return answer_at[q.lang] if isinstance(answer_at, dict) else answer_at

    groups: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(questions):
        for key in ("all", q.lang, f"{q.domain}/{q.lang}", *((f"{q.split}/{q.lang}",) if q.split else ())):
            groups[key].append(i)
    result: dict[str, Any] = {}
    for key, idx in sorted(groups.items()):
        answerable = [i for i in idx if questions[i].entry_ids]
        ranks = [_rank(ranked[i], questions[i].entry_ids) for i in answerable]
        confident = [i for i in answerable if ranked[i] and ranked[i][0][1] >= at(questions[i])]
        right = [i for i in confident if ranked[i][0][0] in questions[i].entry_ids]
        unanswerable = [i for i in idx if not questions[i].entry_ids]
        false_answers = [i for i in unanswerable if ranked[i] and ranked[i][0][1] >= at(questions[i])]
        n = max(1, len(answerable))
        result[key] = {
            "n": len(answerable),
            "n_unanswerable": len(unanswerable),
            "recall_at_1": round(sum(r == 1 for r in ranks) / n, 4),
            "recall_at_5": round(sum(r is not None and r <= 5 for r in ranks) / n, 4),
            "mrr": round(sum(1 / r for r in ranks if r) / n, 4),
            "answered": round(len(confident) / n, 4),
            "answer_precision": round(len(right) / max(1, len(confident)), 4),
            "unanswerable_answered": round(len(false_answers) / max(1, len(unanswerable)), 4),
        }
    return result


def _rank(ranked: list[tuple[str, float]], gold: tuple[str, ...]) -> int | None:
    for position, (entry_id, _) in enumerate(ranked, 1):
        if entry_id in gold:
            return position
    return None


def run_eval(
    data: Path, settings: Settings, json_out: Path | None, lexical: bool = False, misses: int = 0
) -> int:
    from serve.knowledge.base import KnowledgeBase
    from serve.knowledge.entries import KNOWLEDGE_DIR
    from serve.router.loading import load_router

    one_blas_thread()
    questions = load_questions(data)
    embed = space = None
    readings: list[Any] = [None] * len(questions)
    if not lexical:
        chain, notes = load_router(settings)
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        embed, space = chain.vector_model() or (None, None)
        readings = read_all(chain, [q.text for q in questions])
    semantic = load_semantic(settings.cache_dir, settings.knowledge.semantic_search and not lexical)
    base = KnowledgeBase.load(
        settings.knowledge.path or KNOWLEDGE_DIR, embed, space, settings.vectors_dir, semantic
    )
    known = {
        (e.domain, e.lang, e.id)
        for d in ("telecom", "ecommerce")
        for lang in ("en", "zh")
        for e in base.entries(d, lang)
    } | {
        (e.domain, lang, e.id)
        for d in ("telecom", "ecommerce")
        for lang in ("en", "zh")
        for e in base.entries(d, _other(lang))
    }
    unknown = [
        (q.domain, q.lang, i) for q in questions for i in q.entry_ids if (q.domain, q.lang, i) not in known
    ]
    if unknown:
        print(
            f"csreply eval kb: {len(unknown)} entry ids in {data} are not in the knowledge base, e.g. "
            f"{unknown[:3]}",
            file=sys.stderr,
        )
        return 2
    started = time.perf_counter()
    ranked = []
    for q, reading in zip(questions, readings, strict=True):
        vector = reading.embedding if reading is not None else None
        intents = {r.label: r.confidence for r in reading.ranking} if reading is not None else None
        hits = base.search(q.domain, q.lang, strip_wrapping(q.text) or q.text, vector, k=5, intents=intents)
        ranked.append([(h.entry.id, h.score) for h in hits])
    search_ms = (time.perf_counter() - started) * 1000 / max(1, len(questions))
    answer_at = settings.knowledge.answer_min_score
    result = {
        "data": str(data),
        "dense": base.dense,
        "answer_min_score": answer_at,
        "knowledge_digest": base.digest,
        "search_ms_mean": round(search_ms, 3),
        **score(questions, ranked, answer_at),
    }
    _print_table(
        f"knowledge base {base.digest} ({base.size} entries, {'hybrid' if base.dense else 'lexical only'}), "
        f"{len(questions)} messages from {data}; direct answer at score >= {answer_at}",
        result,
    )
    print(f"search: {search_ms:.2f} ms per message (after encoding)")
    _print_misses(questions, ranked, misses)
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    return 0


def read_all(router: Any, texts: list[str], batch: int = 32) -> list[Any]:
    """The router's reading (intent ranking and sentence vector) of every text, as the server gets it."""
    import asyncio

    async def run() -> list[Any]:
        out: list[Any] = []
        for start in range(0, len(texts), batch):
            out += await router.classify(texts[start : start + batch], top_k=5)
        await router.aclose()
        return out

    return asyncio.run(run())


def run_bank_eval(
    data: Path, settings: Settings, json_out: Path | None, lexical: bool = False, misses: int = 0
) -> int:
    """`csreply eval bank`: the reply selector on `{"text", "domain", "lang", "reply_ids": [...]}` messages,
    with the selection threshold (`reply.select_min_score`) as the server applies it."""
    from serve.prompts import PROMPTS_DIR, PromptLibrary
    from serve.reply_bank import ReplySelector
    from serve.router.loading import load_router

    one_blas_thread()
    questions = load_questions(data, "reply_ids")
    library = PromptLibrary.load(settings.prompts_dir or PROMPTS_DIR)
    known = {(d, lang, r.id) for (d, lang) in library.banks for r in library.bank(d, lang)}
    unknown = [
        (q.domain, q.lang, i) for q in questions for i in q.entry_ids if (q.domain, q.lang, i) not in known
    ]
    if unknown:
        print(
            f"csreply eval bank: {len(unknown)} reply ids in {data} are not in the bank, e.g. {unknown[:3]}",
            file=sys.stderr,
        )
        return 2
    embed = space = None
    readings: list[Any] = [None] * len(questions)
    if not lexical:
        chain, notes = load_router(settings)
        embed, space = chain.vector_model() or (None, None)
        readings = read_all(chain, [q.text for q in questions])
    semantic = load_semantic(settings.cache_dir, settings.knowledge.semantic_search and not lexical)
    selector = ReplySelector(library, embed, space, settings.vectors_dir, semantic)
    ranked = []
    for q, reading in zip(questions, readings, strict=True):
        found = selector.candidates(q.domain, q.lang, strip_wrapping(q.text) or q.text, reading, k=5)
        ranked.append([(c.reply.id, c.score) for c in found])
    threshold = {str(lang): score_at for lang, score_at in settings.reply.select_min_score.items()}
    result = {
        "data": str(data),
        "dense": selector.dense,
        "select_min_score": threshold,
        **score(questions, ranked, threshold),
    }
    _print_table(
        f"reply bank ({selector.size} replies, {'hybrid' if selector.dense else 'lexical only'}), "
        f"{len(questions)} messages from {data}; selected at score >= {threshold}",
        result,
    )
    _print_misses(questions, ranked, misses)
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    return 0


def _print_table(title: str, result: dict[str, Any]) -> None:
    print(title)
    print(
        f"{'set':<16}{'n':>5}{'R@1':>8}{'R@5':>8}{'MRR':>8}{'answered':>10}{'right':>8}{'n/a':>6}"
        f"{'n/a answered':>14}"
    )
    # the metric groups (dicts with 'n'), not the settings recorded beside them (select_min_score)
    for key in [k for k in result if isinstance(result[k], dict) and "n" in result[k]]:
        m = result[key]
        print(
            f"{key:<16}{m['n']:>5}{m['recall_at_1']:>8.3f}{m['recall_at_5']:>8.3f}{m['mrr']:>8.3f}"
            f"{m['answered']:>10.3f}{m['answer_precision']:>8.3f}{m['n_unanswerable']:>6}"
            f"{m['unanswerable_answered']:>14.3f}"
        )


def _print_misses(questions: list[Question], ranked: list[list[tuple[str, float]]], misses: int) -> None:
    shown = 0
    for q, r in zip(questions, ranked, strict=True):
        if q.entry_ids and (not r or r[0][0] not in q.entry_ids) and shown < misses:
            print(f"  miss [{q.domain}/{q.lang}] {q.text[:90]!r}: want {list(q.entry_ids)}, got {r[:2]}")
            shown += 1


def _other(lang: str) -> str:
    return "zh" if lang == "en" else "en"
