"""`hf` generator: transformers continuous batching (paged KV cache, in-flight batching) on CPU or CUDA.

One background thread (transformers' CB manager) runs the batch; each request registers an asyncio
result handler, so tokens arrive on the event loop without polling. Closing a request's iterator cancels
it in the engine and drops its handler.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from serve.config import GeneratorSettings
from serve.errors import BackendUnavailable, ContextLengthExceeded, GenerationFailed, InvalidRequest
from serve.generation.base import (
    ChatMessage,
    FinishReason,
    GenerationChunk,
    GenerationRequest,
    GeneratorStats,
)
from serve.generation.chat import ChatTokenizer
from serve.streaming import IncrementalDetokenizer, StopMatcher

logger = logging.getLogger(__name__)

# How long a request waits for its next token before the engine thread's health is checked.
_TOKEN_WATCHDOG_SECONDS = 30.0


class HfGenerator:
    name = "hf"

    def __init__(self, settings: GeneratorSettings, model_dir: Path) -> None:
        self.settings = settings
        self.model_dir = model_dir
        # the embedded default is the base or the fine-tuned SmolLM2: name it by its directory
        self.model_name = settings.model_name if settings.model_dir else model_dir.name
        self.languages = tuple(settings.languages)
        self._active: set[str] = set()
        self._requests_total = 0
        self._manager: Any = None
        self._chat: ChatTokenizer | None = None

    # ------------------------------------------------------------------ loading
    def load(self) -> None:
        """Load model and tokenizer and start the engine thread (blocking; call from a worker thread)."""
        if not (self.model_dir / "config.json").is_file():
            raise BackendUnavailable(
                f"no model at {self.model_dir}: run `csreply prepare` (or `make setup`) to fetch the "
                "embedded default, or set generator.model_dir"
            )
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig
        from transformers.generation.configuration_utils import ContinuousBatchingConfig

        from serve.generation.hf_sampling import build_processors

        torch.set_num_threads(self.settings.num_threads or max(1, os.cpu_count() or 1))
        device = _resolve_device(self.settings.device, torch)
        dtype = "auto" if self.settings.dtype == "auto" else getattr(torch, self.settings.dtype)
        model = AutoModelForCausalLM.from_pretrained(
            self.model_dir, dtype=dtype, attn_implementation=self.settings.attn_implementation
        )
        model.to(device).eval()  # type: ignore[arg-type]
        self._chat = chat = ChatTokenizer(
            AutoTokenizer.from_pretrained(self.model_dir), model.generation_config
        )
        gen_config = GenerationConfig(
            max_new_tokens=self.settings.default_max_tokens,
            do_sample=False,  # sampling happens per request in hf_sampling (Gumbel-max)
            eos_token_id=sorted(chat.stop_ids),
            pad_token_id=chat.pad_id,
        )
        cb_config = ContinuousBatchingConfig(
            page_size=self.settings.page_size,
            num_blocks=self.settings.num_blocks,
            max_batch_tokens=self.settings.max_batch_tokens,
            use_async_batching=False,
            use_cuda_graph=False,
            auto_switch_to_flash=False,
        )
        manager = model.init_continuous_batching(
            generation_config=gen_config, continuous_batching_config=cb_config
        )
        manager.logit_processor = build_processors(chat.stop_ids)
        manager.start()
        self._manager = manager
        logger.info(
            "generator.loaded backend=hf model=%s device=%s dtype=%s threads=%d stop_ids=%s",
            self.model_dir,
            device,
            self.settings.dtype,
            torch.get_num_threads(),
            sorted(chat.stop_ids),
        )

    # ---------------------------------------------------------------- the seam
    def count_prompt_tokens(self, messages: tuple[ChatMessage, ...]) -> int:
        return len(self._require_chat().encode(messages))

    async def generate(self, request: GenerationRequest) -> AsyncGenerator[GenerationChunk, None]:
        manager = self._require_manager()
        chat = self._require_chat()
        prompt_ids = chat.encode(request.messages, request.prefix)
        budget = self.settings.max_model_len - len(prompt_ids)
        if request.max_new_tokens > budget:
            raise ContextLengthExceeded(
                f"the prompt takes {len(prompt_ids)} tokens and max_tokens is {request.max_new_tokens}; "
                f"together they exceed the model's {self.settings.max_model_len}-token context",
                param="max_tokens" if budget > 0 else "messages",
            )
        rid = request.request_id
        if rid in self._active:
            raise InvalidRequest(f"request id {rid!r} is already running", param="request_id")
        from serve.generation.hf_sampling import sampling_kwargs

        seed = request.seed if request.seed is not None else secrets.randbits(31)
        results: asyncio.Queue[Any] = asyncio.Queue()
        manager.register_result_handler(rid, results.put_nowait)
        self._active.add(rid)
        self._requests_total += 1
        finished = False
        try:
            accepted = manager.add_request(
                prompt_ids,
                request_id=rid,
                max_new_tokens=request.max_new_tokens,
                streaming=True,
                **sampling_kwargs(request.temperature, request.top_p, seed),
                **self.guards(request),
                ignore_eos=int(request.ignore_eos),
            )
            if accepted is None:
                raise BackendUnavailable("the generation engine is not accepting requests")
            detok = IncrementalDetokenizer(chat.decode, skip_ids=chat.stop_ids)
            stops = StopMatcher(request.stop)
            seen = 0  # tokens generated so far
            counted = (
                0  # ... and handed out with a chunk (a token that ends mid-character waits for the next)
            )
            while True:
                output = await self._next_output(results)
                if output.error:
                    raise GenerationFailed(f"generation failed: {output.error}")
                tokens = output.generated_tokens
                text = stops.push(detok.push(tokens[seen:]))
                seen = len(tokens)
                done = output.is_finished()
                if stops.stopped or done:
                    finished = done
                    if not stops.stopped:
                        text += stops.push(detok.flush())
                        text += stops.flush()
                    ended = stops.stopped or (tokens and tokens[-1] in chat.stop_ids)
                    reason: FinishReason = "stop" if ended else "length"
                    yield GenerationChunk(
                        text,
                        reason,
                        prompt_tokens=len(prompt_ids),
                        completion_tokens=seen,
                        queue_ms=_queue_ms(output),
                        tokens=seen - counted,
                    )
                    return
                if text:
                    yield GenerationChunk(text, tokens=seen - counted)
                    counted = seen
        finally:
            self._active.discard(rid)
            if not finished:
                self._abort(rid)

    def guards(self, request: GenerationRequest) -> dict[str, float | int]:
        """The request's decoding guards; a guard left at its neutral value takes this generator's default."""
        from serve.generation.hf_sampling import guard_kwargs

        s = self.settings
        return guard_kwargs(
            request.repetition_penalty if request.repetition_penalty != 1.0 else s.repetition_penalty,
            request.presence_penalty if request.presence_penalty != 0.0 else s.presence_penalty,
            request.frequency_penalty if request.frequency_penalty != 0.0 else s.frequency_penalty,
            request.no_repeat_ngram_size if request.no_repeat_ngram_size != 0 else s.no_repeat_ngram_size,
        )

    async def warmup(self) -> None:
        request = GenerationRequest(
            request_id=f"warmup-{secrets.token_hex(4)}",
            messages=(ChatMessage("user", "Hello"),),
            max_new_tokens=4,
        )
        async for _ in self.generate(request):
            pass

    async def check_health(self) -> None:
        manager = self._require_manager()
        fatal = manager.background_thread_status.fatal_error
        if fatal is not None or not manager.is_running():
            raise BackendUnavailable(f"generation engine thread is down: {fatal or 'stopped'}")

    def stats(self) -> GeneratorStats:
        running = waiting = cached = 0
        used = total = None
        processor = getattr(self._manager, "batch_processor", None)
        if processor is not None:
            running = len(processor.scheduler.active_requests)
            waiting = len(processor.scheduler.waiting_requests) + self._manager.input_queue.qsize()
            total = int(processor.cache.num_blocks)
            # Not free is not the same as in use: with block sharing on (transformers' default), the full
            # blocks of finished requests stay as a prefix cache, evicted when a new request needs room.
            # They are reported apart, so "used" returns to 0 when nothing runs.
            cached = sum(len(a.ledger.cached_blocks) for a in processor.cache.cache_allocators.values())
            used = max(
                0, total - round(processor.cache.compute_free_capacity(relative=True) * total) - cached
            )
        return GeneratorStats(
            backend=self.name,
            model=self.model_name,
            active_requests=len(self._active),
            engine_running=running,
            engine_waiting=waiting,
            requests_total=self._requests_total,
            kv_blocks_used=used,
            kv_blocks_total=total,
            extra={"kv_blocks_cached": float(cached)} if processor is not None else {},
        )

    async def aclose(self) -> None:
        manager, self._manager = self._manager, None
        if manager is not None:
            await asyncio.to_thread(manager.stop, block=True, timeout=10)

    # ----------------------------------------------------------------- helpers
    def _require_manager(self) -> Any:
        if self._manager is None:
            raise BackendUnavailable("the hf generator is not loaded")
        return self._manager

    def _require_chat(self) -> ChatTokenizer:
        if self._chat is None:
            raise BackendUnavailable("the hf generator is not loaded")
        return self._chat

    async def _next_output(self, results: asyncio.Queue[Any]) -> Any:
        while True:
            try:
                return await asyncio.wait_for(results.get(), timeout=_TOKEN_WATCHDOG_SECONDS)
            except (TimeoutError, asyncio.TimeoutError):  # one class from 3.11, two on 3.10
                await self.check_health()  # raises when the engine thread died; otherwise keep waiting

    def _abort(self, request_id: str) -> None:
        manager = self._manager
        if manager is None:
            return
        manager.cancel_request(request_id)
        router = manager.output_router
        with router._lock:  # transformers only drops a handler when its request finishes, not on cancel
            router.result_handlers.pop(request_id, None)


def _queue_ms(output: Any) -> float | None:
    started = getattr(output, "lifespan", (-1, -1))[0]
    created = getattr(output, "created_time", None)
    if created is None or started is None or started < 0:
        return None
    return round(max(0.0, started - created) * 1000, 3)


def _resolve_device(device: str, torch: Any) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise BackendUnavailable(f"generator.device is {device!r} but no CUDA device is available")
    return device
