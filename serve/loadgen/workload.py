"""What the load generator sends: prompts (random text of a given length, or our reply sets) as bodies."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Endpoint = Literal["chat", "reply"]

# Common one-token English words: random prompts of N words come out near N tokens on BPE tokenizers.
_WORDS = (
    "the of and to in is you that it he was for on are as with his they at be this have from or one had by "
    "word but not what all were we when your can said there use an each which she do how their if will up "
    "other about out many then them these so some her would make like him into time has look two more write "
    "go see number no way could people my than first water been call who oil its now find long down day did "
    "get come made may part order phone plan bill data refund parcel account card"
).split()

FALLBACK_QUESTIONS = (
    ("telecom", "How can I check how much mobile data I have left?"),
    ("ecommerce", "My parcel is late, where is it?"),
    ("telecom", "Can I switch to a plan with more minutes?"),
    ("ecommerce", "How do I return shoes that do not fit?"),
    ("telecom", "Why is my bill higher than usual this month?"),
    ("telecom", "How do I activate roaming before my trip to Spain?"),
)


@dataclass(frozen=True, slots=True)
class Prompt:
    messages: tuple[dict[str, str], ...]
    output_len: int
    domain: str = "telecom"  # /v1/reply only
    input_words: int = 0


def random_prompts(
    count: int, input_len: int, output_len: int, range_ratio: float, seed: int
) -> list[Prompt]:
    """Prompts of `input_len` words (uniform in [len*(1-r), len*(1+r)] when r > 0) asking for `output_len`
    tokens (same spread). A request-number prefix keeps prompts apart, so prefix caches do not flatter."""
    rng = random.Random(seed)

    def spread(n: int) -> int:
        return (
            max(1, rng.randint(round(n * (1 - range_ratio)), round(n * (1 + range_ratio))))
            if range_ratio
            else n
        )

    prompts = []
    for i in range(count):
        words = spread(input_len)
        text = f"{i}: " + " ".join(rng.choice(_WORDS) for _ in range(max(0, words - 1)))
        prompts.append(Prompt(({"role": "user", "content": text},), spread(output_len), input_words=words))
    return prompts


def dataset_prompts(path: Path, count: int, output_len: int, seed: int) -> list[Prompt]:
    """Cases of a reply set (JSONL with `messages` and `domain`, as data/eval/*.jsonl), cycled to `count`."""
    cases: list[Prompt] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
            messages = tuple({"role": m["role"], "content": m["content"]} for m in case["messages"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not a reply case with messages ({exc})") from exc
        if not messages or messages[-1]["role"] != "user":
            raise ValueError(f"{path}:{n}: the last message must be the customer's (role user)")
        words = sum(len(m["content"].split()) for m in messages)
        cases.append(Prompt(messages, output_len, case.get("domain", "telecom"), words))
    if not cases:
        raise ValueError(f"{path}: no cases")
    random.Random(seed).shuffle(cases)
    return [cases[i % len(cases)] for i in range(count)]


def fallback_prompts(count: int, output_len: int) -> list[Prompt]:
    return [
        Prompt(({"role": "user", "content": q},), output_len, d, len(q.split()))
        for d, q in (FALLBACK_QUESTIONS[i % len(FALLBACK_QUESTIONS)] for i in range(count))
    ]


def request_body(
    endpoint: Endpoint, prompt: Prompt, model: str | None, ignore_eos: bool, temperature: float
) -> dict[str, Any]:
    if endpoint == "reply":
        *history, last = prompt.messages
        return {
            "domain": prompt.domain,
            "message": last["content"],
            "history": list(history),
            "max_tokens": prompt.output_len,
            "stream": True,
        }
    body: dict[str, Any] = {
        "messages": list(prompt.messages),
        "max_tokens": prompt.output_len,
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": temperature,
    }
    if model:
        body["model"] = model
    if ignore_eos:
        body["ignore_eos"] = True  # this server, vLLM, SGLang and trtllm-serve honour it
    return body
