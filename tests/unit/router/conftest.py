from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import default_router_dir


@pytest.fixture(scope="session")
def router_dir() -> Path:
    return default_router_dir()
