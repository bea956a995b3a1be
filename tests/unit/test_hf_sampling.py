from __future__ import annotations

from types import SimpleNamespace

import torch

from serve.generation.hf_sampling import (
    EndOfTurnBlocker,
    GumbelSampler,
    NoRepeatNGram,
    RepetitionGuard,
    TemperatureScaler,
    TopPFilter,
    banned_tokens,
    build_processors,
    guard_kwargs,
    sampling_kwargs,
    step_seed,
)


def rows(*kwargs: dict, generated: int = 0) -> list[SimpleNamespace]:
    """Stand-ins for transformers' FutureRequestState: only the two attributes the processors read."""
    return [
        SimpleNamespace(state=SimpleNamespace(logit_processor_kwargs=k, generated_len=lambda: generated))
        for k in kwargs
    ]


def test_greedy_kwargs_leave_logits_untouched_by_every_processor() -> None:
    scores = torch.randn(2, 50)
    greedy = rows(sampling_kwargs(0.0, 0.5, 7), sampling_kwargs(0.0, 1.0, 7))
    out = scores
    for processor in (TemperatureScaler(), TopPFilter(), GumbelSampler()):
        out = processor(out, processor.prepare_tensor_args(greedy))
    assert torch.equal(out, scores)


def test_temperature_scales_only_its_own_row() -> None:
    scores = torch.ones(2, 4)
    arg = TemperatureScaler().prepare_tensor_args(rows({"temperature": 0.5}, {"temperature": 1.0}))
    out = TemperatureScaler()(scores, arg)
    assert torch.allclose(out[0], torch.full((4,), 2.0)) and torch.equal(out[1], scores[1])


def test_top_p_keeps_the_smallest_set_that_covers_p() -> None:
    probs = torch.tensor([[0.5, 0.3, 0.15, 0.05], [0.5, 0.3, 0.15, 0.05]])
    scores = probs.log()
    arg = TopPFilter().prepare_tensor_args(rows({"top_p": 0.7}, {"top_p": 1.0}))
    out = TopPFilter()(scores, arg)
    assert torch.isfinite(out[0]).tolist() == [True, True, False, False]
    assert torch.equal(out[1], scores[1])


def test_top_p_always_keeps_the_top_token() -> None:
    scores = torch.tensor([[5.0, 0.0, 0.0]])
    out = TopPFilter()(scores, TopPFilter().prepare_tensor_args(rows({"top_p": 0.01})))
    assert torch.isfinite(out[0]).tolist() == [True, False, False]


def test_gumbel_max_samples_match_the_softmax_distribution() -> None:
    target = torch.tensor([0.6, 0.3, 0.1])
    scores = target.log().unsqueeze(0)
    sampler = GumbelSampler()
    counts = torch.zeros(3)
    for seed in range(1, 3001):
        noisy = sampler(scores, sampler.prepare_tensor_args(rows({"sample_seed": seed})))
        counts[int(noisy.argmax())] += 1
    assert torch.allclose(counts / counts.sum(), target, atol=0.03)


def test_same_seed_and_step_give_the_same_noise_and_steps_differ() -> None:
    sampler = GumbelSampler()
    scores = torch.zeros(1, 100)
    a = sampler(scores, sampler.prepare_tensor_args(rows({"sample_seed": 42}, generated=3)))
    b = sampler(scores, sampler.prepare_tensor_args(rows({"sample_seed": 42}, generated=3)))
    c = sampler(scores, sampler.prepare_tensor_args(rows({"sample_seed": 42}, generated=4)))
    assert torch.equal(a, b) and not torch.equal(a, c)
    assert all(step_seed(s, t) > 0 for s in (1, 2**31 - 1) for t in range(100))


