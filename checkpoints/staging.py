"""Installing a fully built directory in place of an old one; shared by model fetches and router builds.

Kept apart from fetch.py and router.py so that neither has to import the other for it (fetch.py calls the
router build from `prepare`, and the router build only needs this step)."""

from __future__ import annotations

import shutil
from pathlib import Path


def install_dir(staged: Path, target: Path) -> None:
    """Replace `target` with the fully built `staged` directory (never a half-written target)."""
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(staged), target)
