from __future__ import annotations

import asyncio
import threading

import pytest

from serve.router.base import IntentResult
from serve.router.batching import MicroBatcher
from serve.router.fallback import FallbackRouter


async def test_concurrent_requests_share_one_batch() -> None:
    seen: list[list[str]] = []
    release = threading.Event()

    def run(texts: list[str]) -> list[str]:
        seen.append(texts)
        release.wait(5)
        return [t.upper() for t in texts]

    batcher: MicroBatcher[str] = MicroBatcher(run, max_batch_size=8, max_wait_ms=50)
    release.set()
    results = await asyncio.gather(*(batcher.submit([f"m{i}"]) for i in range(5)))
    assert results == [[f"M{i}"] for i in range(5)]
    assert batcher.batches_run == 1 and seen == [[f"m{i}" for i in range(5)]]
    await batcher.aclose()


async def test_batches_never_exceed_the_size_limit_and_keep_order() -> None:
    batcher: MicroBatcher[int] = MicroBatcher(
        lambda texts: [len(t) for t in texts], max_batch_size=3, max_wait_ms=20
    )
    results = await asyncio.gather(*(batcher.submit(["x" * i]) for i in range(7)))
    assert results == [[i] for i in range(7)]
    assert batcher.largest_batch <= 3 and batcher.batches_run >= 3
    await batcher.aclose()


async def test_zero_wait_dispatches_immediately() -> None:
    batcher: MicroBatcher[str] = MicroBatcher(lambda texts: texts, max_batch_size=64, max_wait_ms=0)
    assert await asyncio.wait_for(batcher.submit(["a", "b"]), 1) == ["a", "b"]
    await batcher.aclose()


async def test_a_failing_batch_fails_each_caller_and_the_batcher_keeps_working() -> None:
    calls = 0

    def run(texts: list[str]) -> list[str]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("model crashed")
        return texts

    batcher: MicroBatcher[str] = MicroBatcher(run, max_batch_size=4, max_wait_ms=20)
    first = await asyncio.gather(batcher.submit(["a"]), batcher.submit(["b"]), return_exceptions=True)
    assert all(isinstance(r, RuntimeError) for r in first)
    assert await batcher.submit(["c"]) == ["c"]
    await batcher.aclose()


class _Backend:
    def __init__(self, name: str, fail: bool) -> None:
        self.name, self.fail, self.calls = name, fail, 0
        self.labels = ("a",)

    async def classify(self, texts: list[str], top_k: int = 5) -> list[IntentResult]:
        self.calls += 1
        if self.fail:
            raise RuntimeError(f"{self.name} down")
        return [IntentResult("a", 1.0, (), False, None, self.name, "en") for _ in texts]

    async def check_health(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


async def test_fallback_skips_a_failing_backend_and_opens_its_breaker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [100.0]
    monkeypatch.setattr("serve.router.fallback.time.monotonic", lambda: clock[0])
    primary, backup = _Backend("onnx", fail=True), _Backend("rules", fail=False)
    router = FallbackRouter([primary, backup], failures_to_open=2, cooldown_s=30)
    for _ in range(4):
        assert (await router.classify(["hi"]))[0].backend == "rules"
    assert primary.calls == 2  # breaker open after two failures: not tried again
    assert router.degraded == ["router:onnx circuit open"]
    primary.fail = False
    clock[0] += 31  # cooldown over: half-open, one trial call, which succeeds and closes the breaker
    assert (await router.classify(["hi"]))[0].backend == "onnx"
    assert router.degraded == []


async def test_every_backend_failing_is_a_typed_503() -> None:
    from serve.errors import BackendUnavailable

    router = FallbackRouter([_Backend("onnx", fail=True)], failures_to_open=5)
    with pytest.raises(BackendUnavailable, match="every backend failed"):
        await router.classify(["hi"])


async def _timed_submit(batcher: MicroBatcher[str], texts: list[str]) -> float:
    loop = asyncio.get_running_loop()
    started = loop.time()
    await batcher.submit(texts)
    return loop.time() - started


async def test_adaptive_window_runs_a_lone_request_at_once_where_the_fixed_one_waits() -> None:
    adaptive: MicroBatcher[str] = MicroBatcher(lambda t: t, max_batch_size=8, max_wait_ms=300)
    fixed: MicroBatcher[str] = MicroBatcher(lambda t: t, max_batch_size=8, max_wait_ms=300, adaptive=False)
    assert await _timed_submit(adaptive, ["alone"]) < 0.2
    assert await _timed_submit(fixed, ["alone"]) >= 0.25
    await asyncio.sleep(0.35)  # a quiet spell: the next one is alone again
    assert await _timed_submit(adaptive, ["alone again"]) < 0.2
    assert adaptive.windows_waited == 0 and fixed.windows_waited == 1
    await adaptive.aclose()
    await fixed.aclose()


async def test_adaptive_window_batches_requests_that_queue_behind_a_running_batch() -> None:
    seen: list[list[str]] = []
    first_running = threading.Event()
    release = threading.Event()

    def run(texts: list[str]) -> list[str]:
        seen.append(texts)
        first_running.set()
        release.wait(5)
        return texts

    batcher: MicroBatcher[str] = MicroBatcher(run, max_batch_size=16, max_wait_ms=50)
    first = asyncio.create_task(batcher.submit(["first"]))
    await asyncio.to_thread(first_running.wait, 5)
    later = [asyncio.create_task(batcher.submit([f"q{i}"])) for i in range(6)]
    await asyncio.sleep(0.05)  # all six queue while the first batch still runs
    release.set()
    assert await first == ["first"]
    assert [await t for t in later] == [[f"q{i}"] for i in range(6)]
    assert seen == [["first"], [f"q{i}" for i in range(6)]]
    await batcher.aclose()


def test_window_grows_with_the_arrival_rate_and_stays_under_the_cap() -> None:
    batcher: MicroBatcher[str] = MicroBatcher(lambda t: t, max_batch_size=32, max_wait_ms=4)
    batcher.gap_ema = 1.0  # one a second: alone means go
    assert batcher.window(jobs=1, texts=1) == 0.0
    batcher.gap_ema = 0.0001  # 10k/s: wait about as long as 31 more take to arrive
    assert batcher.window(jobs=1, texts=1) == pytest.approx(0.0031)
    batcher.gap_ema = 0.001
    assert batcher.window(jobs=3, texts=3) == pytest.approx(0.004)  # capped at max_wait
    assert batcher.window(jobs=3, texts=32) == 0.0
