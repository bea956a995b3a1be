"""Write tests/data/trtllm_api.json: the TensorRT-LLM 1.2.1 / TensorRT 10 names the GPU code must match.

The conformance tests must run from the project alone, so the facts they need (field names of the LLM API
classes, enum values, defaults that matter, command-line flags, TensorRT 10 names) are kept in a compact data
file in the project. This script regenerates it from a reference directory holding `trtllm.md` and
`trtllm_api/extracted/*.yaml` (the team's transcription of the upstream sources; on the team's machines that
is ../shared/reference):

    python tests/conformance/write_trtllm_api.py --reference DIR [--out tests/data/trtllm_api.json]

Facts that are not in that reference were read in the upstream sources and are listed here with the file they
come from (SUPPLEMENT); docs/gpu.md names the same files.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import yaml

CLASSES = (
    "BaseLlmArgs",
    "TorchLlmArgs",
    "TrtLlmArgs",
    "KvCacheConfig",
    "SchedulerConfig",
    "SamplingParams",
    "BuildConfig",
    "PluginConfig",
    "CompletionOutput",
)
ENUMS = ("CapacitySchedulerPolicy", "ContextChunkingPolicy")
# Defaults the code relies on, by class: what happens when the project leaves a value out.
DEFAULTS_OF_INTEREST = {
    "SamplingParams": (
        "max_tokens",
        "repetition_penalty",
        "presence_penalty",
        "frequency_penalty",
        "no_repeat_ngram_size",
        "ignore_eos",
    ),
    "PluginConfig": ("use_fp8_context_fmha", "use_paged_context_fmha", "tokens_per_block"),
    "BaseLlmArgs": ("tensor_parallel_size", "pipeline_parallel_size", "iter_stats_max_iterations"),
}

# Read in upstream NVIDIA/TensorRT-LLM sources, not in the reference directory.
SUPPLEMENT: dict[str, dict[str, Any]] = {
    "quantize.py": {
        "source": "examples/quantization/quantize.py @059c97c10c12 (argparse)",
        "flags": [
            "--model_dir",
            "--device",
            "--device_map",
            "--calib_dataset",
            "--dtype",
            "--qformat",
            "--seed",
            "--tokenizer_max_seq_length",
            "--batch_size",
            "--calib_size",
            "--calib_max_seq_length",
            "--output_dir",
            "--tp_size",
            "--pp_size",
            "--cp_size",
            "--awq_block_size",
            "--kv_cache_dtype",
            "--quantize_lm_head",
            "--export_format",
        ],
        "defaults": {"--calib_dataset": "cnn_dailymail", "--export_format": "tensorrt_llm"},
    },
    "trtllm-build": {
        "source": "tensorrt_llm/commands/build.py @65f1d1536e18 (argparse; plugin flags from PluginConfig)",
        "deprecated_but_accepted": ["--paged_kv_cache"],
    },
    "cuda_architectures": {
        "source": (
            "cpp/cmake/modules/cuda_configuration.cmake @1b846046ddf7 (default CMAKE_CUDA_ARCHITECTURES)"
        ),
        "sm": [80, 86, 89, 90, 100, 120],
    },
}
# Names the TensorRT 10 section lists as removed in 10.x, and calls the project must not make.
TENSORRT_REMOVED = [
    "max_workspace_size",
    "build_engine",
    "execute_async_v2",
    "get_binding_shape",
    "num_bindings",
    "set_binding_shape",
    "binding_is_input",
]
REMOVED_0X_BUILD_FLAGS = [
    "--use_gpt_attention_plugin",
    "--enable_context_fmha",
    "--use_inflight_batching",
    "--max_output_len",
    "--world_size",
    "--multi_block_mode",
]


def section(text: str, start: str, end: str) -> str:
    return text[text.index(start) : text.index(end)]


def code_span_flags(text: str) -> list[str]:
    """Every --flag inside a `code span` (multi-line spans included)."""
    return sorted({f for span in re.findall(r"`([^`]*)`", text) for f in re.findall(r"--[a-z0-9_]+", span)})


def class_facts(extracted: Path, name: str) -> dict:
    data = yaml.safe_load((extracted / f"{name}.yaml").read_text())
    rows = data.get("effective_fields") or data.get("fields") or []
    facts: dict = {"source": data.get("source_file"), "fields": sorted(r["name"] for r in rows)}
    wanted = DEFAULTS_OF_INTEREST.get(name, ())
    if wanted:
        facts["defaults"] = {r["name"]: r.get("default") for r in rows if r["name"] in wanted}
    return facts


def build(reference: Path) -> dict:
    extracted = reference / "trtllm_api" / "extracted"
    guide = (reference / "trtllm.md").read_text()
    tensorrt = section(guide, "## 8. Plain TensorRT", "## 9.")
    return {
        "about": "TensorRT-LLM 1.2.1 and TensorRT 10 API facts for the conformance tests; regenerate with "
        "tests/conformance/write_trtllm_api.py",
        "tensorrt_llm_version": "1.2.1",
        "classes": {name: class_facts(extracted, name) for name in CLASSES},
        "enums": {
            name: list(yaml.safe_load((extracted / f"{name}.yaml").read_text()).get("values") or [])
            for name in ENUMS
        },
        "cli": {
            "trtllm-build": {
                **SUPPLEMENT["trtllm-build"],
                "flags": [
                    f
                    for f in code_span_flags(section(guide, "### 5.2 `trtllm-build`", "### 5.3"))
                    if f not in REMOVED_0X_BUILD_FLAGS
                ],
            },
            "convert_checkpoint.py": {
                "source": "examples/models/core/llama/convert_checkpoint.py @368f8f2ade00",
                "flags": code_span_flags(section(guide, "### 5.1 HF", "### 5.2")),
            },
            "quantize.py": SUPPLEMENT["quantize.py"],
            "removed_0x_build_flags": REMOVED_0X_BUILD_FLAGS,
        },
        "cuda_architectures": SUPPLEMENT["cuda_architectures"],
        "tensorrt": {
            "version": "10.13",
            "identifiers": sorted(set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", tensorrt))),
            "removed_in_10": TENSORRT_REMOVED,
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--reference",
        type=Path,
        required=True,
        help="directory holding trtllm.md and trtllm_api/extracted/*.yaml",
    )
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parents[1] / "data" / "trtllm_api.json"
    )
    args = parser.parse_args()
    data = build(args.reference)
    args.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
