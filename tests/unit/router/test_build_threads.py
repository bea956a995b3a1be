"""How many training threads a router build takes: from how busy the cores are when it starts."""

from __future__ import annotations

import os

import pytest

from checkpoints import router


def test_busy_cores_reads_the_kernel_counters() -> None:
    busy = router.busy_cores(0.2)
    if busy is None:
        pytest.skip("no /proc/stat on this system")
    assert 0.0 <= busy <= (os.cpu_count() or 1) + 1e-6


@pytest.mark.parametrize(
    ("busy", "cores", "expected"),
    [(0.05, 2, 2), (0.7, 2, 2), (0.8, 2, 1), (1.9, 2, 1), (7.5, 8, 1), (2.0, 8, 6)],
)
def test_threads_leave_the_busy_cores_alone(
    monkeypatch: pytest.MonkeyPatch, busy: float, cores: int, expected: int
) -> None:
    monkeypatch.setattr(router, "busy_cores", lambda seconds: busy)
    monkeypatch.setattr(router.os, "cpu_count", lambda: cores)
    assert router.build_threads(None) == expected


def test_load_average_when_the_counters_are_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(router, "busy_cores", lambda seconds: None)
    monkeypatch.setattr(router.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(router.os, "getloadavg", lambda: (1.9, 1.0, 1.0))
    assert router.build_threads(None) == 1
    monkeypatch.setattr(router.os, "getloadavg", lambda: (0.1, 1.0, 1.0))
    assert router.build_threads(None) == 2


def test_a_configured_number_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(router, "busy_cores", lambda seconds: 1.9)
    assert router.build_threads(3) == 3