def test_processor_list_reserves_one_argument_row_per_processor() -> None:
    processors = build_processors(frozenset({2}))
    assert processors.tensors_required == 6
    assert set(processors.supported_keys) == {
        "ignore_eos",
        "temperature",
        "top_p",
        "sample_seed",
        "repetition_penalty",
        "presence_penalty",
        "frequency_penalty",
        "no_repeat_ngram_size",
    }
    processors.check_kwargs(sampling_kwargs(0.7, 0.9, 3))  # types accepted by transformers' check


def history_rows(*items: tuple[dict, list[int]]) -> list[SimpleNamespace]:
    """Stand-ins for FutureRequestState with a token history (the guards read generated_tokens)."""
    return [
        SimpleNamespace(
            state=SimpleNamespace(
                logit_processor_kwargs=k, generated_tokens=list(t), generated_len=lambda t=t: len(t)
            )
        )
        for k, t in items
    ]


def test_banned_tokens_are_the_continuations_of_the_current_prefix() -> None:
    tokens = [1, 2, 3, 9, 1, 2]
    assert banned_tokens(tokens, 3) == {3}  # "1 2" was followed by 3 before
    assert banned_tokens(tokens, 2) == {3}  # only "2" as prefix: followed by 3
    assert banned_tokens([5, 5], 3) == set()
    assert banned_tokens([4, 7], 1) == {4, 7}
    assert banned_tokens([1, 2, 1], 2) == {2}


def test_no_repeat_ngram_bans_only_in_the_guarded_row() -> None:
    scores = torch.zeros(2, 10)
    proc = NoRepeatNGram()
    arg = proc.prepare_tensor_args(
        history_rows(
            (guard_kwargs(no_repeat_ngram_size=3), [1, 2, 3, 1, 2]),
            (guard_kwargs(), [1, 2, 3, 1, 2]),
        )
    )
    out = proc(scores, arg)
    assert torch.isinf(out[0]).nonzero().flatten().tolist() == [3]
    assert torch.equal(out[1], scores[1])


def test_penalties_follow_the_documented_formulas_per_row() -> None:
    scores = torch.tensor([[2.0, -2.0, 1.0, 0.5], [2.0, -2.0, 1.0, 0.5]])
    proc = RepetitionGuard()
    arg = proc.prepare_tensor_args(
        history_rows(
            (guard_kwargs(repetition_penalty=2.0, presence_penalty=0.5, frequency_penalty=0.25), [0, 1, 1]),
            (guard_kwargs(), [0, 1, 1]),
        )
    )
    out = proc(scores, arg)
    # token 0: 2/2 - 0.5 - 0.25*1; token 1: -2*2 - 0.5 - 0.25*2; tokens 2, 3 never generated: unchanged
    assert torch.allclose(out[0], torch.tensor([0.25, -5.0, 1.0, 0.5]))
    assert torch.equal(out[1], scores[1])


def test_guards_leave_rows_without_history_untouched() -> None:
    scores = torch.randn(1, 6)
    for proc in (RepetitionGuard(), NoRepeatNGram()):
        arg = proc.prepare_tensor_args(history_rows((guard_kwargs(1.3, 0.2, 0.2, 2), [])))
        assert torch.equal(proc(scores, arg), scores)


def test_guard_kwargs_pass_transformers_type_check() -> None:
    processors = build_processors()
    assert processors.tensors_required == 6
    processors.check_kwargs(
        {**sampling_kwargs(0.0, 1.0, 3), **guard_kwargs(1.1, 0.0, 0.0, 4), "ignore_eos": 1}
    )


def test_ignore_eos_bans_the_stop_ids_in_its_own_row_only() -> None:
    scores = torch.zeros(3, 6)
    blocker = EndOfTurnBlocker(frozenset({1, 4}))
    out = blocker(scores, blocker.prepare_tensor_args(rows({"ignore_eos": 1}, {}, {"ignore_eos": 0})))
    assert torch.isinf(out[0]).tolist() == [False, True, False, False, True, False]
    assert torch.equal(out[1:], scores[1:])
