"""What a generated reply is built from: the chat messages for the engine (system prompt, the history that
fits, the customer's message) and the fact lead the reply opens with."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from serve.errors import InvalidRequest
from serve.generation.base import ChatMessage, Generator
from serve.prompts import PromptLibrary
from serve.reply_events import ReplyRequest

if TYPE_CHECKING:
    from serve.knowledge.base import KnowledgeHit

PASSAGES_HEADER = {
    "en": "Answers from {company}'s knowledge base that may fit this message (use them when they answer "
    "it; state no fact that is not here or in the customer facts):",
    "zh": "以下是{company}知识库中可能与本条消息相关的答案"
    "（能回答时请据此回答；不要说出这里和客户信息中都没有的事实）：",
}


def build_messages(
    library: PromptLibrary,
    generator: Generator,
    request: ReplyRequest,
    intent: str,
    lang: str,
    history: tuple[ChatMessage, ...],
    max_history_turns: int,
    budget: int,
    passages: Sequence[KnowledgeHit] = (),
) -> tuple[ChatMessage, ...]:
    """System prompt (+ knowledge passages at its end, after the part that is the same for every customer of
    the intent, so prefix caching keeps working) + as much recent history as fits + the customer's message,
    within `budget` prompt tokens (the context length minus the reply's max_tokens); the oldest turns go
    first."""
    text = library.system_prompt(request.domain, lang, intent, request.context)
    if passages:
        company = library.file(request.domain, lang).company
        lines = [f"- {h.entry.title}: {h.entry.text}" for h in passages]
        text += (
            "\n"
            + PASSAGES_HEADER.get(lang, PASSAGES_HEADER["en"]).format(company=company)
            + "\n"
            + "\n".join(lines)
        )
    system = ChatMessage("system", text)
    user = ChatMessage("user", request.message)
    kept = list(history[-max_history_turns:]) if max_history_turns else []
    while True:
        messages = (system, *kept, user)
        if generator.count_prompt_tokens(messages) <= budget:
            return messages
        if not kept:
            raise InvalidRequest(
                f"the message is too long: with the system prompt it exceeds the {budget}-token budget",
                param="message",
            )
        del kept[0]


def fact_lead(
    library: PromptLibrary,
    request: ReplyRequest,
    intent: str,
    lang: str,
    enabled: bool,
    history: tuple[ChatMessage, ...] = (),
) -> str:
    """The intent's lead sentence rendered from the customer facts, or "" (off, no lead, no facts, or an
    earlier reply in this conversation already said it: a follow-up should not hear the same facts again)."""
    if not enabled:
        return ""
    lead = library.lead(request.domain, lang, intent, request.context)
    if lead and any(m.role == "assistant" and lead in m.content for m in history):
        return ""
    return lead


def after_lead(text: str, lang: str) -> str:
    """The model's first words after an English lead start a new sentence: they need a space (an engine
    continuing the prefix writes one itself; a server told about the lead in words does not)."""
    if lang != "zh" and text and not text[0].isspace():
        return " " + text
    return text
