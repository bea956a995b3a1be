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
    batcher: MicroBatcher[int] = MicroBatcher(lambda texts: [len(t) for t in texts], max_batch_size=3, max_wait_ms=20)
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


async def test_fallback_skips_a_failing_backend_and_opens_its_breaker(monkeypatch: pytest.MonkeyPatch) -> None:
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
