"""FakeTensorRTLLM: a test double of the TensorRT-LLM 1.2 LLM API surface serve/generation/trtllm.py uses.

TensorRT-LLM cannot be installed on the development machines. The fake behaves like the upstream code it
stands in for (docs/gpu.md names the files), so a test fails where the real library would:

* `LLM(**kwargs)` rejects unknown keywords (ValueError) and `SamplingParams` unknown keywords (TypeError),
  using the field lists in tests/data/trtllm_api.json; both validate ranges as the real ones do;
* `generate_async` needs a running event loop, raises RuntimeError("LLM is shutting down") after `shutdown()`,
  and applies the LLM API's length checks (engine flow: prompt + max_tokens against the engine's max_seq_len
  from its config.json; PyTorch flow: prompt against max_num_tokens) with ValueError;
* one `RequestOutput`-like object is mutated and re-yielded (`text_diff`, `token_ids`, `finish_reason`),
  ending in `cancelled` after `abort()`; perf timings are `timedelta`s, as the bindings return them;
* `get_stats_async()` returns an empty iterable before the first request, then always the same
  IterationResult, which yields JSON-decoded dicts, waits `timeout` seconds for the next one, marks itself
  done at the first timeout and is reset only by the next `generate_async` (executor.py / result.py).
"""

from __future__ import annotations

import asyncio
import datetime
import enum
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from tests.conftest import REPO

API_DATA = REPO / "tests" / "data" / "trtllm_api.json"
API = json.loads(API_DATA.read_text())
FAKE_VERSION = API["tensorrt_llm_version"]


def reference_fields(class_name: str) -> set[str]:
    return set(API["classes"][class_name]["fields"])


def reference_values(enum_name: str) -> list[str]:
    return list(API["enums"][enum_name])


def reference_enum(enum_name: str) -> type[enum.Enum]:
    # members read from the reference at import: mypy cannot list them, and types the functional call as
    # returning a member, hence the cast
    return cast("type[enum.Enum]", enum.Enum(enum_name, reference_values(enum_name)))


@dataclass
class Step:
    text_diff: str
    token_ids_diff: list[int]
    finish_reason: str | None = None


Script = Callable[[list[int], Any], list[Step]]


EOS_ID = 2  # the chat's end-of-turn token in the fake tokenizer's world (SmolLM2's <|im_end|>)


def words_script(prompt_ids: list[int], sampling: Any) -> list[Step]:
    """Eight words, then the model emits its end id: the run stops there ("stop"), or at max_tokens words
    ("length"). With `ignore_eos` the worker sends end_id -1, but 1.2.x still applies `stop_token_ids` as stop
    words: only without the end id among them does an ignore_eos run go on to max_tokens."""
    words = ["Hello", " there", ",", " how", " can", " I", " help", "?"]
    stops_at_eos = EOS_ID in (getattr(sampling, "stop_token_ids", None) or [])
    if getattr(sampling, "ignore_eos", False) and not stops_at_eos:
        words = [words[i % len(words)] for i in range(sampling.max_tokens)]
    words = words[: sampling.max_tokens]
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

    def __init__(
        self,
        request_id: int,
        prompt_ids: list[int],
        steps: list[Step],
        raise_at: int | None,
        on_step: Callable[[], None],
    ) -> None:
        asyncio.get_running_loop()  # the real API needs a running loop when the result object is created
        self.request_id = request_id
        self.prompt_token_ids = prompt_ids
        self.finished = False
        self.outputs = [FakeCompletionOutput()]
        self._steps = steps
        self._raise_at = raise_at
        self._aborted = False
        self._on_step = on_step
        self.yielded = 0
        # steady-clock time points, which the bindings hand to Python as timedelta
        arrival = datetime.timedelta(seconds=10)
        timing = SimpleNamespace(
            arrival_time=arrival, first_scheduled_time=arrival + datetime.timedelta(milliseconds=4)
        )
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
            self._on_step()
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
    def __init__(self, **kwargs: Any) -> None:
        unknown = sorted(set(kwargs) - reference_fields("SamplingParams"))
        if unknown:
            raise TypeError(f"SamplingParams.__init__() got an unexpected keyword argument {unknown[0]!r}")
        if kwargs.get("temperature") is not None and kwargs["temperature"] < 0:
            raise ValueError("require temperature >= 0")
        if kwargs.get("top_p") is not None and not 0 <= kwargs["top_p"] <= 1:
            raise ValueError("require 0 <= top_p <= 1")
        if kwargs.get("top_k") is not None and kwargs["top_k"] < 0:
            raise ValueError("require top_k >= 0")
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


CapacitySchedulerPolicy = reference_enum("CapacitySchedulerPolicy")
ContextChunkingPolicy = reference_enum("ContextChunkingPolicy")


class FakeIterationResult:
    """tensorrt_llm.executor.result.IterationResult: one per executor, returned by every get_stats_async()."""

    def __init__(self) -> None:
        self._done = False
        self._timeout = 2.0
        self.queue: asyncio.Queue[str] = asyncio.Queue()

    def set_timeout(self, timeout: float) -> None:
        self._timeout = timeout

    def mark_undone(self) -> None:  # called for every submitted request
        self._done = False

    def __aiter__(self) -> FakeIterationResult:
        return self

    async def __anext__(self) -> dict[str, Any]:
        if self._done:
            raise StopAsyncIteration
        try:
            data = await asyncio.wait_for(self.queue.get(), self._timeout)
        except TimeoutError:
            self._done = True
            raise StopAsyncIteration from None
        return json.loads(data)


