"""Prometheus metrics, `csreply_`-prefixed, with vLLM / TensorRT-LLM semantics so their dashboards translate.

One `Metrics` per app, on its own registry (not the process-global one), so several apps in one process
(tests) never collide. Request-level series are recorded by `RequestObserver` from the API layer; engine
state (KV blocks, pool failovers, GPU) is read at scrape time by a collector, so nothing polls.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from serve.generation.pool import GeneratorPool

logger = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# Buckets as vLLM's (seconds), trimmed to what a CS reply server sees.
TTFT_BUCKETS = (
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
)
ITL_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5)
E2E_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 60.0, 120.0)
QUEUE_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
ROUTER_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)


class Metrics:
    """Every series the server exports. `source` (set once the services exist) feeds the scrape-time
    collector with the engine pool."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.ttft = Histogram(
            "csreply_time_to_first_token_seconds",
            "Request start to first generated text",
            ["endpoint"],
            buckets=TTFT_BUCKETS,
            registry=r,
        )
        self.itl = Histogram(
            "csreply_inter_token_latency_seconds",
            "Time between two streamed text chunks",
            ["endpoint"],
            buckets=ITL_BUCKETS,
            registry=r,
        )
        self.e2e = Histogram(
            "csreply_e2e_request_latency_seconds",
            "Request start to terminal event",
            ["endpoint"],
            buckets=E2E_BUCKETS,
            registry=r,
        )
        self.queue_time = Histogram(
            "csreply_request_queue_time_seconds",
            "Time waiting for admission (server queue) plus the engine's own queue",
            ["endpoint"],
            buckets=QUEUE_BUCKETS,
            registry=r,
        )
        self.router_latency = Histogram(
            "csreply_router_latency_seconds",
            "Intent classification per request",
            buckets=ROUTER_BUCKETS,
            registry=r,
        )
        self.requests = Counter(
            "csreply_requests",
            "Finished requests",
            ["endpoint", "intent", "route", "status", "variant"],
            registry=r,
        )
        self.prompt_tokens = Counter(
            "csreply_prompt_tokens", "Prompt tokens of generated replies", ["endpoint"], registry=r
        )
        self.generation_tokens = Counter(
            "csreply_generation_tokens", "Generated tokens", ["endpoint"], registry=r
        )
        self.rejections = Counter(
            "csreply_request_rejections",
            "Requests refused before their stream started",
            ["endpoint", "reason"],
            registry=r,
        )
        self.aborts = Counter(
            "csreply_request_aborts", "Requests aborted after admission", ["endpoint", "reason"], registry=r
        )
        self.timeouts = Counter(
            "csreply_request_timeouts", "Requests that hit their deadline", ["endpoint"], registry=r
        )
        self.fallbacks = Counter(
            "csreply_fallbacks",
            "Replies served by a fallback (template or failover)",
            ["kind", "variant"],
            registry=r,
        )
        self.cache_hits = Counter(
            "csreply_cache_hits", "Replies answered from the response cache", ["endpoint"], registry=r
        )
        self.running = Gauge(
            "csreply_num_requests_running",
            "Admitted requests holding an engine slot",
            ["endpoint"],
            registry=r,
        )
        self.waiting = Gauge(
            "csreply_num_requests_waiting", "Requests queued for admission", ["endpoint"], registry=r
        )
        self.draining = Gauge("csreply_draining", "1 while the server drains for shutdown", registry=r)
        self.inbox_rows = Counter(
            "csreply_inbox_rows", "Rows written to the router feedback inbox", ["reason"], registry=r
        )
        self.inbox_dropped = Counter(
            "csreply_inbox_dropped",
            "Feedback-inbox rows lost (queue full, sink failed)",
            ["cause"],
            registry=r,
        )
        self.knowledge_hits = Counter(
            "csreply_knowledge_hits",
            "Replies citing a knowledge-base entry (answered from it, or given it as a passage)",
            ["domain", "lang", "entry"],
            registry=r,
        )
        self.knowledge_reloads = Counter(
            "csreply_knowledge_reloads", "Knowledge-base reloads", ["status"], registry=r
        )
        # Every label value exists from the start, so a dashboard's rate() sees 0 rather than no series.
        for reason in ("uncertain", "handoff", "out_of_scope", "low_confidence"):
            self.inbox_rows.labels(reason=reason)
        for cause in ("queue_full", "write_failed", "closed"):
            self.inbox_dropped.labels(cause=cause)
        self.source: Callable[[], GeneratorPool] | None = None
        self._stream_series: dict[str, tuple[Any, Any]] = {}
        r.register(_EngineCollector(self))

    def stream_series(self, endpoint: str) -> tuple[Any, Any]:
        """The endpoint's TTFT and ITL histograms, bound once: `labels()` takes a lock and checks the label
        values on every call, and ITL is observed for every streamed chunk."""
        series = self._stream_series.get(endpoint)
        if series is None:
            series = self._stream_series[endpoint] = (self.ttft.labels(endpoint), self.itl.labels(endpoint))
        return series

    def knowledge_hit(self, domain: str, lang: str, entry: str) -> None:
        self.knowledge_hits.labels(domain, lang, entry).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)


