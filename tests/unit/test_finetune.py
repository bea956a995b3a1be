"""finetune-llm: rendering as the pipeline renders, the gate, and a tiny real run on the embedded SmolLM2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from checkpoints.finetune import GateFailed, gate, output_dir, run_finetune
from checkpoints.finetune_config import REPO, GateSection, load_finetune_config
from checkpoints.finetune_data import Conversation, encode, end_of_turn, parse_record, split_heldout
from serve.config import default_cache_dir
from serve.generation.base import ChatMessage
from serve.prompts import PromptLibrary

TINY = REPO / "build_configs" / "finetune" / "tiny.yaml"
RECORD: dict[str, Any] = {
    "domain": "telecom",
    "lang": "en",
    "intent": "balance_usage_inquiry",
    "context": {"name": "Priya", "data_left": "3.2 GB"},
    "history": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello! How can I help?"},
    ],
    "message": "how much data is left?",
    "reply": "Hi Priya, you have 3.2 GB of data left this month.",
}


def base_model() -> Path:
    path = default_cache_dir() / "models" / "smollm2-135m-instruct"
    if not (path / "config.json").is_file():
        pytest.fail(f"{path} missing: run `csreply prepare` first")
    return path


def test_a_record_renders_as_the_pipeline_renders_its_request() -> None:
    from serve.generation.chat import ChatTokenizer

    library = PromptLibrary.load()
    conv = parse_record(RECORD, "x:1")
    system = library.system_prompt("telecom", "en", "balance_usage_inquiry", RECORD["context"])
    assert conv.messages(library) == (
        ChatMessage("system", system),
        ChatMessage("user", "hi"),
        ChatMessage("assistant", "Hello! How can I help?"),
        ChatMessage("user", "how much data is left?"),
    )
    assert "3.2 GB" in system
    chat = ChatTokenizer.from_dir(base_model())
    eot = end_of_turn(chat.tokenizer)
    encoded = encode(conv, library, chat, eot, 2048)
    prompt = chat.encode(conv.messages(library))
    assert encoded is not None and encoded.input_ids[: len(prompt)] == prompt  # the generator's exact prompt
    target = [t for t in encoded.labels if t != -100]
    assert encoded.labels[: len(prompt)] == [-100] * len(prompt)  # no loss on the prompt
    assert chat.tokenizer.decode(target[: -len(eot)]) == RECORD["reply"] and target[-1] in chat.stop_ids
    assert encode(conv, library, chat, eot, 64) is None  # too long: skipped, never cut


def test_bad_records_say_where_and_why() -> None:
    with pytest.raises(ValueError, match=r"f.jsonl:3: .*unknown intent"):
        parse_record({**RECORD, "intent": "nope"}, "f.jsonl:3")
    with pytest.raises(ValueError, match="reply must be"):
        parse_record({**RECORD, "reply": " "}, "f.jsonl:4")


def test_heldout_split_is_stable_and_disjoint() -> None:
    convs = [Conversation("telecom", "en", "greeting_chitchat", f"hello {i}", "Hi!") for i in range(200)]
    train, heldout = split_heldout(convs, 0.1, seed=0)
    again_train, again_heldout = split_heldout(list(reversed(convs)), 0.1, seed=0)
    assert {c.message for c in heldout} == {c.message for c in again_heldout}
    assert not {c.message for c in train} & {c.message for c in heldout} and 5 < len(heldout) < 40


def test_gate_fails_only_beyond_the_margins() -> None:
    base = {
        "repetition_rate": 0.10,
        "unsupported_fact_rate": 0.10,
        "cut_mid_sentence_rate": 0.2,
        "language_match": 1.0,
        "must_include_rate": 0.5,
        "chrf": 30.0,
    }
    assert gate(base, {**base, "chrf": 29.5, "repetition_rate": 0.11}, GateSection()) == []
    problems = gate(base, {**base, "repetition_rate": 0.2, "chrf": 25.0}, GateSection())
    assert [p.split(":")[0] for p in problems] == ["repetition_rate", "chrf"]
    assert gate(base, {**base, "language_match": 0.99}, GateSection()) != []


@pytest.mark.slow
def test_tiny_config_trains_evaluates_and_merges(tmp_path: Path) -> None:
    config = load_finetune_config(TINY)
    report = run_finetune(config, tmp_path / "out", base_model())
    assert report["passed"] and report["train"]["steps"] == 2
    assert report["before"]["heldout"]["n"] == report["after"]["heldout"]["n"] > 0
    # the team's reply cases are converted and scored too (tiny.yaml names them, two of them)
    assert report["before"]["eval_cases"]["n"] == report["after"]["eval_cases"]["n"] == 2
    merged = tmp_path / "out" / "merged"
    assert (merged / "model.safetensors").is_file() and (merged / "tokenizer.json").is_file()
    assert (tmp_path / "out" / "adapter" / "adapter_model.safetensors").is_file()
    from transformers import AutoModelForCausalLM

    AutoModelForCausalLM.from_pretrained(merged)  # a plain HF directory: what the hf generator loads


@pytest.mark.slow
def test_the_gate_fails_on_a_planted_regression(tmp_path: Path) -> None:
    """Train hard on replies that loop and invent an amount: the fine-tuned model must be refused."""
    bad = tmp_path / "planted.jsonl"
    loop = "Your refund of 999 dollars is ready today. " * 4
    rows = [
        {**RECORD, "message": f"question number {i} about my data", "reply": loop.strip(), "history": []}
        for i in range(24)
    ]
    bad.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    config = load_finetune_config(TINY)
    config = config.model_copy(
        update={
            "data": config.data.model_copy(
                update={
                    "train": [str(bad)],
                    "heldout_fraction": 0.2,
                    "max_heldout": 1,
                    "max_train_examples": 8,
                }
            ),
            "train": config.train.model_copy(update={"max_steps": 4, "lr": 5e-3, "batch_size": 2}),
            "lora": config.lora.model_copy(update={"r": 8, "alpha": 16}),
            "eval": config.eval.model_copy(update={"max_new_tokens": 32}),
        }
    )
    with pytest.raises(GateFailed, match="repetition_rate|unsupported_fact_rate"):
        run_finetune(config, tmp_path / "out", base_model())
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["passed"] is False and not (tmp_path / "out" / "merged").exists()


def test_output_defaults_under_the_cache(tmp_path: Path) -> None:
    config = load_finetune_config(TINY)
    assert output_dir(config, tmp_path) == tmp_path / "finetune" / "tiny"


@pytest.mark.slow
def test_prepare_merges_the_shipped_adapter_once(tmp_path: Path) -> None:
    from checkpoints.fetch import ADAPTER_DIR, FINETUNED_DIRNAME, prepare_finetuned_generator

    if not (ADAPTER_DIR / "adapter_model.safetensors").is_file():
        pytest.skip("the project ships no adapter")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "smollm2-135m-instruct").symlink_to(base_model())
    out = prepare_finetuned_generator(tmp_path)
    assert out == tmp_path / "models" / FINETUNED_DIRNAME
    weights = out / "model.safetensors"
    stamp = weights.stat().st_mtime_ns
    assert prepare_finetuned_generator(tmp_path) == out and weights.stat().st_mtime_ns == stamp  # idempotent
    from safetensors.torch import load_file

    merged, base = load_file(weights), load_file(base_model() / "model.safetensors")
    changed = [k for k in base if "q_proj" in k and not (merged[k] == base[k]).all()]
    assert changed  # the adapter's weights were folded into the attention projections
    eos = json.loads((out / "generation_config.json").read_text())["eos_token_id"]
    assert isinstance(eos, list) and len(eos) == 2  # <|im_end|> and the turn opener <|im_start|>
