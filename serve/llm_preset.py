"""Schema of build_configs/llm/*.yaml: one TensorRT-LLM deployment (model x GPU(s) x precision), validated.

The builder (checkpoints/llm.py) and the server (serve/generation/trtllm.py) both read presets, so the schema
lives on the serving side. Every field maps onto a TensorRT-LLM 1.2 name; tests/data/trtllm_api.json holds
those names and tests/unit/generation/test_trtllm_conformance.py checks them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from serve.engine_artifacts import GPUS, MIN_COMPUTE_CAPABILITY, UNSUPPORTED_GPUS, EngineLayout
from serve.yamlfile import read_yaml


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


WEIGHT_BYTES = {"none": 2.0, "fp8": 1.0, "int8_weight_only": 1.0, "int4_awq": 0.55}


class ModelSection(_Strict):
    hf_dir: str = Field(description="local HF checkpoint directory (weights, tokenizer, chat template)")
    hf_id: str | None = Field(None, description="where the checkpoint comes from (documentation only)")
    family: Literal["llama", "qwen"] = Field(
        description="selects the TensorRT-LLM convert_checkpoint example"
    )
    params_b: float = Field(gt=0, description="parameters in billions, for the memory check")
    languages: list[Literal["en", "zh"]] = Field(min_length=1, description="languages the model writes well")
    served_name: str = Field(min_length=1)

    @property
    def hf_path(self) -> Path:
        import os

        return Path(os.path.expandvars(self.hf_dir)).expanduser()


class TargetSection(_Strict):
    gpus: list[str] = Field(min_length=1, description="GPU types the engine may run on (one type per host)")
    gpu_count: int = Field(1, ge=1, description="GPUs one engine spans: build.tp_size x build.pp_size")

    @model_validator(mode="after")
    def _known(self) -> TargetSection:
        too_old = {g: UNSUPPORTED_GPUS[g] for g in self.gpus if g in UNSUPPORTED_GPUS}
        if too_old:
            raise ValueError(
                f"{', '.join(f'{g} (compute capability {cc})' for g, cc in too_old.items())}: TensorRT-LLM "
                f"1.x needs compute capability >= {MIN_COMPUTE_CAPABILITY} (Ampere or newer); serve these "
                "GPUs with the hf backend instead"
            )
        unknown = [g for g in self.gpus if g not in GPUS]
        if unknown:
            raise ValueError(f"unknown GPU {unknown}; known: {sorted(GPUS)}")
        return self

    @property
    def min_compute_capability(self) -> float:
        return min(GPUS[g][0] for g in self.gpus)

    @property
    def min_memory_gib(self) -> int:
        return min(GPUS[g][1] for g in self.gpus)


class PrecisionSection(_Strict):
    dtype: Literal["float16", "bfloat16"]
    quantization: Literal["none", "fp8", "int8_weight_only", "int4_awq"] = "none"
    kv_cache_dtype: Literal["auto", "fp8"] = "auto"
    calib_dataset_dir: str | None = Field(
        None,
        description="local calibration data for quantize.py (FP8, INT4-AWQ): a datasets directory with a "
        "`train` split and a `text` column; without it quantize.py downloads cnn_dailymail",
    )

    @property
    def calib_path(self) -> Path | None:
        import os

        return (
            Path(os.path.expandvars(self.calib_dataset_dir)).expanduser() if self.calib_dataset_dir else None
        )


class BuildSection(_Strict):
    """trtllm-build flags (engine flow) and the matching LLM API limits (both flows)."""

    max_batch_size: int = Field(ge=1)
    max_input_len: int = Field(ge=1)
    max_seq_len: int = Field(ge=2)
    max_num_tokens: int = Field(ge=1)
    kv_cache_type: Literal["paged"] = "paged"  # in-flight batching needs the paged KV cache
    tokens_per_block: int = Field(32, ge=8)
    use_paged_context_fmha: bool = True
    remove_input_padding: bool = True
    context_fmha: bool = True
    gpt_attention_plugin: Literal["auto", "float16", "bfloat16"] = "auto"
    gemm_plugin: Literal["auto", "float16", "bfloat16", "fp8", "disable"] = "auto"
    use_fp8_context_fmha: bool = False  # always emitted: trtllm-build's own default is enable
    multiple_profiles: bool = False
    tp_size: int = Field(1, ge=1)
    pp_size: int = Field(1, ge=1)
    workers: int = Field(1, ge=1)


class KvCacheSection(_Strict):
    free_gpu_memory_fraction: float = Field(0.85, gt=0, le=1)
    enable_block_reuse: bool = True
    max_tokens: int | None = Field(None, ge=1)


class SchedulerSection(_Strict):
    capacity_scheduler_policy: Literal["GUARANTEED_NO_EVICT", "MAX_UTILIZATION"] = "GUARANTEED_NO_EVICT"
    context_chunking_policy: Literal["FIRST_COME_FIRST_SERVED", "EQUAL_PROGRESS"] | None = None


class RuntimeSection(_Strict):
    kv_cache: KvCacheSection = KvCacheSection()
    scheduler: SchedulerSection = SchedulerSection()
    enable_chunked_prefill: bool = False
    default_max_tokens: int = Field(256, ge=1)


class LlmBuildConfig(_Strict):
    version: Literal[1]
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    flow: Literal["engine", "pytorch"] = Field(
        description="engine: checkpoint -> trtllm-build -> _tensorrt_engine.LLM; pytorch: tensorrt_llm.LLM "
        "on an HF or ModelOpt checkpoint, no engine build"
    )
    model: ModelSection
    target: TargetSection
    precision: PrecisionSection
    build: BuildSection
    runtime: RuntimeSection = RuntimeSection()
    output_dir: str | None = None  # default <cache>/engines/<name>

    def layout(self, cache_dir: Path) -> EngineLayout:
        return EngineLayout.of(
            self.name,
            self.flow,
            self.model.hf_path,
            self.precision.quantization in ("fp8", "int4_awq"),
            self.output_dir,
            cache_dir,
        )

    @model_validator(mode="after")
    def _coherent(self) -> LlmBuildConfig:
        problems = []
        cc = self.target.min_compute_capability
        if (self.precision.quantization == "fp8" or self.precision.kv_cache_dtype == "fp8") and cc < 8.9:
            problems.append(
                f"precision: FP8 needs compute capability >= 8.9 (Ada or Hopper), target.gpus go down to {cc}"
            )
        if self.build.max_input_len > self.build.max_seq_len:
            problems.append(
                f"build.max_input_len ({self.build.max_input_len}) exceeds build.max_seq_len "
                f"({self.build.max_seq_len})"
            )
        if not self.runtime.enable_chunked_prefill and self.build.max_num_tokens < self.build.max_input_len:
            problems.append(
                f"build.max_num_tokens ({self.build.max_num_tokens}) is below build.max_input_len "
                f"({self.build.max_input_len}) and runtime.enable_chunked_prefill is off: long prompts "
                "would be rejected"
            )
        if self.runtime.kv_cache.enable_block_reuse and not self.build.use_paged_context_fmha:
            problems.append("runtime.kv_cache.enable_block_reuse needs build.use_paged_context_fmha: true")
        if self.build.use_fp8_context_fmha and self.precision.quantization != "fp8":
            problems.append("build.use_fp8_context_fmha applies only with precision.quantization: fp8")
        if self.build.gemm_plugin == "fp8" and self.precision.quantization != "fp8":
            problems.append("build.gemm_plugin: fp8 applies only with precision.quantization: fp8")
        if self.precision.quantization in ("fp8", "int4_awq") and not self.precision.calib_dataset_dir:
            problems.append(
                "precision.calib_dataset_dir: quantize.py calibrates on data; without a local directory it "
                "downloads cnn_dailymail from the Hugging Face hub, which build hosts often cannot reach"
            )
        if self.precision.calib_dataset_dir and self.precision.quantization not in ("fp8", "int4_awq"):
            problems.append(
                "precision.calib_dataset_dir applies only to quantize.py (quantization fp8 or int4_awq)"
            )
        if self.target.gpu_count != self.build.tp_size * self.build.pp_size:
            problems.append(
                f"target.gpu_count ({self.target.gpu_count}) must equal build.tp_size x build.pp_size "
                f"({self.build.tp_size} x {self.build.pp_size})"
            )
        if self.build.workers > self.build.tp_size * self.build.pp_size:
            problems.append("build.workers exceeds the number of engine ranks (tp_size x pp_size)")
        if self.flow == "pytorch" and self.precision.quantization in ("int8_weight_only",):
            problems.append(
                "flow: pytorch serves HF or ModelOpt checkpoints; INT8 weight-only needs flow: engine"
            )
        weights_gib = self.model.params_b * WEIGHT_BYTES[self.precision.quantization] * 1e9 / 2**30
        weights_gib /= self.build.tp_size * self.build.pp_size
        if weights_gib > 0.8 * self.target.min_memory_gib:
            problems.append(
                f"precision: {self.model.params_b}B parameters at {self.precision.quantization} take "
                f"~{weights_gib:.1f} GiB per GPU, more than 80 % of the smallest target GPU "
                f"({self.target.min_memory_gib} GiB); "
                "quantize further or add tensor parallelism"
            )
        if problems:
            raise ValueError("; ".join(problems))
        return self


class LlmConfigError(ValueError):
    pass


def load_llm_config(path: Path) -> LlmBuildConfig:
    try:
        raw = read_yaml(Path(path).read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise LlmConfigError(f"{path}: cannot read YAML: {exc}") from exc
    try:
        return LlmBuildConfig.model_validate(raw)
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"]) or "(preset)"
            lines.append(f"{where}: {err['msg'].removeprefix('Value error, ')}")
        raise LlmConfigError(f"{path}: invalid LLM preset:\n  " + "\n  ".join(lines)) from exc
