"""Chat templating shared by the transformers-based backends (hf, trtllm): messages -> prompt ids, and the
end-of-turn ids the chat template uses. Imports transformers lazily (backend modules only)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from serve.errors import BackendUnavailable
from serve.generation.base import ChatMessage


class ChatTokenizer:
    def __init__(self, tokenizer: Any, generation_config: Any = None) -> None:
        self.tokenizer = tokenizer
        self.stop_ids = frozenset(chat_stop_ids(tokenizer, generation_config))

    @classmethod
    def from_dir(cls, path: Path) -> ChatTokenizer:
        from transformers import AutoTokenizer, GenerationConfig

        tokenizer = AutoTokenizer.from_pretrained(path)
        try:
            generation_config = GenerationConfig.from_pretrained(path)
        except OSError:
            generation_config = None
        return cls(tokenizer, generation_config)

    @property
    def pad_id(self) -> int:
        pad = self.tokenizer.pad_token_id
        return int(pad) if pad is not None else min(self.stop_ids)

    @property
    def eos_id(self) -> int:
        eos = self.tokenizer.eos_token_id
        return int(eos) if eos is not None else min(self.stop_ids)

    def encode(self, messages: Sequence[ChatMessage], prefix: str = "") -> list[int]:
        """Prompt ids; `prefix` opens the assistant turn, so generation continues the reply after it."""
        text = (
            self.tokenizer.apply_chat_template(
                [{"role": m.role, "content": m.content} for m in messages],
                tokenize=False,
                add_generation_prompt=True,
            )
            + prefix
        )
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def decode(self, ids: Sequence[int]) -> str:
        return str(self.tokenizer.decode(list(ids)))


def chat_stop_ids(tokenizer: Any, generation_config: Any) -> set[int]:
    """End-of-turn ids: EOS from tokenizer and generation config, plus the special token the chat template
    puts right after an assistant turn (<|im_end|>, <|eot_id|> ...)."""
    ids: set[int] = set()
    for value in (tokenizer.eos_token_id, getattr(generation_config, "eos_token_id", None)):
        if isinstance(value, int):
            ids.add(value)
        elif isinstance(value, list | tuple):
            ids.update(int(v) for v in value)
    marker = "CSREPLY_END_MARKER"
    rendered = tokenizer.apply_chat_template(
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": marker}], tokenize=False
    )
    tail = rendered.split(marker, 1)[-1]
    tail_ids = tokenizer(tail, add_special_tokens=False)["input_ids"] if tail.strip() else []
    special = set(getattr(tokenizer, "all_special_ids", []))
    for token_id in tail_ids:
        if token_id in special:
            ids.add(int(token_id))
            break
    if not ids:
        raise BackendUnavailable(
            "the model declares no end-of-sequence token; set one in generation_config.json"
        )
    return ids
