"""GPU tests: run only where TensorRT (and, for the LLM path, TensorRT-LLM) imports and a CUDA GPU is visible.
Everywhere else they are collected and skipped with the reason printed (pytest -rs)."""

from __future__ import annotations

import importlib.util

import pytest


def _gpu_reason() -> str | None:
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "no CUDA GPU visible"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = _gpu_reason()
    for item in items:
        if item.get_closest_marker("gpu") is None:  # keywords would also match a directory named gpu
            continue
        needs = [m.args[0] for m in item.iter_markers("needs_module")]
        missing = [name for name in needs if importlib.util.find_spec(name) is None]
        why = reason or (f"{', '.join(missing)} not importable" if missing else None)
        if why:
            item.add_marker(pytest.mark.skip(reason=f"gpu test: {why}"))
