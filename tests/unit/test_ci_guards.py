"""CI cannot pass by skipping: the browser tests fail when chromium or Playwright is missing and
CSREPLY_REQUIRE_BROWSER is set (as .ci/run sets it, like CSREPLY_REQUIRE_REDIS), and no test reads the model
cache from a hard-coded home folder instead of CSREPLY_CACHE_DIR (serve.config.default_cache_dir)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.browser import conftest as browser_conftest
from tests.conftest import REPO


def test_ci_requires_the_browser_and_redis() -> None:
    script = (REPO / ".ci" / "run").read_text()
    for name in ("CSREPLY_REQUIRE_BROWSER", "CSREPLY_REQUIRE_REDIS"):
        assert re.search(rf"^export {name}=1$", script, re.M), name
    assert script.index("CSREPLY_REQUIRE_BROWSER") < script.index("make test")


def test_without_chromium_the_browser_tests_fail_when_required_and_skip_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(browser_conftest, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setenv("CSREPLY_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="chromium is not installed"):
        browser_conftest.browser_or_skip()
    monkeypatch.delenv("CSREPLY_REQUIRE_BROWSER")
    with pytest.raises(pytest.skip.Exception, match="chromium is not installed"):
        browser_conftest.browser_or_skip()


def test_without_playwright_the_browser_tests_fail_when_required(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chromium = tmp_path / "chromium"
    chromium.write_text("")
    monkeypatch.setattr(browser_conftest, "CHROMIUM", chromium)
    monkeypatch.setitem(sys.modules, "playwright.sync_api", None)  # importing it raises ImportError
    monkeypatch.setenv("CSREPLY_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="Playwright cannot be imported"):
        browser_conftest.browser_or_skip()


def test_no_test_reads_the_model_cache_from_a_hard_coded_home_folder() -> None:
    """~/.cache/csreply is only the default: tests find the cache through default_cache_dir(), which honours
    CSREPLY_CACHE_DIR (and XDG_CACHE_HOME)."""
    hard_coded = re.compile(r"\.cache/csreply|[\"']\.cache[\"']\s*/\s*[\"']csreply")
    this = Path(__file__).resolve()
    found = [
        f"{path.relative_to(REPO)}:{n}"
        for path in sorted((REPO / "tests").rglob("*.py"))
        if path != this
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if hard_coded.search(line)
    ]
    assert found == []
