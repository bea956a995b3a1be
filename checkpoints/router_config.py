"""Schema of build_configs/router/*.yaml (validated; unknown keys and bad values are errors)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EncoderConfig(_Strict):
    # "embedded:all-minilm-l6-v2" is the MiniLM from `csreply prepare`; anything else is an HF BERT directory.
    source: str = "embedded:all-minilm-l6-v2"
    pooling: Literal["mean", "cls"] = "mean"
    # Add the 6,763 GB2312 hanzi to a vocabulary that lacks them (MiniLM's English vocab has 244 CJK chars).
    add_cjk_vocab: bool = True


class ExtraData(_Strict):
    """A labelled JSONL file added to the team's data: an operator's own logs, or a public set."""

    path: str  # relative to the repository root, or absolute; resolved at build time
    name: str | None = Field(
        None, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", description="in reports; default: file stem"
    )
    label_field: str = Field("intent", description="`intent` (our labels) or a foreign label field")
    label_map: str | None = Field(None, description="CSV mapping the foreign labels onto the intents")
    dataset: str | None = Field(None, description="use only these rows of the label map's dataset column")
    lang: Literal["en", "zh"] | None = Field(None, description="default: the row's lang, else detected")
    weight: float = Field(
        1.0, gt=0, le=10, description="expected times each row is seen per epoch (0.5: half)"
    )
    max_per_intent: int | None = Field(None, ge=1, description="cap per intent after de-duplication")
    dev_fraction: float | None = Field(
        None, ge=0, lt=0.5, description="held back as dev; default data.dev_fraction"
    )

    @model_validator(mode="after")
    def _mapping(self) -> ExtraData:
        if self.label_field != "intent" and not self.label_map:
            raise ValueError(f"label_field {self.label_field!r} needs a label_map CSV")
        if self.dataset and not self.label_map:
            raise ValueError("dataset selects rows of a label_map; give label_map too")
        return self

    @property
    def display_name(self) -> str:
        return self.name or Path(self.path).stem


class DataConfig(_Strict):
    train: list[str] = ["data/intents/en.jsonl", "data/intents/zh.jsonl"]
    heldout: str | None = "data/intents/heldout.jsonl"
    # More evaluation-only files (e.g. real-style analysis sets): measured by the build, never trained or
    # tuned on; like held-out lines, training lines equal to theirs are dropped.
    analysis: list[str] = []
    dev_fraction: float = Field(0.1, gt=0, lt=0.5)
    extra_data: list[ExtraData] = []
    noise_prob: float = Field(
        0.3, ge=0, le=1, description="chance a message is seen as a noisy variant per epoch"
    )
    # expected times each row of a `train` file is seen per epoch (default 1; 0.5: a fresh half every epoch)
    train_weights: dict[str, float] = {}

    @model_validator(mode="after")
    def _unique_names(self) -> DataConfig:
        names = [e.display_name for e in self.extra_data]
        if len(names) != len(set(names)):
            raise ValueError(f"extra_data names must be unique (got {names}); set `name:`")
        unknown = sorted(set(self.train_weights) - set(self.train))
        if unknown:
            raise ValueError(f"train_weights names files that are not in train: {unknown}")
        bad = {k: v for k, v in self.train_weights.items() if not 0 < v <= 10}
        if bad:
            raise ValueError(f"train_weights must be in (0, 10]: {bad}")
        return self


class TrainingConfig(_Strict):
    epochs: int = Field(4, ge=1, le=50)
    batch_size: int = Field(32, ge=1)
    max_length: int = Field(64, ge=8, le=512)
    lr_encoder: float = Field(8e-5, gt=0)
    lr_embeddings: float = Field(3e-4, gt=0)
    lr_head: float = Field(2e-3, gt=0)
    weight_decay: float = Field(0.01, ge=0)
    warmup_ratio: float = Field(0.06, ge=0, lt=1)
    label_smoothing: float = Field(0.05, ge=0, lt=0.5)
    seed: int = 13
    threads: int | None = Field(
        None, ge=1, description="default: the cores not busy with other work (at least 1)"
    )
    # auto: bfloat16 autocast only on a CPU with native bf16 (AVX512_BF16/AMX; emulated it is ~30x slower)
    bf16: bool | Literal["auto"] = Field("auto", description="bfloat16 autocast on CPU: auto, true or false")
    # auto: a CUDA GPU when PyTorch sees one (the fine-tuning takes seconds there instead of minutes); the
    # export, calibration and INT8 steps run on the CPU either way
    device: Literal["auto", "cpu", "cuda"] = Field(
        "auto", description="where to fine-tune: auto, cpu or cuda"
    )


class Int8Config(_Strict):
    enabled: bool = True
    per_channel: bool = True
    max_accuracy_loss_points: float = Field(
        0.5, ge=0, description="the INT8 rule: keep FP32 if INT8 loses more"
    )


class ExportConfig(_Strict):
    opset: int = Field(17, ge=13)
    max_length: int = Field(128, ge=16, le=512, description="serving truncation length")
    int8: Int8Config = Int8Config()


class Thresholds(_Strict):
    # Used as given when `tune` is false; with `tune`, the build picks them on dev
    # (checkpoints/router_decision.py).
    min_confidence: float = Field(0.5, ge=0, le=1)
    min_margin: float = Field(0.1, ge=0, le=1)
    tune: bool = False
    max_uncertain_rate: float = Field(
        0.08, ge=0, le=1, description="cap on the dev uncertain rate when tuning"
    )
    uncertain_cost: float = Field(
        0.5, gt=0, le=1, description="a clarifying question's cost vs a wrong reply"
    )
    min_confidence_floor: float = Field(
        0.0, ge=0, le=1, description="tuning never picks a lower min_confidence"
    )


class OutOfScopeConfig(_Strict):
    # A bias on the out_of_scope score, chosen on dev to reach this out-of-scope recall (0 = no bias).
    target_recall: float | None = Field(0.95, gt=0, le=1)


class ShapeRange(_Strict):
    min: int = Field(ge=1)
    opt: int = Field(ge=1)
    max: int = Field(ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> ShapeRange:
        if not self.min <= self.opt <= self.max:
            raise ValueError(f"need min <= opt <= max, got {self.min}/{self.opt}/{self.max}")
        return self


class TensorRTConfig(_Strict):
    fp16: bool = True
    int8: bool = False  # kept only to refuse `true` with the reason below

    @field_validator("int8")
    @classmethod
    def _no_int8(cls, value: bool) -> bool:
        if value:
            raise ValueError(
                "INT8 TensorRT router engines are not supported: TensorRT's implicit INT8 calibration is "
                "deprecated since 10.1 and removed in 11; use export.int8 (ONNX Runtime INT8, the CPU path) "
                "or the FP16 TensorRT engine (the GPU default)"
            )
        return value

    workspace_mb: int = Field(1024, ge=64)
    sequence: ShapeRange = ShapeRange(min=16, opt=64, max=128)
    batch: ShapeRange = ShapeRange(min=1, opt=8, max=32)
    timing_cache: str | None = "timing.cache"
    builder_optimization_level: int = Field(3, ge=0, le=5)


class RouterBuildConfig(_Strict):
    version: Literal[1]
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    output_dir: str | None = None  # default <cache>/router/<name>
    encoder: EncoderConfig = EncoderConfig()
    data: DataConfig = DataConfig()
    training: TrainingConfig = TrainingConfig()
    export: ExportConfig = ExportConfig()
    thresholds: Thresholds = Thresholds()
    out_of_scope: OutOfScopeConfig = OutOfScopeConfig()
    tensorrt: TensorRTConfig = TensorRTConfig()

    @model_validator(mode="after")
    def _lengths(self) -> RouterBuildConfig:
        if self.tensorrt.sequence.max > self.export.max_length:
            raise ValueError("tensorrt.sequence.max must not exceed export.max_length")
        return self


class ConfigError(ValueError):
    pass


def load_router_config(path: Path) -> RouterBuildConfig:
    try:
        raw = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read YAML: {exc}") from exc
    try:
        return RouterBuildConfig.model_validate(raw)
    except ValidationError as exc:
        lines = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
        raise ConfigError(f"{path}: invalid router config:\n  " + "\n  ".join(lines)) from exc