class _EngineCollector(Collector):
    """Scrape-time engine state: KV blocks (where the engine reports them), pool failovers and breaker
    state per variant, GPU utilisation and memory (NVML, when a GPU is present)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self._nvml = _Nvml()

    def describe(self) -> list[Any]:
        return []  # dynamic: nothing checked at registration

    def collect(self) -> Iterator[Any]:
        pool = self.metrics.source() if self.metrics.source is not None else None
        used = GaugeMetricFamily("csreply_kv_cache_blocks_used", "KV-cache blocks in use", labels=["variant"])
        total = GaugeMetricFamily("csreply_kv_cache_blocks_total", "KV-cache blocks", labels=["variant"])
        usage = GaugeMetricFamily("csreply_kv_cache_usage_perc", "KV-cache usage, 0..1", labels=["variant"])
        engine_running = GaugeMetricFamily(
            "csreply_engine_requests_running", "Requests the engine is decoding", labels=["variant"]
        )
        engine_waiting = GaugeMetricFamily(
            "csreply_engine_requests_waiting", "Requests the engine has queued", labels=["variant"]
        )
        failovers = CounterMetricFamily(
            "csreply_generator_failovers",
            "Requests a member could not start, handed to another member",
            labels=["variant"],
        )
        breaker = GaugeMetricFamily(
            "csreply_generator_breaker_open", "1 while a member's circuit is open", labels=["variant"]
        )
        for member in pool.members if pool is not None else []:
            try:
                stats = member.generator.stats()
            except Exception:  # noqa: BLE001 - a scrape never fails because one engine cannot report
                logger.debug("metrics.stats_failed member=%s", member.name, exc_info=True)
                continue
            engine_running.add_metric([member.name], stats.engine_running)
            engine_waiting.add_metric([member.name], stats.engine_waiting)
            if stats.kv_blocks_total:
                used.add_metric([member.name], stats.kv_blocks_used or 0)
                total.add_metric([member.name], stats.kv_blocks_total)
                usage.add_metric([member.name], (stats.kv_blocks_used or 0) / stats.kv_blocks_total)
            failovers.add_metric([member.name], member.failovers)
            breaker.add_metric([member.name], 1.0 if member.breaker.is_open else 0.0)
        yield from (used, total, usage, engine_running, engine_waiting, failovers, breaker)
        yield from self._nvml.collect()


class _Nvml:
    """GPU utilisation and memory through nvidia-ml-py; silent (no series) where there is no GPU."""

    def __init__(self) -> None:
        self._handles: list[Any] | None = None
        self._pynvml: Any = None

    def _init(self) -> list[Any]:
        if self._handles is None:
            self._handles = []
            try:
                import pynvml

                pynvml.nvmlInit()
                self._pynvml = pynvml
                self._handles = [
                    pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(pynvml.nvmlDeviceGetCount())
                ]
            except Exception:  # noqa: BLE001 - no driver, no GPU, or no nvidia-ml-py: no GPU series
                self._handles = []
        return self._handles

    def collect(self) -> Iterator[Any]:
        handles = self._init()
        if not handles:
            return
        util = GaugeMetricFamily("csreply_gpu_utilization_perc", "GPU utilisation, 0..1", labels=["gpu"])
        mem_used = GaugeMetricFamily("csreply_gpu_memory_used_bytes", "GPU memory in use", labels=["gpu"])
        mem_total = GaugeMetricFamily("csreply_gpu_memory_total_bytes", "GPU memory", labels=["gpu"])
        nvml = self._pynvml
        for i, handle in enumerate(handles):
            try:
                rates = nvml.nvmlDeviceGetUtilizationRates(handle)
                memory = nvml.nvmlDeviceGetMemoryInfo(handle)
            except Exception:  # noqa: BLE001
                continue
            util.add_metric([str(i)], rates.gpu / 100.0)
            mem_used.add_metric([str(i)], float(memory.used))
            mem_total.add_metric([str(i)], float(memory.total))
        yield from (util, mem_used, mem_total)


class RequestObserver:
    """One request's timeline, fed by the API layer: admission, router, each text chunk, the end.

    `finish` is idempotent, so the handler may call it from every exit path."""

    __slots__ = (
        "metrics",
        "endpoint",
        "started",
        "last",
        "first",
        "intent",
        "route",
        "variant",
        "finished",
        "_ttft",
        "_itl",
    )

    def __init__(self, metrics: Metrics, endpoint: str) -> None:
        self.metrics = metrics
        self.endpoint = endpoint
        self.started = self.last = time.perf_counter()
        self.first: float | None = None
        self.intent = "-"
        self.route = "-"
        self.variant = "-"  # the engine-pool member that generated the reply (A/B), once known
        self.finished = False
        self._ttft, self._itl = metrics.stream_series(endpoint)

    def routed(self, intent: str, route: str, router_s: float) -> None:
        self.intent, self.route = intent, route
        self.metrics.router_latency.observe(router_s)

    def queued(self, seconds: float) -> None:
        self.metrics.queue_time.labels(self.endpoint).observe(seconds)

    def text(self) -> None:
        now = time.perf_counter()
        if self.first is None:
            self.first = now
            self._ttft.observe(now - self.started)
        else:
            self._itl.observe(now - self.last)
        self.last = now

    def tokens(self, prompt: int, completion: int) -> None:
        if prompt:
            self.metrics.prompt_tokens.labels(self.endpoint).inc(prompt)
        if completion:
            self.metrics.generation_tokens.labels(self.endpoint).inc(completion)

    def finish(self, status: str) -> None:
        """status: ok | timeout | aborted | error | shutdown | rejected | invalid."""
        if self.finished:
            return
        self.finished = True
        m = self.metrics
        m.requests.labels(self.endpoint, self.intent, self.route, status, self.variant).inc()
        if status in ("ok", "timeout", "error", "aborted", "shutdown"):
            m.e2e.labels(self.endpoint).observe(time.perf_counter() - self.started)
        if status == "timeout":
            m.timeouts.labels(self.endpoint).inc()
        elif status in ("aborted", "shutdown"):
            m.aborts.labels(self.endpoint, "client_disconnect" if status == "aborted" else "shutdown").inc()
