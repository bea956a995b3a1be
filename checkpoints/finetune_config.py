"""Schema of build_configs/finetune/*.yaml: one LoRA fine-tuning run of a chat model on team-written
conversations, with its held-out evaluation and the gate that decides whether the result may ship."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

REPO = Path(__file__).resolve().parents[1]


class FinetuneConfigError(ValueError):
    """The config file is missing or invalid; the message names the file and the fields."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DataSection(_Strict):
    train: list[str] = Field(min_length=1, description="JSONL globs, relative to the repository root")
    heldout_fraction: float = Field(
        0.1, ge=0, lt=1, description="share of conversations kept out of training"
    )
    max_heldout: int | None = Field(
        None, ge=1, description="evaluate at most this many held-out conversations"
    )
    eval_cases: str | None = Field(
        None, description="also evaluate on a reply-case file (e.g. data/eval/replies_llm.jsonl)"
    )
    max_eval_cases: int | None = Field(None, ge=1)
    max_train_examples: int | None = Field(None, ge=1)
    seed: int = 0


class LoraSection(_Strict):
    r: int = Field(16, ge=1)
    alpha: int = Field(32, ge=1)
    dropout: float = Field(0.05, ge=0, lt=1)
    target_modules: list[str] = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


class TrainSection(_Strict):
    epochs: float = Field(2.0, gt=0)
    max_steps: int | None = Field(None, ge=1, description="stop after this many optimizer steps")
    batch_size: int = Field(16, ge=1)
    lr: float = Field(2e-4, gt=0)
    warmup_steps: int = Field(10, ge=0)
    weight_decay: float = Field(0.0, ge=0)
    max_len: int = Field(1024, ge=64, description="prompt + reply tokens; longer conversations are skipped")
    device: str = Field("auto", description="'auto', 'cpu' or 'cuda'")
    bf16: bool = Field(True, description="bfloat16 autocast on CUDA (weights stay float32)")
    threads: int | None = Field(None, ge=1, description="torch CPU threads")


class GateSection(_Strict):
    """The fine-tuned model fails when it is worse than the base by more than these margins."""

    max_repetition_increase: float = 0.02
    max_unsupported_increase: float = 0.02
    max_cut_increase: float = 0.05
    max_language_drop: float = 0.0
    max_must_include_drop: float = 0.05
    max_chrf_drop: float = 1.0


class EvalSection(_Strict):
    max_new_tokens: int = Field(96, ge=1)
    batch_size: int = Field(16, ge=1)
    gate: GateSection = GateSection()


class FinetuneConfig(_Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    base_model: str | None = Field(
        None, description="HF directory; default: the embedded SmolLM2 in the cache"
    )
    prompts_dir: str | None = Field(None, description="prompt library; default: the repository's prompts/")
    output_dir: str | None = Field(None, description="default: <cache>/finetune/<name>")
    merge: bool = Field(
        True, description="also write the merged HF directory (what build-llm and the hf generator take)"
    )
    data: DataSection
    lora: LoraSection = LoraSection()
    train: TrainSection = TrainSection()
    eval: EvalSection = EvalSection()

    def train_files(self) -> list[Path]:
        files: list[Path] = []
        for pattern in self.data.train:
            matched = (
                sorted(REPO.glob(pattern))
                if not Path(pattern).is_absolute()
                else sorted(Path("/").glob(pattern.lstrip("/")))
            )
            files.extend(p for p in matched if p.suffix == ".jsonl")
        return files


def load_finetune_config(path: Path) -> FinetuneConfig:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise FinetuneConfigError(f"{path}: file not found") from exc
    except yaml.YAMLError as exc:
        raise FinetuneConfigError(f"{path}: not valid YAML: {exc}") from exc
    try:
        return FinetuneConfig.model_validate(raw)
    except ValidationError as exc:
        problems = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
        raise FinetuneConfigError(f"{path}: invalid fine-tuning config:\n  " + "\n  ".join(problems)) from exc
