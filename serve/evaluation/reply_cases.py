"""Reply cases: one JSON object per line, {"messages": [{"role", "content"}...], "domain", "lang",
"context"?, "reference"?, "intent"?, "must_include"?, "must_not_include"?, "expect_handoff"?}.

The last message is the customer's; earlier ones are the history. Any other field (`source`, `brand`,
`id`, ...) is kept as metadata, so results can be broken down by it. Real conversations collected from
other brands may carry `"domain": "other"` (an app, a travel site): `load_cases` skips them, or runs them as
one of the two domains when asked (`other_domain`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serve.evaluation.datasets import jsonl_rows

KNOWN = (
    "messages",
    "domain",
    "lang",
    "context",
    "reference",
    "intent",
    "must_include",
    "must_not_include",
    "expect_handoff",
)
DOMAINS = ("telecom", "ecommerce")
LANGS = ("en", "zh")


@dataclass
class ReplyCase:
    messages: list[dict[str, str]]
    domain: str
    lang: str
    context: dict[str, Any] = field(default_factory=dict)
    reference: str | None = None
    intent: str | None = None
    must_include: list[str] = field(default_factory=list)
    must_not_include: list[str] = field(default_factory=list)
    expect_handoff: bool | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def message(self) -> str:
        return self.messages[-1]["content"]

    def payload(self, auto_lang: bool = False) -> dict[str, Any]:
        """The /v1/reply body; `auto_lang`: let the server find the language, as real traffic does."""
        *history, _ = self.messages
        body: dict[str, Any] = {
            "domain": self.domain,
            "lang": "auto" if auto_lang else self.lang,
            "message": self.message,
            "history": history,
            "stream": False,
        }
        if self.context:
            body["context"] = self.context
        return body


def parse_case(row: dict[str, Any], where: str) -> ReplyCase:
    if not isinstance(row, dict):
        raise ValueError(f"{where}: not a JSON object")
    known = {k: row[k] for k in KNOWN if k in row}
    meta = {k: v for k, v in row.items() if k not in KNOWN}
    try:
        case = ReplyCase(**known, meta=meta)
    except TypeError as exc:
        raise ValueError(f"{where}: not a reply case ({exc})") from exc
    problems = []
    if not isinstance(case.messages, list) or not case.messages:
        problems.append("messages must be a non-empty list")
    elif any(
        not isinstance(m, dict)
        or m.get("role") not in ("user", "assistant")
        or not isinstance(m.get("content"), str)
        or not m["content"].strip()
        for m in case.messages
    ):
        problems.append("every message needs role user/assistant and non-empty content")
    elif case.messages[-1]["role"] != "user":
        problems.append("the last message must be the customer's (role user)")
    if case.domain not in DOMAINS:
        problems.append(f"domain must be one of {DOMAINS}")
    if case.lang not in LANGS:
        problems.append(f"lang must be one of {LANGS}")
    if not isinstance(case.context, dict):
        problems.append("context must be an object")
    for name in ("must_include", "must_not_include"):
        value = getattr(case, name)
        if not isinstance(value, list) or not all(isinstance(s, str) and s for s in value):
            problems.append(f"{name} must be a list of non-empty strings")
    if problems:
        raise ValueError(f"{where}: " + "; ".join(problems))
    return case


def load_cases(path: Path, other_domain: str | None = None) -> tuple[list[ReplyCase], int]:
    """The cases, and how many `"domain": "other"` rows were skipped (none when `other_domain` maps them)."""
    cases, skipped = [], 0
    for n, row in jsonl_rows(path):
        if isinstance(row, dict) and row.get("domain") == "other":
            if other_domain is None:
                skipped += 1
                continue
            row = {**row, "domain": other_domain, "domain_source": "other"}
        cases.append(parse_case(row, f"{path}:{n}"))
    return cases, skipped
