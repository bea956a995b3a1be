"""Per-request sampling for transformers continuous batching (imported by hf.py only).

transformers' CB manager has one global `do_sample` switch and one global seed. We want greedy and
sampled requests in the same batch, each with its own temperature, top_p and seed, and the same seed to
give the same reply whatever else is in the batch. So the manager runs greedy (argmax) and these
processors add Gumbel noise drawn from a per-request, per-step generator: argmax(logits/T + Gumbel) is an
exact sample from softmax(logits/T) (the Gumbel-max trick). Greedy rows get no noise, so they stay exactly
argmax. Temperature and top_p are applied per row first; rows that need nothing are skipped.

The decoding guards (repetition / presence / frequency penalties, no_repeat_ngram_size) need each row's
token history, which does not fit the one int32 per row that transformers passes to a CB processor. So
`prepare_tensor_args` (called for the batch right before its forward pass, in the same row order as the
scores) also keeps a snapshot of each row's generated tokens on the processor, and `__call__` reads it.
The guards look at the reply's own tokens only, never the prompt: the prompt holds the facts (amounts,
dates, menu paths) that the reply is meant to repeat.
"""

from __future__ import annotations

import torch
from transformers import LogitsProcessorList
from transformers.generation.continuous_batching.cb_logits_processors import (
    ContinuousBatchingLogitsProcessor,
    ContinuousBatchingLogitsProcessorList,
)

_MASK_31 = (1 << 31) - 1


def _floats_as_int32(values: list[float]) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float32).view(dtype=torch.int32)


class EndOfTurnBlocker(ContinuousBatchingLogitsProcessor):
    """`ignore_eos`: the model's end-of-turn tokens are never picked, so the reply runs to max_tokens (fixed
    output lengths for benchmarks). The ids are the generator's stop ids, fixed at load."""

    supported_kwargs: dict[str, type] = {"ignore_eos": int}
    ignored_kwargs: tuple[str, ...] = ()

    def __init__(self, stop_ids: frozenset[int] | set[int]) -> None:
        self._ids = torch.tensor(sorted(stop_ids), dtype=torch.long)

    def fill_defaults(self, int32_tensor: torch.Tensor) -> None:
        int32_tensor.fill_(0)

    def prepare_tensor_args(self, requests_with_new_token: list) -> torch.Tensor:
        flags = [int(r.state.logit_processor_kwargs.get("ignore_eos", 0)) for r in requests_with_new_token]
        return torch.tensor(flags, dtype=torch.int32)

    def __call__(self, scores: torch.Tensor, tensor_arg: torch.Tensor) -> torch.Tensor:
        rows = torch.nonzero(tensor_arg[: scores.size(0)]).flatten()
        if rows.numel() == 0 or self._ids.numel() == 0:
            return scores
        scores = scores.clone()
        scores[rows.unsqueeze(-1), self._ids.to(scores.device)] = float("-inf")
        return scores


class TemperatureScaler(ContinuousBatchingLogitsProcessor):
    supported_kwargs: dict[str, type] = {"temperature": float}
    ignored_kwargs: tuple[str, ...] = ()

    def fill_defaults(self, int32_tensor: torch.Tensor) -> None:
        int32_tensor.copy_(torch.ones_like(int32_tensor, dtype=torch.float32).view(dtype=torch.int32))

    def prepare_tensor_args(self, requests_with_new_token: list) -> torch.Tensor:
        return _floats_as_int32(
            [r.state.logit_processor_kwargs.get("temperature", 1.0) for r in requests_with_new_token]
        )

    def __call__(self, scores: torch.Tensor, tensor_arg: torch.Tensor) -> torch.Tensor:
        temperatures = tensor_arg[: scores.size(0)].view(dtype=torch.float32)
        if bool(torch.all(temperatures == 1.0)):
            return scores
        return scores / temperatures.unsqueeze(-1).to(scores.dtype)


