"""Python 3.10 to 3.12 (issue 22): the declared range and one pin per dependency on each version, lint and
type checks against 3.10, no syntax newer than 3.10 anywhere in the tree, and StreamGuard on 3.10's semantics
(no Task.cancelling/uncancel) passing the same scenarios as on 3.11."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

import serve.streams
from tests.conftest import REPO
from tests.unit import test_stream_guard as guard_scenarios

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest brings tomli there
    import tomli as tomllib  # type: ignore[no-redef]

SUPPORTED = ("3.10", "3.11", "3.12")
SOURCE_DIRS = ("serve", "checkpoints", "tests", "bench", "docs")


def pyproject() -> dict[str, Any]:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def test_the_project_declares_python_3_10_to_3_12_and_checks_against_3_10() -> None:
    config = pyproject()
    declared = SpecifierSet(config["project"]["requires-python"])
    assert all(f"{v}.0" in declared for v in SUPPORTED)
    assert "3.9.18" not in declared and "3.13.0" not in declared
    assert config["tool"]["ruff"]["target-version"] == "py310"
    assert (
        config["tool"]["mypy"]["python_version"] == "3.10"
    )  # `make lint` flags 3.11-only names (datetime.UTC, ...)


@pytest.mark.parametrize("python", SUPPORTED)
def test_each_dependency_has_one_requirement_on_each_supported_python(python: str) -> None:
    config = pyproject()
    lines = config["project"]["dependencies"] + config["project"]["optional-dependencies"]["dev"]
    environment = {"python_version": python, "python_full_version": f"{python}.0", "extra": ""}
    applying = Counter(
        r.name.lower() for r in map(Requirement, lines) if r.marker is None or r.marker.evaluate(environment)
    )
    everything = {Requirement(line).name.lower() for line in lines}
    assert set(applying) == everything, everything - set(applying)
    assert [name for name, n in applying.items() if n > 1] == []


def python_files() -> list[Path]:
    files = [REPO / "setup.py"]
    for folder in SOURCE_DIRS:
        files += sorted(p for p in (REPO / folder).rglob("*.py") if "__pycache__" not in p.parts)
    return files


def test_every_python_file_is_python_3_10_syntax() -> None:
    """`except*`, PEP 695 generics and such are syntax errors on 3.10 (mypy and ruff see names, not this)."""
    failures = []
    for path in python_files():
        try:
            ast.parse(path.read_text(encoding="utf-8"), str(path), feature_version=(3, 10))
        except SyntaxError as exc:
            failures.append(f"{path.relative_to(REPO)}:{exc.lineno}: {exc.msg}")
    assert failures == []


SCENARIOS = [
    f for name, f in sorted(vars(guard_scenarios).items()) if name.startswith("test_") and callable(f)
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__.removeprefix("test_"))
async def test_stream_guard_without_cancel_counts_behaves_as_with_them(
    scenario: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What Python 3.10 runs (serve/streams.py: no Task.cancelling/uncancel there), tested on any Python."""
    monkeypatch.setattr(serve.streams, "_cancelling", serve.streams._no_cancel_count)
    monkeypatch.setattr(serve.streams, "_uncancel", serve.streams._no_cancel_count)
    await scenario()


class _RecordingInner:
    def __init__(self) -> None:
        self.loaded = 0

    def load(self) -> None:
        self.loaded += 1


def test_the_browser_harness_generator_double_is_loadable_on_every_version() -> None:
    """From Python 3.12, isinstance() against a runtime-checkable Protocol does not see attributes that only
    __getattr__ provides: a forwarding wrapper without its own `load` was never loaded there (the browser
    tests' harness waited for a model that never came)."""
    from serve.generation.base import Loadable
    from tests.browser.harness import MidStreamFailureGeneratorDouble

    inner = _RecordingInner()
    double = MidStreamFailureGeneratorDouble(inner)  # type: ignore[arg-type]
    assert isinstance(double, Loadable)
    double.load()
    assert inner.loaded == 1
