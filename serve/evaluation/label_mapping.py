"""Foreign labels onto the 25 intents: a label-mapping CSV and a loader for JSONL files labelled elsewhere.

Used to evaluate on sets labelled with another scheme (Banking77, CLINC150, Bitext ...) and, in a router
build config, to train on an operator's own logs. The CSV needs a source-label column (`source_label` or
`label`) and a target column (`target_intent` or `intent`); an optional `dataset` column lets one file map
several sets. A source label starting with `*` is the catch-all for labels the file does not list; a target
that is empty, `null` or not an intent (e.g. "a or b") means: no place in the taxonomy, skip the row.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from serve.evaluation.datasets import Example, jsonl_rows
from serve.router.encoding import detect_lang
from serve.taxonomy import INTENT_INDEX

_SOURCE_COLUMNS = ("source_label", "label")
_TARGET_COLUMNS = ("target_intent", "intent")


@dataclass(frozen=True, slots=True)
class LabelMapping:
    table: dict[str, str | None]  # source label -> intent, or None: skip
    default: str | None = None  # for labels not in the table (a `*` row); None: unknown labels are errors
    has_default: bool = False

    def intent_for(self, label: str) -> str | None:
        """The intent for `label`, None to skip it; KeyError when the mapping does not cover it."""
        if label in self.table:
            return self.table[label]
        if self.has_default:
            return self.default
        raise KeyError(label)


def _column(header: list[str], names: tuple[str, ...], path: Path) -> str:
    for name in names:
        if name in header:
            return name
    raise ValueError(f"{path}: needs a column named {' or '.join(names)} (has {', '.join(header)})")


def load_label_mapping(path: Path, dataset: str | None = None) -> LabelMapping:
    """The mapping in `path`, restricted to the rows of `dataset` when the CSV has a `dataset` column."""
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        header = list(reader.fieldnames or [])
        source_col, target_col = (
            _column(header, _SOURCE_COLUMNS, path),
            _column(header, _TARGET_COLUMNS, path),
        )
        if dataset is not None and "dataset" not in header:
            raise ValueError(f"{path}: a dataset ({dataset!r}) was named but the CSV has no dataset column")
        table: dict[str, str | None] = {}
        default, has_default = None, False
        for row in reader:
            if dataset is not None and row["dataset"].strip() != dataset:
                continue
            source, target = row[source_col].strip(), row[target_col].strip()
            intent = target if target in INTENT_INDEX else None
            if source.startswith("*"):
                default, has_default = intent, True
            else:
                table[source] = intent
    if not table and not has_default:
        where = f" for dataset {dataset!r}" if dataset else ""
        raise ValueError(f"{path}: no mapping rows{where}")
    return LabelMapping(table, default, has_default)


def load_mapped_jsonl(
    path: Path,
    mapping: LabelMapping,
    label_field: str = "label",
    lang: str | None = None,
    source: str | None = None,
    source_field: str = "source",
) -> list[Example]:
    """Rows `{"text", <label_field>, ["lang"]}` with their labels mapped; rows mapped to no intent are
    skipped. Labels the mapping does not cover are an error that lists them (a silent skip would hide a
    typo)."""
    examples: list[Example] = []
    unknown: dict[str, int] = {}
    for n, row in jsonl_rows(path):
        try:
            text, label = str(row["text"]), str(row[label_field])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not a {{text, {label_field}}} object ({exc})") from exc
        try:
            intent = mapping.intent_for(label)
        except KeyError:
            unknown[label] = unknown.get(label, 0) + 1
            continue
        if intent is not None:
            row_lang = lang or str(row.get("lang") or detect_lang(text))
            examples.append(Example(text, intent, row_lang, source or str(row.get(source_field) or "")))
    if unknown:
        listed = ", ".join(f"{k} ({v})" for k, v in sorted(unknown.items())[:10])
        raise ValueError(f"{path}: {len(unknown)} labels are not in the label mapping: {listed}")
    return examples