async def _empty() -> AsyncIterator[dict[str, Any]]:
    if False:  # an async generator that yields nothing, as executor.empty_async_iterable
        yield {}


class FakeLLM:
    args_class = "TorchLlmArgs"
    script: Script = staticmethod(words_script)
    raise_at: int | None = None
    instances: list[FakeLLM] = []

    def __init__(self, model: str, **kwargs: Any) -> None:
        allowed = reference_fields(self.args_class)
        for key in kwargs:
            if key not in allowed:
                raise ValueError(f"{self.args_class} got invalid argument: {key}")
        self.model = model
        self.kwargs = kwargs
        self.requests: list[tuple[list[int], FakeSamplingParams, FakeRequestOutput]] = []
        self.iteration_stats: list[dict[str, Any]] = []  # emitted one per decoding step while requests run
        self._stats: FakeIterationResult | None = None
        self._shut_down = False
        type(self).instances.append(self)

    def generate_async(
        self, inputs: list[int], sampling_params: FakeSamplingParams | None = None, streaming: bool = False
    ) -> FakeRequestOutput:
        if self._shut_down:
            raise RuntimeError("LLM is shutting down")
        assert streaming, "the backend streams"
        sampling = sampling_params or FakeSamplingParams()
        self._check_arguments(len(inputs), sampling)
        if self._stats is None:
            self._stats = FakeIterationResult()
        else:
            self._stats.mark_undone()
        output = FakeRequestOutput(
            len(self.requests),
            list(inputs),
            type(self).script(list(inputs), sampling),
            type(self).raise_at,
            self._emit_stats,
        )
        self.requests.append((list(inputs), sampling, output))
        return output

    def _check_arguments(self, prompt_len: int, sampling: FakeSamplingParams) -> None:
        if self.kwargs.get("enable_chunked_prefill"):
            return
        max_num_tokens = self.kwargs.get("max_num_tokens", 8192)
        if prompt_len > max_num_tokens:
            raise ValueError(
                f"The sum of prompt length ({prompt_len}), query length (0) should not exceed "
                f"max_num_tokens ({max_num_tokens})"
            )

    def _emit_stats(self) -> None:
        if self._stats is not None and self.iteration_stats:
            self._stats.queue.put_nowait(json.dumps(self.iteration_stats.pop(0)))

    def get_stats_async(self, timeout: float = 2) -> Any:
        if self._stats is None:
            return _empty()
        self._stats.set_timeout(timeout)
        return self._stats

    def shutdown(self) -> None:
        self._shut_down = True

    @property
    def shut_down(self) -> bool:
        return self._shut_down


class FakeEngineLLM(FakeLLM):
    args_class = "TrtLlmArgs"

    def _check_arguments(self, prompt_len: int, sampling: FakeSamplingParams) -> None:
        if self.kwargs.get("enable_chunked_prefill"):
            return
        config = json.loads((Path(self.model) / "config.json").read_text())
        max_seq_len = config["build_config"]["max_seq_len"]
        if prompt_len + (sampling.max_tokens or 0) > max_seq_len:
            raise ValueError(
                f"The sum of prompt length ({prompt_len}) and query length (0) max_tokens "
                f"({sampling.max_tokens}) should not exceed max_seq_len ({max_seq_len})"
            )


class FakeTensorRTLLM:
    """Module-shaped: pass an instance where the backend takes its `module`."""

    __version__ = FAKE_VERSION
    LLM = FakeLLM
    SamplingParams = FakeSamplingParams
    llmapi = SimpleNamespace(
        KvCacheConfig=FakeKvCacheConfig,
        SchedulerConfig=FakeSchedulerConfig,
        CapacitySchedulerPolicy=CapacitySchedulerPolicy,
        ContextChunkingPolicy=ContextChunkingPolicy,
    )
    _tensorrt_engine = SimpleNamespace(LLM=FakeEngineLLM)


def write_engine(
    serve_dir: Path, manifest_path: Path, preset: str, max_seq_len: int = 2048, **manifest: Any
) -> None:
    """Lay out what build-llm leaves behind: engine config.json and csreply-engine.json."""
    from serve.engine_artifacts import EngineManifest

    serve_dir.mkdir(parents=True, exist_ok=True)
    (serve_dir / "config.json").write_text(
        json.dumps(
            {"version": FAKE_VERSION, "pretrained_config": {}, "build_config": {"max_seq_len": max_seq_len}}
        )
    )
    base: dict[str, Any] = {
        "preset": preset,
        "flow": "engine",
        "config_hash": "0" * 16,
        "source_checkpoint": "/models/x",
        "tensorrt_llm_version": FAKE_VERSION,
        "tensorrt_version": None,
        "compute_capability": "9.0",
        "gpu_name": "NVIDIA H200",
        "engine_config_version": FAKE_VERSION,
        "precision": {},
        "serve": {"model": str(serve_dir), "tokenizer": "/models/x"},
    }
    EngineManifest.model_validate({**base, **manifest}).write(manifest_path)
