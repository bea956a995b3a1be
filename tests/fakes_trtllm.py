"""FakeTensorRTLLM: a test double of the TensorRT-LLM 1.2 LLM API surface serve/generation/trtllm.py uses.

TensorRT-LLM cannot be installed on the development machines. Like the real API, the fake rejects
unknown `LLM` keywords (ValueError) and unknown `SamplingParams` keywords (TypeError), using the field
lists of shared/reference/trtllm_api/extracted; it requires `generate_async` to be called inside a
running event loop; and it replays scripted steps on one mutated `RequestOutput`-like object
(`text_diff`, `token_ids`, `finish_reason`), ending in `cancelled` after `abort()`.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml

from tests.conftest import REPO

API_DIR = REPO.parent / "shared" / "reference" / "trtllm_api" / "extracted"
FAKE_VERSION = "1.2.1"


def reference_fields(class_name: str) -> set[str]:
    data = yaml.safe_load((API_DIR / f"{class_name}.yaml").read_text())
    rows = data.get("effective_fields") or data.get("fields") or []
    return {row["name"] for row in rows}


def reference_values(class_name: str) -> list[str]:
    return list(yaml.safe_load((API_DIR / f"{class_name}.yaml").read_text()).get("values") or [])


@dataclass
class Step:
    text_diff: str
    token_ids_diff: list[int]
    finish_reason: str | None = None


Script = Callable[[list[int], Any], list[Step]]


def words_script(prompt_ids: list[int], sampling: Any) -> list[Step]:
    words = ["Hello", " there", ",", " how", " can", " I", " help", "?"][: sampling.max_tokens]
    steps = [Step(w, [100 + i]) for i, w in enumerate(words)]
    steps[-1].finish_reason = "stop" if len(words) < sampling.max_tokens else "length"
    return steps


@dataclass
class FakeCompletionOutput:
    index: int = 0
    text: str = ""
    text_diff: str = ""
    token_ids: list[int] = field(default_factory=list)
    token_ids_diff: list[int] = field(default_factory=list)
    finish_reason: str | None = None
    stop_reason: Any = None
    request_perf_metrics: Any = None


class FakeRequestOutput:
    """One object, mutated and re-yielded every step, as the real RequestOutput is."""

    def __init__(self, request_id: int, prompt_ids: list[int], steps: list[Step], raise_at: int | None) -> None:
        asyncio.get_running_loop()  # the real API needs a running loop when the result object is created
        self.request_id = request_id
        self.prompt_token_ids = prompt_ids
        self.finished = False
        self.outputs = [FakeCompletionOutput()]
        self._steps = steps
        self._raise_at = raise_at
        self._aborted = False
        self.yielded = 0
        timing = SimpleNamespace(arrival_time=10.0, first_scheduled_time=10.004)
        self.outputs[0].request_perf_metrics = SimpleNamespace(timing_metrics=timing)

    def abort(self) -> None:
        self._aborted = True

    def aborted(self) -> bool:
        return self._aborted

    def __aiter__(self) -> AsyncIterator[FakeRequestOutput]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[FakeRequestOutput]:
        out = self.outputs[0]
        for i, step in enumerate(self._steps):
            await asyncio.sleep(0)
            if self._raise_at == i:
                raise RuntimeError("CUDA error: an illegal memory access was encountered")
            if self._aborted:
                out.text_diff, out.token_ids_diff, out.finish_reason = "", [], "cancelled"
                self.finished = True
                yield self
                return
            out.text_diff, out.token_ids_diff = step.text_diff, list(step.token_ids_diff)
            out.text += step.text_diff
            out.token_ids = out.token_ids + list(step.token_ids_diff)
            out.finish_reason = step.finish_reason
            self.finished = step.finish_reason is not None
            self.yielded += 1
            yield self
            if self.finished:
                return


class FakeSamplingParams:
    _fields: set[str] | None = None

    def __init__(self, **kwargs: Any) -> None:
        allowed = FakeSamplingParams._fields or reference_fields("SamplingParams")
        FakeSamplingParams._fields = allowed
        unknown = sorted(set(kwargs) - allowed)
        if unknown:
            raise TypeError(f"SamplingParams.__init__() got an unexpected keyword argument {unknown[0]!r}")
        self.max_tokens = 32  # the real default: callers must always set it
        self.__dict__.update(kwargs)


class _Config:
    class_name = ""

    def __init__(self, **kwargs: Any) -> None:
        unknown = sorted(set(kwargs) - reference_fields(self.class_name))
        if unknown:
            raise ValueError(f"{self.class_name}: extra fields not permitted: {unknown}")
        self.kwargs = kwargs


class FakeKvCacheConfig(_Config):
    class_name = "KvCacheConfig"


class FakeSchedulerConfig(_Config):
    class_name = "SchedulerConfig"


CapacitySchedulerPolicy = enum.Enum("CapacitySchedulerPolicy", reference_values("CapacitySchedulerPolicy")
                                    if API_DIR.is_dir() else ["MAX_UTILIZATION", "GUARANTEED_NO_EVICT"])
ContextChunkingPolicy = enum.Enum("ContextChunkingPolicy", reference_values("ContextChunkingPolicy")
                                  if API_DIR.is_dir() else ["FIRST_COME_FIRST_SERVED", "EQUAL_PROGRESS"])


class FakeLLM:
    args_class = "TorchLlmArgs"
    script: Script = staticmethod(words_script)
    raise_at: int | None = None
    refuse_with: str | None = None
    instances: list[FakeLLM] = []

    def __init__(self, model: str, **kwargs: Any) -> None:
        allowed = reference_fields(self.args_class)
        for key in kwargs:
            if key not in allowed:
                raise ValueError(f"{self.args_class} got invalid argument: {key}")
        self.model = model
        self.kwargs = kwargs
        self.requests: list[tuple[list[int], FakeSamplingParams, FakeRequestOutput]] = []
        self.stats: list[dict[str, Any]] = []
        self.shut_down = False
        type(self).instances.append(self)

    def generate_async(self, inputs: list[int], sampling_params: FakeSamplingParams | None = None,
                       streaming: bool = False) -> FakeRequestOutput:
        if self.refuse_with:
            raise RuntimeError(self.refuse_with)
        assert streaming, "the backend streams"
        sampling = sampling_params or FakeSamplingParams()
        output = FakeRequestOutput(len(self.requests), list(inputs), type(self).script(list(inputs), sampling),
                                   type(self).raise_at)
        self.requests.append((list(inputs), sampling, output))
        return output

    async def get_stats_async(self, timeout: float = 2) -> AsyncIterator[dict[str, Any]]:
        while self.stats:
            yield self.stats.pop(0)

    def shutdown(self) -> None:
        self.shut_down = True


class FakeEngineLLM(FakeLLM):
    args_class = "TrtLlmArgs"


class FakeTensorRTLLM:
    """Module-shaped: pass an instance where the backend takes its `module`."""

    __version__ = FAKE_VERSION
    LLM = FakeLLM
    SamplingParams = FakeSamplingParams
    llmapi = SimpleNamespace(KvCacheConfig=FakeKvCacheConfig, SchedulerConfig=FakeSchedulerConfig,
                             CapacitySchedulerPolicy=CapacitySchedulerPolicy,
                             ContextChunkingPolicy=ContextChunkingPolicy)
    _tensorrt_engine = SimpleNamespace(LLM=FakeEngineLLM)


def write_engine(serve_dir: Path, manifest_path: Path, preset: str, **manifest: Any) -> None:
    """Lay out what build-llm leaves behind: engine config.json and csreply-engine.json."""
    serve_dir.mkdir(parents=True, exist_ok=True)
    (serve_dir / "config.json").write_text('{"version": "1.2.1", "pretrained_config": {}, "build_config": {}}')
    base = {"preset": preset, "tensorrt_llm_version": FAKE_VERSION, "tensorrt_version": None,
            "compute_capability": "9.0", "gpu_name": "NVIDIA H200", "engine_config_version": "1.2.1"}
    import json

    manifest_path.write_text(json.dumps({**base, **manifest}))
