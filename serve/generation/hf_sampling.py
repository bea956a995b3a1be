"""Per-request sampling for transformers continuous batching (imported by hf.py only).

transformers' CB manager has one global `do_sample` switch and one global seed. We want greedy and
sampled requests in the same batch, each with its own temperature, top_p and seed, and the same seed to
give the same reply whatever else is in the batch. So the manager runs greedy (argmax) and these
processors add Gumbel noise drawn from a per-request, per-step generator: argmax(logits/T + Gumbel) is an
exact sample from softmax(logits/T) (the Gumbel-max trick). Greedy rows get no noise, so they stay exactly
argmax. Temperature and top_p are applied per row first; rows that need nothing are skipped.
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
        return _floats_as_int32([r.state.logit_processor_kwargs.get("top_p", 1.0) for r in requests_with_new_token])

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


def step_seed(base_seed: int, step: int) -> int:
    """A non-zero 31-bit seed for one decoding step of one request."""
    mixed = (base_seed * 0x9E3779B1 + (step + 1) * 0x85EBCA77) & _MASK_31
    return mixed or 1


def sampling_kwargs(temperature: float, top_p: float, seed: int) -> dict[str, float | int]:
    """Per-request kwargs for `add_request`; temperature 0 means greedy."""
    if temperature <= 0.0:
        return {"temperature": 1.0, "top_p": 1.0, "sample_seed": 0}
    return {"temperature": float(temperature), "top_p": float(top_p), "sample_seed": int(seed & _MASK_31) or 1}


def build_processors() -> ContinuousBatchingLogitsProcessorList:
    processors = ContinuousBatchingLogitsProcessorList(
        LogitsProcessorList([TemperatureScaler(), TopPFilter(), GumbelSampler()]),
        per_request_processors=False,
    )
    # The list only counts tensors for processors it converted itself; ours are native CB processors.
    processors.tensors_required = 3
    return processors
