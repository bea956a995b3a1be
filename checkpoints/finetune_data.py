"""Training conversations for `finetune-llm`, rendered exactly as the reply pipeline renders a request.

A record (data/finetune/*.jsonl): {"domain", "lang", "intent", "context", "history", "message", "reply"}.
The prompt is the pipeline's: PromptLibrary.system_prompt(domain, lang, intent, context) as the system
message, then the history, then the customer's message, through the model's chat template with the
generation prompt; the target is the reply followed by the template's end-of-turn token. Loss is taken on
the target only.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from serve.evaluation.datasets import jsonl_rows
from serve.generation.base import ChatMessage
from serve.prompts import PromptLibrary
from serve.taxonomy import DOMAINS, INTENTS

FIELDS = ("domain", "lang", "intent", "context", "history", "message", "reply")


@dataclass(frozen=True)
class Conversation:
    domain: str
    lang: str
    intent: str
    message: str
    reply: str
    context: dict[str, Any] = field(default_factory=dict)
    history: tuple[ChatMessage, ...] = ()
    must_include: tuple[str, ...] = ()
    origin: str = ""  # file:line, for messages

    def messages(self, library: PromptLibrary) -> tuple[ChatMessage, ...]:
        system = ChatMessage(
            "system", library.system_prompt(self.domain, self.lang, self.intent, self.context)
        )
        return (system, *self.history, ChatMessage("user", self.message))

    @property
    def key(self) -> str:
        """Stable identity for the held-out split (same conversation, same side, whatever the file order)."""
        blob = json.dumps(
            [self.domain, self.lang, self.message, [m.content for m in self.history]], ensure_ascii=False
        )
        return hashlib.sha256(blob.encode()).hexdigest()


def parse_record(row: Any, origin: str) -> Conversation:
    problems = []
    if not isinstance(row, dict):
        raise ValueError(f"{origin}: not a JSON object")
    missing = [f for f in ("domain", "lang", "intent", "message", "reply") if f not in row]
    if missing:
        problems.append(f"missing {', '.join(missing)}")
    if row.get("domain") not in DOMAINS:
        problems.append(f"domain must be one of {DOMAINS}")
    if row.get("lang") not in ("en", "zh"):
        problems.append("lang must be en or zh")
    if row.get("intent") not in INTENTS:
        problems.append(f"unknown intent {row.get('intent')!r}")
    for name in ("message", "reply"):
        if not isinstance(row.get(name), str) or not row.get(name, "").strip():
            problems.append(f"{name} must be a non-empty string")
    context = row.get("context") or {}
    if not isinstance(context, dict):
        problems.append("context must be an object")
    history = row.get("history") or []
    if not isinstance(history, list) or any(
        not isinstance(m, dict)
        or m.get("role") not in ("user", "assistant")
        or not isinstance(m.get("content"), str)
        for m in history
    ):
        problems.append("history must be a list of {role: user|assistant, content}")
    if problems:
        raise ValueError(f"{origin}: " + "; ".join(problems))
    return Conversation(
        domain=row["domain"],
        lang=row["lang"],
        intent=row["intent"],
        message=row["message"],
        reply=row["reply"],
        context=dict(context),
        history=tuple(ChatMessage(m["role"], m["content"]) for m in history),
        must_include=tuple(row.get("must_include") or ()),
        origin=origin,
    )


def load_conversations(files: list[Path]) -> list[Conversation]:
    return [parse_record(row, f"{path.name}:{n}") for path in files for n, row in jsonl_rows(path)]


def split_heldout(
    conversations: list[Conversation], fraction: float, seed: int
) -> tuple[list[Conversation], list[Conversation]]:
    """Deterministic split by conversation content hash; duplicates land on the same side."""
    train: list[Conversation] = []
    heldout: list[Conversation] = []
    for conv in conversations:
        bucket = int(hashlib.sha256(f"{seed}:{conv.key}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        (heldout if bucket < fraction else train).append(conv)
    return train, heldout


def from_reply_case(case: Any) -> Conversation | None:
    """A reply case (serve/evaluation/reply_cases.py) as an evaluation conversation; None without intent."""
    if not case.intent or not case.reference:
        return None
    *history, last = case.messages
    return Conversation(
        domain=case.domain,
        lang=case.lang,
        intent=case.intent,
        message=last["content"],
        reply=case.reference,
        context=dict(case.context),
        history=tuple(ChatMessage(m["role"], m["content"]) for m in history),
        must_include=tuple(case.must_include),
        origin="case",
    )


@dataclass
class Encoded:
    input_ids: list[int]
    labels: list[int]


def end_of_turn(tokenizer: Any) -> list[int]:
    """The ids the chat template puts after an assistant message, up to its first special token."""
    marker = "CSREPLY_END_MARKER"
    rendered = tokenizer.apply_chat_template(
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": marker}], tokenize=False
    )
    tail_ids = tokenizer(rendered.split(marker, 1)[-1], add_special_tokens=False)["input_ids"]
    special = set(tokenizer.all_special_ids)
    for i, token in enumerate(tail_ids):
        if token in special:
            return list(tail_ids[: i + 1])
    return [tokenizer.eos_token_id]


def encode(
    conv: Conversation, library: PromptLibrary, chat: Any, eot: list[int], max_len: int
) -> Encoded | None:
    """Prompt ids exactly as the generator encodes them (chat.encode), then reply + end of turn; None
    when longer than max_len."""
    prompt = chat.encode(conv.messages(library))
    target = list(chat.tokenizer(conv.reply, add_special_tokens=False)["input_ids"]) + eot
    if len(prompt) + len(target) > max_len:
        return None
    return Encoded(prompt + target, [-100] * len(prompt) + target)