class TopPFilter(ContinuousBatchingLogitsProcessor):
    supported_kwargs: dict[str, type] = {"top_p": float}
    ignored_kwargs: tuple[str, ...] = ()

    def fill_defaults(self, int32_tensor: torch.Tensor) -> None:
        int32_tensor.copy_(torch.ones_like(int32_tensor, dtype=torch.float32).view(dtype=torch.int32))

    def prepare_tensor_args(self, requests_with_new_token: list) -> torch.Tensor:
        return _floats_as_int32(
            [r.state.logit_processor_kwargs.get("top_p", 1.0) for r in requests_with_new_token]
        )

    def __call__(self, scores: torch.Tensor, tensor_arg: torch.Tensor) -> torch.Tensor:
        top_p = tensor_arg[: scores.size(0)].view(dtype=torch.float32)
        rows = torch.nonzero(top_p < 1.0).flatten()
        if rows.numel() == 0:
            return scores
        sub = scores[rows]
        sorted_logits, sorted_idx = torch.sort(sub, dim=-1, descending=True)
        probs = sorted_logits.softmax(dim=-1)
        # drop a token when the tokens ranked above it already cover top_p (the top token always stays)
        mass_above = probs.cumsum(dim=-1) - probs
        remove_sorted = mass_above >= top_p[rows].unsqueeze(-1).to(sub.dtype)
        remove = remove_sorted.scatter(-1, sorted_idx, remove_sorted)
        scores = scores.clone()
        scores[rows] = sub.masked_fill(remove, float("-inf"))
        return scores


class GumbelSampler(ContinuousBatchingLogitsProcessor):
    """Adds Gumbel noise to rows whose request carries `sample_seed` (0 = greedy, no noise)."""

    supported_kwargs: dict[str, type] = {"sample_seed": int}
    ignored_kwargs: tuple[str, ...] = ()

    def fill_defaults(self, int32_tensor: torch.Tensor) -> None:
        int32_tensor.fill_(0)

    def prepare_tensor_args(self, requests_with_new_token: list) -> torch.Tensor:
        seeds = []
        for request in requests_with_new_token:
            base = int(request.state.logit_processor_kwargs.get("sample_seed", 0))
            seeds.append(step_seed(base, request.state.generated_len()) if base else 0)
        return torch.tensor(seeds, dtype=torch.int32)

    def __call__(self, scores: torch.Tensor, tensor_arg: torch.Tensor) -> torch.Tensor:
        seeds = tensor_arg[: scores.size(0)].tolist()
        if not any(seeds):
            return scores
        scores = scores.clone()
        for row, seed in enumerate(seeds):
            if seed:
                generator = torch.Generator(device=scores.device).manual_seed(seed)
                uniform = torch.rand(
                    scores.size(-1), generator=generator, device=scores.device, dtype=torch.float32
                )
                gumbel = -torch.log(-torch.log(uniform.clamp_(min=1e-10, max=1.0 - 1e-7)))
                scores[row] = scores[row] + gumbel.to(scores.dtype)
        return scores


class RepetitionGuard(ContinuousBatchingLogitsProcessor):
    """Repetition (multiplicative), presence and frequency (additive) penalties over the generated tokens,
    with the semantics of transformers' RepetitionPenaltyLogitsProcessor and OpenAI's penalties."""

    supported_kwargs: dict[str, type] = {
        "repetition_penalty": float,
        "presence_penalty": float,
        "frequency_penalty": float,
    }
    ignored_kwargs: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._rows: list[tuple[float, float, float, list[int]]] = []

    def fill_defaults(self, int32_tensor: torch.Tensor) -> None:
        int32_tensor.fill_(0)

    def prepare_tensor_args(self, requests_with_new_token: list) -> torch.Tensor:
        self._rows = []
        for request in requests_with_new_token:
            kwargs = request.state.logit_processor_kwargs
            self._rows.append(
                (
                    float(kwargs.get("repetition_penalty", 1.0)),
                    float(kwargs.get("presence_penalty", 0.0)),
                    float(kwargs.get("frequency_penalty", 0.0)),
                    list(request.state.generated_tokens),
                )
            )
        return torch.tensor([int(_guard_active(row)) for row in self._rows], dtype=torch.int32)

    def __call__(self, scores: torch.Tensor, tensor_arg: torch.Tensor) -> torch.Tensor:
        rows = [(i, r) for i, r in enumerate(self._rows[: scores.size(0)]) if _guard_active(r) and r[3]]
        if not rows:
            return scores
        scores = scores.clone()
        for row, (repetition, presence, frequency, tokens) in rows:
            ids, counts = torch.tensor(tokens, device=scores.device).unique(return_counts=True)
            picked = scores[row, ids]
            if repetition != 1.0:
                picked = torch.where(picked < 0, picked * repetition, picked / repetition)
            picked = picked - presence - frequency * counts.to(picked.dtype)
            scores[row, ids] = picked
        return scores


