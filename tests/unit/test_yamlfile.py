"""serve.yamlfile: the fast safe loader reads every shipped file exactly as PyYAML's own safe loader does,
and is as strict about what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import serve.yamlfile as yamlfile
from serve.yamlfile import read_yaml
from tests.conftest import REPO

SHIPPED = sorted([*(REPO / "prompts").rglob("*.yaml"), *(REPO / "knowledge").rglob("*.yaml")])


def test_libyaml_is_used_where_pyyaml_has_it() -> None:
    expected = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader
    assert yamlfile._Loader is expected


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_shipped_file_reads_as_the_pure_python_safe_loader_reads_it(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert read_yaml(text) == yaml.load(text, Loader=yaml.SafeLoader)  # noqa: S506 - PyYAML's safe loader


def test_python_tags_are_refused() -> None:
    with pytest.raises(yaml.YAMLError, match="constructor"):
        read_yaml("!!python/object/apply:os.system ['true']")


def test_a_syntax_error_names_its_line() -> None:
    with pytest.raises(yaml.YAMLError, match="line 3"):
        read_yaml("replies:\n  - id: a\n   reply: [unclosed\n")
