"""Judging replies by hand (or by a separate judge) with the six-point reply rubric, blind to the route.

`csreply eval replies ... --sample N --seed S --judge-packet P.jsonl` draws N cases per language, answers
them, and writes a packet of {id, lang, conversation, reply} (nothing about intent or route) plus a key beside
it (P.key.jsonl) that links each id to the case and its route. Judges return one verdict per id:
{"id", "acceptable": true|false, "point": 1-6 (the first rubric point a reply fails; null when acceptable),
"note"?}. `csreply eval judged KEY VERDICTS [VERDICTS2]` then reports the acceptable rate and the failures per
point, per language and per route, and how often two judges agree.

The rubric's points: 1 answers this message; 2 no invented facts; 3 a sensible next step; 4 the customer's
language; 5 fits the turn; 6 readable (one to three sentences, no repetition, no half sentence)."""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from serve.evaluation.datasets import jsonl_rows
from serve.evaluation.reply_cases import ReplyCase

POINTS = {
    1: "answers this message",
    2: "no invented facts",
    3: "sensible next step",
    4: "customer's language",
    5: "fits the turn",
    6: "readable",
}


def sample_cases(cases: list[ReplyCase], per_language: int, seed: int) -> list[ReplyCase]:
    """`per_language` cases of each language, drawn at random with `seed` (all of a language if fewer)."""
    rng = random.Random(seed)
    out: list[ReplyCase] = []
    for lang in sorted({c.lang for c in cases}):
        pool = [c for c in cases if c.lang == lang]
        out += rng.sample(pool, min(per_language, len(pool)))
    return out


def key_path(packet: Path) -> Path:
    return packet.with_name(packet.stem + ".key.jsonl")


def write_packet(cases: list[ReplyCase], rows: list[dict[str, Any]], packet: Path, seed: int) -> None:
    """The blind packet (shuffled, so neighbouring ids say nothing about route or source) and its key."""
    order = list(range(len(rows)))
    random.Random(seed + 1).shuffle(order)
    packet.parent.mkdir(parents=True, exist_ok=True)
    with packet.open("w", encoding="utf-8") as blind, key_path(packet).open("w", encoding="utf-8") as key:
        for n, i in enumerate(order, 1):
            case, row = cases[i], rows[i]
            item_id = f"j{n:04d}"
            blind.write(
                json.dumps(
                    {
                        "id": item_id,
                        "lang": case.lang,
                        "conversation": case.messages,
                        "reply": row.get("reply", ""),
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
            key.write(
                json.dumps(
                    {
                        "id": item_id,
                        "case": case.meta.get("id"),
                        "domain": case.domain,
                        "lang": case.lang,
                        "route": row.get("route"),
                        "reason": row.get("reason"),
                        "intent": row.get("intent"),
                        "brand": case.meta.get("brand"),
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )


def read_verdicts(path: Path) -> dict[str, dict[str, Any]]:
    verdicts: dict[str, dict[str, Any]] = {}
    for n, row in jsonl_rows(path):
        if not isinstance(row, dict) or "id" not in row or not isinstance(row.get("acceptable"), bool):
            raise ValueError(f"{path}:{n}: a verdict needs `id` and `acceptable` (true/false)")
        point = row.get("point")
        if not row["acceptable"] and point not in POINTS:
            raise ValueError(
                f"{path}:{n}: an unacceptable reply needs `point`, the first rubric point it fails (1-6)"
            )
        verdicts[str(row["id"])] = row
    return verdicts


def summarize_judgements(
    key: list[dict[str, Any]],
    verdicts: dict[str, dict[str, Any]],
    second: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    judged = [k for k in key if k["id"] in verdicts]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for k in judged:
        groups["all"].append(k)
        groups[f"lang {k['lang']}"].append(k)
        groups[f"route {k['route']}"].append(k)
        groups[f"{k['domain']} / {k['lang']}"].append(k)
    table: dict[str, Any] = {}
    for name, items in sorted(groups.items()):
        ok = sum(1 for k in items if verdicts[k["id"]]["acceptable"])
        failed = Counter(
            int(verdicts[k["id"]]["point"]) for k in items if not verdicts[k["id"]]["acceptable"]
        )
        table[name] = {
            "n": len(items),
            "acceptable": ok,
            "acceptable_rate": round(ok / len(items), 4),
            "failed_by_point": {str(p): failed.get(p, 0) for p in POINTS},
        }
    result: dict[str, Any] = {"judged": len(judged), "groups": table}
    if second is not None:
        both = [k["id"] for k in key if k["id"] in verdicts and k["id"] in second]
        same = sum(1 for i in both if verdicts[i]["acceptable"] == second[i]["acceptable"])
        result["agreement"] = {
            "n": len(both),
            "same_verdict": same,
            "rate": round(same / len(both), 4) if both else None,
        }
    return result


def print_judgements(result: dict[str, Any]) -> None:
    print(f"{result['judged']} judged replies")
    print(f"{'group':26}{'n':>5}{'acceptable':>12}  failed by point " + " ".join(f"{p}" for p in POINTS))
    for name, m in result["groups"].items():
        points = " ".join(f"{m['failed_by_point'][str(p)]:>1}" for p in POINTS)
        print(f"{name:26}{m['n']:>5}{100 * m['acceptable_rate']:>11.1f}%  {points}")
    if "agreement" in result:
        a = result["agreement"]
        print(f"two judges agree on {a['same_verdict']} of {a['n']} replies ({100 * (a['rate'] or 0):.1f}%)")
    print("points: " + "; ".join(f"{p} {name}" for p, name in POINTS.items()))


def run_judged(key_file: Path, verdict_file: Path, second_file: Path | None, json_out: Path | None) -> int:
    key = [row for _, row in jsonl_rows(key_file)]
    result = summarize_judgements(
        key, read_verdicts(verdict_file), read_verdicts(second_file) if second_file else None
    )
    print_judgements(result)
    if json_out is not None:
        json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    return 0
