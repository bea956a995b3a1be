"""The files of the prompt library as data: the manifest, a domain's prompt file per language and its
reply bank, each validated as it is read (every problem listed with file and field). serve/prompts.py
renders them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from serve.yamlfile import read_yaml

Route = Literal["llm", "canned", "clarify", "handoff", "template", "knowledge", "selected", "act"]


class PromptConfigError(ValueError):
    """The prompt library is inconsistent; the message lists every problem with file and field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class IntentPrompts(_Strict):
    guidance: str = Field(min_length=1)
    reply: str = Field(min_length=1)  # template reply (Jinja): languages the generator does not write
    canned: str | None = None  # sent verbatim for canned routes
    # sent verbatim instead when the customer has already given their order or phone number (or sent the
    # details privately), so the locked reply does not ask for them again
    canned_given: str | None = None
    clarify: str | None = None
    # Generated replies open with this (Jinja; empty when the context lacks the facts): the customer facts
    # that answer the intent, stated by the template, so a small model cannot leave them out or alter them.
    lead: str | None = None


class ActReplies(_Strict):
    """Replies to conversation acts (serve/acts.py), Jinja with `topic` (the open topic's name, or ""),
    `reference` and `reference_label`."""

    thanks: str = Field(min_length=1)
    acknowledgement: str = Field(min_length=1)
    waiting: str = Field(min_length=1)  # "ok" after we asked the customer for something
    after_handoff: str = Field(min_length=1)  # "ok" or "thanks" after the conversation went to a person
    reference_open: str = Field(min_length=1)  # a bare reference inside a conversation about a topic
    reference_new: str = Field(min_length=1)  # a bare reference with nothing before it
    resolved: str = Field(min_length=1)  # "it's working now": glad it is solved, thanks for telling us
    feedback: str = Field(min_length=1)  # a short remark or wish ending in thanks: recorded and passed on
    reference_labels: dict[Literal["order", "tracking", "phone"], str]


class PromptFile(_Strict):
    version: Literal[1]
    domain: Literal["telecom", "ecommerce"]
    lang: Literal["en", "zh"]
    company: str = Field(min_length=1)
    system: str = Field(min_length=1)
    clarify: str = Field(min_length=1)  # "is this about {{ options[0] }} or {{ options[1] }}?"
    clarify_open: str = Field(min_length=1)  # no two likely topics: ask what the customer needs
    general: str = Field(
        min_length=1
    )  # nothing specific fits a long message: acknowledge, ask for the detail
    handoff: str = Field(min_length=1)
    intent_names: dict[str, str]
    intents: dict[str, IntentPrompts]
    acts: ActReplies


class BankReply(_Strict):
    """One reply of the reply bank: a situation, the customer messages it fits, and the agent's reply."""

    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=80)
    intent: str
    situation: str = Field(min_length=1)
    examples: list[str] = Field(min_length=1)
    reply: str = Field(min_length=1)  # Jinja, like the template replies
    handoff: bool = False  # the reply passes the conversation to a human agent
    tone: Literal["any", "positive"] = "any"  # positive: thanks for praise, never sent to an angry message
    # knowledge-base entries (ids, same domain and language) whose facts this reply states: cited when sent
    sources: list[str] = []


class ReplyBankFile(_Strict):
    version: Literal[1]
    domain: Literal["telecom", "ecommerce"]
    lang: Literal["en", "zh"]
    replies: list[BankReply]


class RouteOverride(_Strict):
    domain: Literal["telecom", "ecommerce", "*"] = "*"
    intent: str
    lang: Literal["en", "zh", "*"] = "*"
    route: Literal["llm", "canned", "handoff"]
    reason: str | None = None


class Manifest(_Strict):
    version: Literal[1]
    files: dict[str, dict[str, str]]
    replies: dict[str, dict[str, str]] = {}  # the reply bank per domain and language (optional)
    default_route: Literal["llm", "canned", "handoff"] = "llm"
    routes: dict[str, Literal["llm", "canned", "handoff"]] = {}
    overrides: list[RouteOverride] = []
    handoff_after_uncertain_turns: int = Field(2, ge=1)


@dataclass(frozen=True, slots=True)
class RouteRule:
    route: Literal["llm", "canned", "handoff"]
    reason: str


def load_model(path: Path, model: type[BaseModel], problems: list[str]) -> Any:
    try:
        raw = read_yaml(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        problems.append(f"{path.parent.name}/{path.name}: file not found ({path})")
        return None
    except yaml.YAMLError as exc:
        problems.append(f"{path.parent.name}/{path.name}: not valid YAML: {exc}")
        return None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        for err in exc.errors():
            problems.append(
                f"{path.parent.name}/{path.name}: {'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
            )
        return None
