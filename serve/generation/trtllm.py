"""`trtllm` generator: the TensorRT-LLM 1.2 LLM API, written to shared/reference/trtllm.md and the API data
in shared/reference/trtllm_api/ (every keyword is checked by tests/unit/generation/test_trtllm_conformance.py).

* engine flow: `tensorrt_llm._tensorrt_engine.LLM(engine_dir, tokenizer=hf_dir)`, after comparing the
  engine's csreply-engine.json with the running GPU and library versions;
* PyTorch flow: `tensorrt_llm.LLM(hf_dir)` (or the HF export of a ModelOpt-quantised checkpoint).

Requests: prompt token ids from the model's chat template; `generate_async(streaming=True)` created inside
the serving event loop; `max_tokens` always set (the API default is 32); `end_id` and `stop_token_ids` from
the chat template's terminators (1.2 does not add generation_config's EOS list itself). Stop *strings* are
not handed to TensorRT-LLM, whose check on cumulative text can let a stop string that spans two chunks
out first: `text_diff` goes through the same StopMatcher as the hf backend, and the request is aborted
when one matches. A trailing U+FFFD in `text_diff` (half a character) is held back. Closing the stream
calls `abort()`; `aclose` calls `shutdown()`.

TensorRT-LLM cannot be installed on the development machines: this module is exercised there through
`tests/fakes_trtllm.py` (FakeTensorRTLLM) and for real only by tests/gpu/test_trtllm_gpu.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import AsyncGenerator
from pathlib import Path
from types import ModuleType
from typing import Any

from checkpoints.llm import ENGINE_MANIFEST, plan_build
from checkpoints.llm_config import LlmBuildConfig
from serve.errors import BackendUnavailable, ContextLengthExceeded, GenerationFailed, InvalidRequest
from serve.generation.base import ChatMessage, GenerationChunk, GenerationRequest, GeneratorStats
from serve.generation.chat import ChatTokenizer
from serve.streaming import ReplacementCharGuard, StopMatcher

logger = logging.getLogger(__name__)

STATS_POLL_SECONDS = 2.0
FINISH_REASONS = {"stop": "stop", "length": "length", "timeout": "length", "cancelled": "cancelled"}


class EngineMismatch(RuntimeError):
    """The engine was built for another GPU or other library versions."""


def check_engine(manifest: dict[str, Any], trtllm_version: str, trt_version: str | None,
                 compute_capability: str, engine_config_version: str | None) -> None:
    """Raise EngineMismatch naming each difference and how to rebuild."""
    problems = []
    if manifest.get("tensorrt_llm_version") != trtllm_version:
        problems.append(f"TensorRT-LLM {manifest.get('tensorrt_llm_version')} built it, this process has {trtllm_version}")
    if manifest.get("tensorrt_version") and trt_version and manifest["tensorrt_version"] != trt_version:
        problems.append(f"TensorRT {manifest['tensorrt_version']} built it, this process has {trt_version}")
    if manifest.get("compute_capability") != compute_capability:
        problems.append(f"it was built on {manifest.get('gpu_name')} (compute capability "
                        f"{manifest.get('compute_capability')}), this GPU is compute capability {compute_capability}")
    if engine_config_version is not None and manifest.get("engine_config_version") not in (None, engine_config_version):
        problems.append(f"its config.json now says version {engine_config_version}, the manifest "
                        f"{manifest.get('engine_config_version')}: the engine directory was replaced")
    if problems:
        raise EngineMismatch(
            "TensorRT-LLM engine does not match this machine: " + "; ".join(problems)
            + f". Rebuild it here: python -m checkpoints build-llm build_configs/llm/{manifest.get('preset')}.yaml"
        )


def kv_cache_kwargs(preset: LlmBuildConfig) -> dict[str, Any]:
    kv = preset.runtime.kv_cache
    kwargs: dict[str, Any] = {"free_gpu_memory_fraction": kv.free_gpu_memory_fraction,
                              "enable_block_reuse": kv.enable_block_reuse}
    if kv.max_tokens is not None:
        kwargs["max_tokens"] = kv.max_tokens
    if preset.flow == "pytorch":
        kwargs["tokens_per_block"] = preset.build.tokens_per_block
        if preset.precision.kv_cache_dtype == "fp8":
            kwargs["dtype"] = "fp8"  # PyTorch flow only; the engine's KV dtype is fixed at build time
    return kwargs


def scheduler_kwargs(preset: LlmBuildConfig, llmapi: Any) -> dict[str, Any]:
    sched = preset.runtime.scheduler
    kwargs: dict[str, Any] = {
        "capacity_scheduler_policy": getattr(llmapi.CapacitySchedulerPolicy, sched.capacity_scheduler_policy)
    }
    if sched.context_chunking_policy:
        kwargs["context_chunking_policy"] = getattr(llmapi.ContextChunkingPolicy, sched.context_chunking_policy)
    return kwargs


def llm_kwargs(preset: LlmBuildConfig, serve_dir: Path) -> dict[str, Any]:
    """Keyword arguments of the LLM constructor, minus the config objects (added by the caller)."""
    kwargs: dict[str, Any] = {
        "model": str(serve_dir),
        "tokenizer": str(preset.model.hf_path),
        "enable_chunked_prefill": preset.runtime.enable_chunked_prefill,
        "iter_stats_max_iterations": 100,  # bounded stats queue
    }
    if preset.flow == "pytorch":
        b = preset.build
        kwargs.update(max_batch_size=b.max_batch_size, max_num_tokens=b.max_num_tokens, max_seq_len=b.max_seq_len,
                      max_input_len=b.max_input_len, enable_iter_perf_stats=True)
    return kwargs


def sampling_kwargs(request: GenerationRequest, chat: ChatTokenizer) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "max_tokens": request.max_new_tokens,
        "end_id": chat.eos_id,
        "pad_id": chat.pad_id,
        "stop_token_ids": sorted(chat.stop_ids),
        "detokenize": True,
        "skip_special_tokens": True,
        "return_perf_metrics": True,
    }
    if request.temperature <= 0:
        kwargs["top_k"] = 1  # greedy
    else:
        kwargs.update(temperature=request.temperature, top_p=request.top_p,
                      seed=request.seed if request.seed is not None else secrets.randbits(31))
    return kwargs


def queue_ms_of(output: Any) -> float | None:
    """Arrival to first scheduling, from request_perf_metrics (return_perf_metrics=True), if present."""
    metrics = getattr(output, "request_perf_metrics", None)
    timing = getattr(metrics, "timing_metrics", None)
    arrival = getattr(timing, "arrival_time", None)
    scheduled = getattr(timing, "first_scheduled_time", None)
    try:
        delta = scheduled - arrival
        seconds = delta.total_seconds() if hasattr(delta, "total_seconds") else float(delta)
    except TypeError:
        return None
    return round(max(0.0, seconds) * 1000, 3)


def from_preset(preset_path: Path, cache_dir: Path) -> TrtllmGenerator:
    """The generator of a build preset (build_configs/llm/*.yaml), not yet loaded."""
    from checkpoints.llm_config import load_llm_config

    return TrtllmGenerator(load_llm_config(preset_path), cache_dir)


class TrtllmGenerator:
    name = "trtllm"

    def __init__(self, preset: LlmBuildConfig, cache_dir: Path, module: ModuleType | None = None,
                 compute_capability: str | None = None) -> None:
        self.preset = preset
        self.model_name = preset.model.served_name
        self.languages = tuple(preset.model.languages)
        self.plan = plan_build(preset, cache_dir)
        self._module = module  # tests inject FakeTensorRTLLM; production imports tensorrt_llm in load()
        self._compute_capability = compute_capability
        self._llm: Any = None
        self._chat: ChatTokenizer | None = None
        self._active: dict[str, Any] = {}
        self._requests_total = 0
        self._engine_stats: dict[str, Any] = {}
        self._poller: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ loading
    def load(self) -> None:
        trtllm = self._module or _import_tensorrt_llm()
        self._check_binding(trtllm)
        self._chat = ChatTokenizer.from_dir(self.preset.model.hf_path)
        llmapi = trtllm.llmapi
        kwargs = llm_kwargs(self.preset, self.plan.serve_dir)
        kwargs["kv_cache_config"] = llmapi.KvCacheConfig(**kv_cache_kwargs(self.preset))
        kwargs["scheduler_config"] = llmapi.SchedulerConfig(**scheduler_kwargs(self.preset, llmapi))
        cls = trtllm._tensorrt_engine.LLM if self.preset.flow == "engine" else trtllm.LLM
        self._llm = cls(**kwargs)
        logger.info("generator.loaded backend=trtllm preset=%s flow=%s model=%s", self.preset.name,
                    self.preset.flow, self.plan.serve_dir)

    def _check_binding(self, trtllm: Any) -> None:
        if self.preset.flow != "engine":
            return
        manifest_path = self.plan.manifest_path
        if not manifest_path.is_file():
            raise BackendUnavailable(
                f"no engine manifest at {manifest_path}: build the engine first: "
                f"python -m checkpoints build-llm build_configs/llm/{self.preset.name}.yaml"
            )
        manifest = json.loads(manifest_path.read_text())
        engine_config = self.plan.serve_dir / "config.json"
        version = json.loads(engine_config.read_text()).get("version") if engine_config.is_file() else None
        check_engine(manifest, str(trtllm.__version__), _tensorrt_version(), self._gpu_capability(), version)

    def _gpu_capability(self) -> str:
        if self._compute_capability is None:
            import torch

            major, minor = torch.cuda.get_device_capability(0)
            self._compute_capability = f"{major}.{minor}"
        return self._compute_capability

    # ---------------------------------------------------------------- the seam
    def count_prompt_tokens(self, messages: tuple[ChatMessage, ...]) -> int:
        return len(self._require_chat().encode(messages))

    async def generate(self, request: GenerationRequest) -> AsyncGenerator[GenerationChunk, None]:
        llm, chat = self._require_llm(), self._require_chat()
        prompt_ids = chat.encode(request.messages)
        limit = self.preset.build.max_seq_len
        if len(prompt_ids) + request.max_new_tokens > limit or len(prompt_ids) > self.preset.build.max_input_len:
            raise ContextLengthExceeded(
                f"the prompt takes {len(prompt_ids)} tokens and max_tokens is {request.max_new_tokens}; the engine "
                f"allows {self.preset.build.max_input_len} input and {limit} total tokens", param="max_tokens")
        if request.request_id in self._active:
            raise InvalidRequest(f"request id {request.request_id!r} is already running", param="request_id")
        sampling = self._module_sampling_params()(**sampling_kwargs(request, chat))
        try:
            output = llm.generate_async(prompt_ids, sampling_params=sampling, streaming=True)
        except RuntimeError as exc:
            raise BackendUnavailable(f"TensorRT-LLM refused the request: {exc}") from exc
        self._active[request.request_id] = output
        self._requests_total += 1
        guard, stops = ReplacementCharGuard(), StopMatcher(request.stop)
        finished = False
        try:
            async for step in output:
                completion = step.outputs[0]
                text = stops.push(guard.push(completion.text_diff or ""))
                if stops.stopped or step.finished:
                    finished = step.finished
                    reason = "stop" if stops.stopped else FINISH_REASONS.get(completion.finish_reason or "", "stop")
                    if reason == "cancelled":
                        raise GenerationFailed("TensorRT-LLM cancelled the request")
                    if not stops.stopped:
                        text += stops.push(guard.flush()) + stops.flush()
                    yield GenerationChunk(text, reason, prompt_tokens=len(prompt_ids),
                                          completion_tokens=len(completion.token_ids), queue_ms=queue_ms_of(completion))
                    return
                if text:
                    yield GenerationChunk(text)
        except (GenerationFailed, asyncio.CancelledError, GeneratorExit):
            raise
        except RuntimeError as exc:
            raise GenerationFailed(f"TensorRT-LLM failed mid-stream: {exc}") from exc
        finally:
            self._active.pop(request.request_id, None)
            if not finished:
                with contextlib.suppress(Exception):
                    output.abort()  # frees the request's KV blocks; a bare break would not

    async def warmup(self) -> None:
        if self._poller is None:
            self._poller = asyncio.create_task(self._poll_stats(), name="trtllm-stats")
        request = GenerationRequest(f"warmup-{secrets.token_hex(4)}", (ChatMessage("user", "Hello"),), 4)
        async for _ in self.generate(request):
            pass

    async def check_health(self) -> None:
        self._require_llm()

    def stats(self) -> GeneratorStats:
        kv = self._engine_stats.get("kvCacheStats") or {}
        return GeneratorStats(
            backend=self.name, model=self.model_name, active_requests=len(self._active),
            engine_running=int(self._engine_stats.get("numActiveRequests", len(self._active))),
            engine_waiting=int(self._engine_stats.get("numQueuedRequests", 0)),
            requests_total=self._requests_total,
            kv_blocks_used=kv.get("usedNumBlocks"), kv_blocks_total=kv.get("maxNumBlocks"),
        )

    async def aclose(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
            self._poller = None
        llm, self._llm = self._llm, None
        if llm is not None:
            await asyncio.to_thread(llm.shutdown)

    # ----------------------------------------------------------------- helpers
    async def _poll_stats(self) -> None:
        """Keep the newest iteration stats (get_stats_async drains its queue: one consumer, here)."""
        while True:
            llm = self._llm
            if llm is not None:
                try:
                    async for stat in llm.get_stats_async(timeout=STATS_POLL_SECONDS):
                        self._engine_stats = json.loads(stat) if isinstance(stat, str) else dict(stat)
                except Exception as exc:  # noqa: BLE001 - stats are best effort, never fatal
                    logger.debug("trtllm.stats_failed error=%s", exc)
            await asyncio.sleep(STATS_POLL_SECONDS)

    def _module_sampling_params(self) -> Any:
        module = self._module or _import_tensorrt_llm()
        return module.SamplingParams

    def _require_llm(self) -> Any:
        if self._llm is None:
            raise BackendUnavailable("the trtllm generator is not loaded")
        return self._llm

    def _require_chat(self) -> ChatTokenizer:
        if self._chat is None:
            raise BackendUnavailable("the trtllm generator is not loaded")
        return self._chat


def _import_tensorrt_llm() -> ModuleType:
    import tensorrt_llm
    import tensorrt_llm._tensorrt_engine  # noqa: F401 - the engine-flow LLM class lives here
    import tensorrt_llm.llmapi  # noqa: F401

    return tensorrt_llm


def _tensorrt_version() -> str | None:
    try:
        import tensorrt
    except ImportError:
        return None
    return str(tensorrt.__version__)
