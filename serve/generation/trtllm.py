"""`trtllm` generator: the TensorRT-LLM 1.2 LLM API (every keyword is checked against
tests/data/trtllm_api.json by tests/unit/generation/test_trtllm_conformance.py; docs/gpu.md lists the upstream
files each behaviour was read in).

* engine flow: `tensorrt_llm._tensorrt_engine.LLM(engine_dir, tokenizer=hf_dir)`, after comparing the
  engine's csreply-engine.json with the running GPU and library versions;
* PyTorch flow: `tensorrt_llm.LLM(hf_dir)` (or the HF export of a ModelOpt-quantised checkpoint).

Requests: prompt token ids from the model's chat template; `generate_async(streaming=True)` created inside
the serving event loop; `max_tokens` always set (the API default is 32); `end_id` and `stop_token_ids` from
the chat template's terminators (1.2 does not add generation_config's EOS list itself); the decoding guards
(repetition/presence/frequency penalties, no-repeat n-gram size) only when they differ from neutral, so
TensorRT-LLM's own defaults apply otherwise. Stop *strings* are
not handed to TensorRT-LLM, whose check on cumulative text can let a stop string that spans two chunks
out first: `text_diff` goes through the same StopMatcher as the hf backend, and the request is aborted
when one matches. A trailing U+FFFD in `text_diff` (half a character) is held back. Closing the stream
calls `abort()`; `aclose` calls `shutdown()`. A preset with `tp_size x pp_size > 1` passes
`tensor_parallel_size` / `pipeline_parallel_size`; the LLM API then spawns its MPI workers itself.

Engine statistics: `get_stats_async()` hands out one long-lived IterationResult that marks itself done at its
first timeout and is reset only by the next `generate_async`, so during an idle gap no new figures arrive.
The poller's figures therefore expire after STATS_MAX_AGE_SECONDS, and with no request in flight the engine
reports 0 running and 0 waiting (this process is the engine's only client).

TensorRT-LLM cannot be installed on the development machines: this module is exercised there through
`tests/fakes_trtllm.py` (FakeTensorRTLLM) and for real only by tests/gpu/test_trtllm_gpu.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from types import ModuleType
from typing import Any

from serve.engine_artifacts import EngineManifest, EngineMismatch, check_engine, compute_capability
from serve.errors import BackendUnavailable, ContextLengthExceeded, GenerationFailed, InvalidRequest
from serve.generation.base import (
    ChatMessage,
    FinishReason,
    GenerationChunk,
    GenerationRequest,
    GeneratorStats,
)
from serve.generation.chat import ChatTokenizer
from serve.llm_preset import LlmBuildConfig, load_llm_config
from serve.streaming import ReplacementCharGuard, StopMatcher

__all__ = ["EngineMismatch", "TrtllmGenerator", "from_preset"]

logger = logging.getLogger(__name__)

STATS_POLL_SECONDS = 2.0
STATS_MAX_AGE_SECONDS = 3 * STATS_POLL_SECONDS  # a few missed polls, then the figures are history
FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "timeout": "length",
    "cancelled": "cancelled",
}
# GenerationRequest field -> its neutral value; SamplingParams has keywords of the same names.
DECODING_GUARDS: dict[str, float] = {
    "repetition_penalty": 1.0,
    "presence_penalty": 0.0,
    "frequency_penalty": 0.0,
    "no_repeat_ngram_size": 0,
}


def kv_cache_kwargs(preset: LlmBuildConfig) -> dict[str, Any]:
    kv = preset.runtime.kv_cache
    kwargs: dict[str, Any] = {
        "free_gpu_memory_fraction": kv.free_gpu_memory_fraction,
        "enable_block_reuse": kv.enable_block_reuse,
    }
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
        kwargs["context_chunking_policy"] = getattr(
            llmapi.ContextChunkingPolicy, sched.context_chunking_policy
        )
    return kwargs


def llm_kwargs(preset: LlmBuildConfig, serve_dir: Path) -> dict[str, Any]:
    """Keyword arguments of the LLM constructor, minus the config objects (added by the caller)."""
    kwargs: dict[str, Any] = {
        "model": str(serve_dir),
        "tokenizer": str(preset.model.hf_path),
        "enable_chunked_prefill": preset.runtime.enable_chunked_prefill,
    }
    b = preset.build
    # One MPI worker per rank, spawned by the LLM API; on the engine flow they must equal the engine's mapping
    if b.tp_size > 1:
        kwargs["tensor_parallel_size"] = b.tp_size
    if b.pp_size > 1:
        kwargs["pipeline_parallel_size"] = b.pp_size
    if preset.flow == "pytorch":
        kwargs.update(
            max_batch_size=b.max_batch_size,
            max_num_tokens=b.max_num_tokens,
            max_seq_len=b.max_seq_len,
            max_input_len=b.max_input_len,
            enable_iter_perf_stats=True,
        )
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
        kwargs.update(
            temperature=request.temperature,
            top_p=request.top_p,
            seed=request.seed if request.seed is not None else secrets.randbits(31),
        )
    for name, neutral in DECODING_GUARDS.items():
        value = getattr(request, name)
        if value != neutral:
            kwargs[name] = value
    if request.ignore_eos:
        kwargs["ignore_eos"] = True  # the executor then sends end_id -1
        # and the chat's end ids must not stop it either: 1.2.x still applies stop_token_ids as stop words
        # with ignore_eos, so a run asked to go to max_tokens would end at the model's first EOS
        kwargs["stop_token_ids"] = []
    return kwargs


def queue_ms_of(output: Any) -> float | None:
    """Arrival to first scheduling, from request_perf_metrics (return_perf_metrics=True), if present."""
    metrics = getattr(output, "request_perf_metrics", None)
    timing = getattr(metrics, "timing_metrics", None)
    arrival = getattr(timing, "arrival_time", None)
    scheduled = getattr(timing, "first_scheduled_time", None)
    if scheduled is None or arrival is None:
        return None
    try:
        delta = scheduled - arrival
        seconds = delta.total_seconds() if hasattr(delta, "total_seconds") else float(delta)
    except TypeError:
        return None
    return round(max(0.0, seconds) * 1000, 3)


def from_preset(preset_path: Path, cache_dir: Path) -> TrtllmGenerator:
    """The generator of a build preset (build_configs/llm/*.yaml), not yet loaded."""
    return TrtllmGenerator(load_llm_config(preset_path), cache_dir)


class TrtllmGenerator:
    name = "trtllm"

    def __init__(
        self,
        preset: LlmBuildConfig,
        cache_dir: Path,
        module: Any | None = None,  # tensorrt_llm, or a test double with its names
        compute_capability: str | None = None,
        visible_gpus: int | None = None,
    ) -> None:
        self.preset = preset
        self.model_name = preset.model.served_name
        self.languages = tuple(preset.model.languages)
        self.layout = preset.layout(cache_dir)
        self._module = module  # tests inject FakeTensorRTLLM; production imports tensorrt_llm in load()
        self._compute_capability = compute_capability
        self._visible_gpus = visible_gpus
        self._llm: Any = None
        self._chat: ChatTokenizer | None = None
        self._active: dict[str, Any] = {}
        self._requests_total = 0
        self._engine_stats: dict[str, Any] = {}
        self._stats_at: float | None = None  # time.monotonic() of the newest iteration stats
        self._kv_blocks_total: int | None = None  # capacity does not change once the engine runs
        self._poller: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ loading
    def load(self) -> None:
        trtllm = self._module or _import_tensorrt_llm()
        self._check_binding(trtllm)
        self._chat = ChatTokenizer.from_dir(self.preset.model.hf_path)
        llmapi = trtllm.llmapi
        kwargs = llm_kwargs(self.preset, self.layout.serve_dir)
        kwargs["kv_cache_config"] = llmapi.KvCacheConfig(**kv_cache_kwargs(self.preset))
        kwargs["scheduler_config"] = llmapi.SchedulerConfig(**scheduler_kwargs(self.preset, llmapi))
        cls = trtllm._tensorrt_engine.LLM if self.preset.flow == "engine" else trtllm.LLM
        self._llm = cls(**kwargs)
        logger.info(
            "generator.loaded backend=trtllm preset=%s flow=%s model=%s",
            self.preset.name,
            self.preset.flow,
            self.layout.serve_dir,
        )

    def _check_binding(self, trtllm: Any) -> None:
        world = self.preset.build.tp_size * self.preset.build.pp_size
        if self.preset.flow != "engine":
            if world > 1 and self._gpu_count() < world:
                raise BackendUnavailable(
                    f"preset {self.preset.name} runs on {world} GPUs, this host shows {self._gpu_count()}"
                )
            return
        manifest_path = self.layout.manifest_path
        if not manifest_path.is_file():
            raise BackendUnavailable(
                f"no engine manifest at {manifest_path}: build the engine first: "
                f"python -m checkpoints build-llm build_configs/llm/{self.preset.name}.yaml"
            )
        manifest = EngineManifest.read(manifest_path)
        engine_config = self.layout.serve_dir / "config.json"
        version = json.loads(engine_config.read_text()).get("version") if engine_config.is_file() else None
        check_engine(
            manifest,
            str(trtllm.__version__),
            _tensorrt_version(),
            self._gpu_capability(),
            version,
            self._gpu_count(),
        )

    def _gpu_capability(self) -> str:
        if self._compute_capability is None:
            self._compute_capability = compute_capability(0)
        return self._compute_capability

    def _gpu_count(self) -> int:
        if self._visible_gpus is None:
            import torch

            self._visible_gpus = torch.cuda.device_count()
        return self._visible_gpus

    # ---------------------------------------------------------------- the seam
    def count_prompt_tokens(self, messages: tuple[ChatMessage, ...]) -> int:
        return len(self._require_chat().encode(messages))

    async def generate(self, request: GenerationRequest) -> AsyncGenerator[GenerationChunk, None]:
        llm, chat = self._require_llm(), self._require_chat()
        prompt_ids = chat.encode(request.messages, request.prefix)
        limit = self.preset.build.max_seq_len
        if (
            len(prompt_ids) + request.max_new_tokens > limit
            or len(prompt_ids) > self.preset.build.max_input_len
        ):
            raise ContextLengthExceeded(
                f"the prompt takes {len(prompt_ids)} tokens and max_tokens is {request.max_new_tokens}; the "
                f"engine allows {self.preset.build.max_input_len} input and {limit} total tokens",
                param="max_tokens",
            )
        if request.request_id in self._active:
            raise InvalidRequest(f"request id {request.request_id!r} is already running", param="request_id")
        sampling = self._module_sampling_params()(**sampling_kwargs(request, chat))
        try:
            output = llm.generate_async(prompt_ids, sampling_params=sampling, streaming=True)
        except ValueError as exc:  # the LLM API's own request checks (lengths, n, logprobs)
            raise InvalidRequest(f"TensorRT-LLM rejected the request: {exc}") from exc
        except RuntimeError as exc:  # "LLM is shutting down"
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
                    reason: FinishReason = (
                        "stop"
                        if stops.stopped
                        else FINISH_REASONS.get(completion.finish_reason or "", "stop")
                    )
                    if reason == "cancelled":
                        raise GenerationFailed("TensorRT-LLM cancelled the request")
                    if not stops.stopped:
                        text += stops.push(guard.flush()) + stops.flush()
                    yield GenerationChunk(
                        text,
                        reason,
                        prompt_tokens=len(prompt_ids),
                        completion_tokens=len(completion.token_ids),
                        queue_ms=queue_ms_of(completion),
                    )
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
        fresh = self._stats_at is not None and time.monotonic() - self._stats_at <= STATS_MAX_AGE_SECONDS
        engine = self._engine_stats if fresh else {}
        kv = engine.get("kvCacheStats") or {}
        if self._active:
            running = int(engine.get("numActiveRequests", len(self._active)))
            waiting = int(engine.get("numQueuedRequests", 0))
        else:
            running = waiting = 0
        return GeneratorStats(
            backend=self.name,
            model=self.model_name,
            active_requests=len(self._active),
            engine_running=running,
            engine_waiting=waiting,
            requests_total=self._requests_total,
            kv_blocks_used=kv.get("usedNumBlocks"),
            kv_blocks_total=self._kv_blocks_total,
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
                        self._keep_stats(json.loads(stat) if isinstance(stat, str) else dict(stat))
                except Exception as exc:  # noqa: BLE001 - stats are best effort, never fatal
                    logger.debug("trtllm.stats_failed error=%s", exc)
            await asyncio.sleep(STATS_POLL_SECONDS)

    def _keep_stats(self, stat: dict[str, Any]) -> None:
        self._engine_stats, self._stats_at = stat, time.monotonic()
        total = (stat.get("kvCacheStats") or {}).get("maxNumBlocks")
        if total is not None:
            self._kv_blocks_total = int(total)

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
