"""`make lint` checks what the configuration says: ruff selects the rule families the project relies on (the
110-character line length and import order included, which no ruff rule checked while `select` was unset),
the formatter gates the tree, and mypy reads the tests and benchmarks as well as the two packages."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest brings tomli there
    import tomli as tomllib  # type: ignore[no-redef]

FAMILIES = ("E", "F", "I", "B", "ASYNC")


def ruff_config() -> dict[str, Any]:
    config: dict[str, Any] = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["ruff"]
    return config


def lint_recipe() -> list[str]:
    """The commands of the Makefile's `lint` target."""
    lines = (REPO / "Makefile").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"lint\s*:", line))
    recipe = []
    for line in lines[start + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    return recipe


def test_ruff_selects_the_rule_families_and_keeps_the_110_character_limit() -> None:
    config = ruff_config()
    assert config["line-length"] == 110
    lint = config.get("lint", {})
    selected = lint.get("select", [])  # unset: ruff's default, E4/E7/E9/F only
    assert all(family in selected for family in FAMILIES), selected
    assert not lint.get("ignore")  # nothing switched off for the whole tree


def test_only_the_fine_tuning_text_is_exempt_from_the_line_length() -> None:
    exempt = ruff_config().get("lint", {}).get("per-file-ignores", {})
    assert exempt == {"data/finetune/pools_*.py": ["E501"], "data/finetune/rules_*.py": ["E501"]}


def test_make_lint_checks_and_format_checks_the_whole_tree_and_types_tests_and_bench() -> None:
    recipe = lint_recipe()
    commands = [re.sub(r"^\$\(VENV\)/bin/", "", line).split() for line in recipe]
    assert ["ruff", "check", "."] in commands, recipe
    assert ["ruff", "format", "--check", "."] in commands, recipe
    mypy = next(c for c in commands if c[0] == "mypy")
    assert {"serve", "checkpoints", "tests", "bench"} <= set(mypy[1:]), recipe


def ruff_binary() -> str:
    try:
        from ruff.__main__ import find_ruff_bin
    except ImportError:
        pytest.skip("ruff is not installed here (pip install -e '.[dev]')")
    return str(find_ruff_bin())


SAMPLE = """import sys
import asyncio


async def wait_for(flag: list[bool]) -> None:
    while not flag:
        await asyncio.sleep(0.1)


def pairs(a: list[int], b: list[int]) -> list[tuple[int, int]]:
    return list(zip(a, b))


LIMIT = "{fits}"
TOO_LONG = "{too_long}"
print(sys.argv)
"""


def test_ruff_with_the_project_config_reports_what_the_selection_promises(tmp_path: Path) -> None:
    # `LIMIT = "..."` is 110 characters, `TOO_LONG = "..."` 111: only the second is over the limit
    source = SAMPLE.format(fits="x" * (110 - len('LIMIT = ""')), too_long="x" * (111 - len('TOO_LONG = ""')))
    sample = tmp_path / "sample.py"
    sample.write_text(source)
    found = subprocess.run(
        [
            ruff_binary(),
            "check",
            "--config",
            str(REPO / "pyproject.toml"),
            "--output-format",
            "json",
            "--no-cache",
            str(sample),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    reported = {(d["code"], d["location"]["row"]) for d in json.loads(found.stdout)}
    lines = source.splitlines()
    too_long_row = next(i for i, line in enumerate(lines, 1) if line.startswith("TOO_LONG"))
    assert ("E501", too_long_row) in reported
    assert [row for code, row in reported if code == "E501"] == [too_long_row]
    assert {"I001", "ASYNC110", "B905"} <= {code for code, _ in reported}, reported
