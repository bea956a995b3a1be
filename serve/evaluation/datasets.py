"""Labelled data files: router data `{"text", "intent", "lang"}` per line (DESIGN.md section 5)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from serve.router.encoding import detect_lang
from serve.taxonomy import INTENT_INDEX


@dataclass(frozen=True, slots=True)
class Example:
    text: str
    intent: str
    lang: str
    source: str = ""  # where the row came from (a file's `source` field); eval breaks metrics down by it


def load_intent_jsonl(path: Path) -> list[Example]:
    """Rows without a taxonomy intent (`null`) are skipped; malformed lines and unknown intents are errors."""
    examples = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                text, intent = str(row["text"]), row.get("intent")
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}:{n}: not a {{text, intent, lang}} object ({exc})") from exc
            if intent is None:
                continue
            if intent not in INTENT_INDEX:
                raise ValueError(f"{path}:{n}: unknown intent {intent!r}")
            examples.append(Example(text, intent, str(row.get("lang") or detect_lang(text)), str(row.get("source") or "")))
    return examples
