"""Labelled data files: router data `{"text", "intent", "lang"}` per line (DESIGN.md section 5)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from serve.router.encoding import detect_lang
from serve.taxonomy import INTENT_INDEX


@dataclass(frozen=True, slots=True)
class Example:
    text: str
    intent: str
    lang: str
    source: str = ""  # where the row came from (a file's `source` field); eval breaks metrics down by it


def text_key(text: str) -> str:
    """Case, spaces and punctuation ignored: the router build's duplicate test and the inbox's grouping key.
    A message of symbols alone ("???", "👍👍") is its own key, not "" (otherwise every emoji-only message
    would count as a duplicate of every other)."""
    return re.sub(r"[\W_]+", "", text.lower()) or re.sub(r"\s+", "", text)


def jsonl_rows(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) of each non-blank line of a JSONL file; a line that is not JSON is an
    error naming the file and line."""
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{n}: not JSON ({exc})") from exc
            yield n, row


def load_intent_jsonl(path: Path, source_field: str = "source") -> list[Example]:
    """Rows without an intent (null or empty) are skipped and counted on stderr; malformed lines and unknown
    intents are errors naming the line. The router build reads its `extra_data` files through this.
    `source_field`: the field that names where a row came from (reports break metrics down by it)."""
    examples, unlabelled = read_intent_jsonl(path, source_field)
    if unlabelled:
        print(f"{path}: {unlabelled} rows without an intent were skipped", file=sys.stderr)
    return examples


def read_intent_jsonl(path: Path, source_field: str = "source") -> tuple[list[Example], int]:
    """The labelled rows and how many rows were left unlabelled (`intent` null, missing or empty: a labelling
    file exported from the feedback inbox keeps the rows nobody has labelled yet)."""
    examples, unlabelled = [], 0
    for n, row in jsonl_rows(path):
        try:
            text, intent = str(row["text"]), row.get("intent")
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path}:{n}: not a {{text, intent, lang}} object ({exc})") from exc
        if intent is None or (isinstance(intent, str) and not intent.strip()):
            unlabelled += 1
            continue
        if intent not in INTENT_INDEX:
            raise ValueError(f"{path}:{n}: unknown intent {intent!r}")
        lang = str(row.get("lang") or detect_lang(text))
        examples.append(Example(text, intent, lang, str(row.get(source_field) or "")))
    return examples, unlabelled