class NoRepeatNGram(ContinuousBatchingLogitsProcessor):
    """Bans every token that would complete an n-gram the reply already contains (n per request)."""

    supported_kwargs: dict[str, type] = {"no_repeat_ngram_size": int}
    ignored_kwargs: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._tokens: list[list[int]] = []

    def fill_defaults(self, int32_tensor: torch.Tensor) -> None:
        int32_tensor.fill_(0)

    def prepare_tensor_args(self, requests_with_new_token: list) -> torch.Tensor:
        sizes = [
            int(r.state.logit_processor_kwargs.get("no_repeat_ngram_size", 0))
            for r in requests_with_new_token
        ]
        self._tokens = [
            list(r.state.generated_tokens) if n > 0 else []
            for r, n in zip(requests_with_new_token, sizes, strict=True)
        ]
        return torch.tensor(sizes, dtype=torch.int32)

    def __call__(self, scores: torch.Tensor, tensor_arg: torch.Tensor) -> torch.Tensor:
        sizes = tensor_arg[: min(scores.size(0), len(self._tokens))].tolist()
        banned_rows = [(row, banned_tokens(self._tokens[row], n)) for row, n in enumerate(sizes) if n > 0]
        banned_rows = [(row, banned) for row, banned in banned_rows if banned]
        if not banned_rows:
            return scores
        scores = scores.clone()
        for row, banned in banned_rows:
            scores[row, torch.tensor(sorted(banned), device=scores.device)] = float("-inf")
        return scores


def banned_tokens(tokens: list[int], n: int) -> set[int]:
    """Tokens that would complete an n-gram already present in `tokens` (the last n-1 tokens as prefix)."""
    if n <= 0 or len(tokens) < n:
        return set()
    if n == 1:
        return set(tokens)
    prefix = tuple(tokens[len(tokens) - n + 1 :])
    return {tokens[i + n - 1] for i in range(len(tokens) - n + 1) if tuple(tokens[i : i + n - 1]) == prefix}


def _guard_active(row: tuple[float, float, float, list[int]]) -> bool:
    repetition, presence, frequency, _ = row
    return repetition != 1.0 or presence != 0.0 or frequency != 0.0


def step_seed(base_seed: int, step: int) -> int:
    """A non-zero 31-bit seed for one decoding step of one request."""
    mixed = (base_seed * 0x9E3779B1 + (step + 1) * 0x85EBCA77) & _MASK_31
    return mixed or 1


def sampling_kwargs(temperature: float, top_p: float, seed: int) -> dict[str, float | int]:
    """Per-request kwargs for `add_request`; temperature 0 means greedy."""
    if temperature <= 0.0:
        return {"temperature": 1.0, "top_p": 1.0, "sample_seed": 0}
    return {
        "temperature": float(temperature),
        "top_p": float(top_p),
        "sample_seed": int(seed & _MASK_31) or 1,
    }


def guard_kwargs(
    repetition_penalty: float = 1.0,
    presence_penalty: float = 0.0,
    frequency_penalty: float = 0.0,
    no_repeat_ngram_size: int = 0,
) -> dict[str, float | int]:
    """Per-request kwargs for `add_request` that turn on the decoding guards (neutral values: off)."""
    if repetition_penalty <= 0:
        raise ValueError(f"repetition_penalty must be > 0, got {repetition_penalty}")
    return {
        "repetition_penalty": float(repetition_penalty),
        "presence_penalty": float(presence_penalty),
        "frequency_penalty": float(frequency_penalty),
        "no_repeat_ngram_size": max(0, int(no_repeat_ngram_size)),
    }


def build_processors(
    stop_ids: frozenset[int] | set[int] = frozenset(),
) -> ContinuousBatchingLogitsProcessorList:
    # Guards first (they act on raw logits, as in transformers' own order), then temperature, top_p, noise.
    chain = [
        EndOfTurnBlocker(stop_ids),
        RepetitionGuard(),
        NoRepeatNGram(),
        TemperatureScaler(),
        TopPFilter(),
        GumbelSampler(),
    ]
    processors = ContinuousBatchingLogitsProcessorList(
        LogitsProcessorList(chain), per_request_processors=False
    )
    # The list only counts tensors for processors it converted itself; ours are native CB processors.
    processors.tensors_required = len(chain)
    return processors
