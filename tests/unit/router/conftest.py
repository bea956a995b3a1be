from __future__ import annotations

from pathlib import Path

import pytest

from serve.config import default_cache_dir


@pytest.fixture(scope="session")
def router_dir() -> Path:
    path = default_cache_dir() / "router" / "default"
    if not (path / "router.json").is_file():
        pytest.fail(f"{path} has no router: run `csreply prepare` (make test does) before the tests")
    return path
