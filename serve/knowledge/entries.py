"""Knowledge-base files: `knowledge/<domain>/<lang>/<topic>.yaml`, each a list of entries (id, title, example
questions, text, optional intents, tags and valid_until). Loading validates everything and names the file
and entry of every problem; an entry past its `valid_until` date is left out (and counted), not an error.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from jinja2 import TemplateError
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from serve.resources import data_dir
from serve.sandbox import compiled
from serve.taxonomy import DOMAINS, INTENTS
from serve.yamlfile import read_yaml

KNOWLEDGE_DIR = data_dir("knowledge")  # the checkout's knowledge/, or the wheel's copy (serve/resources.py)
LANGS = ("en", "zh")
_ID = r"^[a-z0-9]+(-[a-z0-9]+)*$"
# Sentences of an entry's text: a reply is at most three, so longer entries are shortened to the question.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")


class KnowledgeError(ValueError):
    """The knowledge base is invalid; the message lists every problem with file and entry."""


class EntryModel(BaseModel):
    # a tag or question that YAML reads as a number ("618", "11.11") is still text
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)
    id: str = Field(pattern=_ID, max_length=80)
    title: str = Field(min_length=1, max_length=200)
    text: str = Field(min_length=1, max_length=2000)
    questions: list[str] = Field(default_factory=list, max_length=20)
    intents: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    valid_until: dt.date | None = None

    @field_validator("questions", "tags", "title", "text", mode="before")
    @classmethod
    def _no_yaml_booleans(cls, value: object) -> object:
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, bool) for v in values):
            raise ValueError(
                "YAML reads a bare yes/no/on/off/true/false as a boolean: put the word in quotes"
            )
        return value


class FileModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int = Field(1, ge=1, le=1)
    domain: str
    lang: str
    entries: list[Any] = Field(default_factory=list)  # each validated on its own: every bad entry is reported


@dataclass(frozen=True, slots=True)
class Entry:
    id: str
    domain: str
    lang: str
    title: str
    text: str
    questions: tuple[str, ...]
    intents: tuple[str, ...]
    tags: tuple[str, ...]
    valid_until: dt.date | None
    source: str  # file relative to the knowledge root, for messages and `kb check`


@dataclass(frozen=True, slots=True)
class LoadedEntries:
    entries: tuple[Entry, ...]
    expired: tuple[Entry, ...]
    digest: str  # sha256 of every file's path and bytes: the knowledge base's version
    files: int


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def load_entries(root: Path = KNOWLEDGE_DIR, today: dt.date | None = None) -> LoadedEntries:
    """Every entry under `root`; raises KnowledgeError listing all problems (file, entry, field)."""
    today = today or dt.date.today()
    if not root.is_dir():
        raise KnowledgeError(f"knowledge base folder not found: {root}")
    problems: list[str] = []
    entries: list[Entry] = []
    expired: list[Entry] = []
    digest = hashlib.sha256()
    files = sorted(root.glob("*/*/*.yaml"))
    seen: dict[tuple[str, str, str], str] = {}
    for path in files:
        rel = path.relative_to(root).as_posix()
        raw = path.read_bytes()
        digest.update(rel.encode() + b"\0" + raw + b"\0")
        model = _parse(rel, raw, problems)
        if model is None:
            continue
        folder_domain, folder_lang = path.parent.parent.name, path.parent.name
        if (model.domain, model.lang) != (folder_domain, folder_lang):
            problems.append(
                f"{rel}: declares {model.domain}/{model.lang} but lies in {folder_domain}/{folder_lang}/"
            )
        for i, raw_entry in enumerate(model.entries):
            e = _entry(rel, i, raw_entry, problems)
            if e is None:
                continue
            where = f"{rel}: entries[{i}] (id {e.id})"
            problems += [f"{where}: {p}" for p in _entry_problems(e)]
            key = (model.domain, model.lang, e.id)
            if key in seen:
                problems.append(f"{where}: id {e.id!r} is also used in {seen[key]}")
            seen[key] = rel
            entry = Entry(
                e.id,
                model.domain,
                model.lang,
                e.title.strip(),
                " ".join(e.text.split()),
                tuple(q.strip() for q in e.questions if q.strip()),
                tuple(e.intents),
                tuple(e.tags),
                e.valid_until,
                rel,
            )
            (expired if e.valid_until is not None and e.valid_until < today else entries).append(entry)
    for path in sorted(set(root.rglob("*")) - set(files)):
        if path.is_file() and path.suffix in (".yml", ".yaml", ".md", ".json"):
            problems.append(
                f"{path.relative_to(root).as_posix()}: not read: entries go in <domain>/<lang>/<topic>.yaml"
            )
    if problems:
        raise KnowledgeError(
            f"invalid knowledge base ({len(problems)} problems):\n  " + "\n  ".join(problems)
        )
    return LoadedEntries(tuple(entries), tuple(expired), digest.hexdigest()[:16], len(files))


def _parse(rel: str, raw: bytes, problems: list[str]) -> FileModel | None:
    try:
        data = read_yaml(raw.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        problems.append(f"{rel}: not valid YAML: {exc}")
        return None
    try:
        model = FileModel.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            problems.append(f"{rel}: {'.'.join(str(p) for p in err['loc']) or '(file)'}: {err['msg']}")
        return None
    if model.domain not in DOMAINS:
        problems.append(f"{rel}: domain must be one of {', '.join(DOMAINS)} (got {model.domain!r})")
    if model.lang not in LANGS:
        problems.append(f"{rel}: lang must be one of {', '.join(LANGS)} (got {model.lang!r})")
    return model


def _entry(rel: str, index: int, raw: Any, problems: list[str]) -> EntryModel | None:
    try:
        return EntryModel.model_validate(raw)
    except ValidationError as exc:
        entry_id = raw.get("id") if isinstance(raw, dict) else None
        where = f"{rel}: entries[{index}]" + (f" (id {entry_id})" if entry_id else "")
        for err in exc.errors():
            problems.append(f"{where}: {'.'.join(str(p) for p in err['loc']) or '(entry)'}: {err['msg']}")
        return None


def _entry_problems(e: EntryModel) -> list[str]:
    problems = [f"intents: unknown intent {i!r}" for i in e.intents if i not in INTENTS]
    if "{{" in e.text or "{%" in e.text:
        try:
            template = compiled(e.text)
            for context in ({}, {"name": "A", "order_id": "1", "plan": "P", "balance": "1"}):
                template.render(context=context, company="X")
        except TemplateError as exc:
            problems.append(f"text: template error ({exc}); guard context fields with `is defined`")
    return problems


def render(entry: Entry, company: str, context: dict[str, str]) -> str:
    """The entry's text with its slots filled from the customer facts (sandboxed, like the prompts)."""
    if "{{" not in entry.text and "{%" not in entry.text:
        return entry.text
    return " ".join(compiled(entry.text).render(context=context, company=company).split())
