"""Where the data the server reads at run time lives: `prompts/` and `knowledge/`.

The team edits them at the repository root, so a checkout (and an editable install) reads them there. A wheel
carries a copy inside the package, `serve/_data/<name>/` (setup.py copies them in at build time), so an
installed `csreply run` serves from any directory.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DATA = Path(__file__).resolve().parent / "_data"  # in a built wheel only
REPO_ROOT = Path(__file__).resolve().parents[1]  # in a checkout
BUNDLED = ("prompts", "knowledge")  # what setup.py copies into PACKAGE_DATA


def data_dir(name: str) -> Path:
    """Folder `name` (one of BUNDLED): the package's copy when installed from a wheel, else the checkout's."""
    bundled = PACKAGE_DATA / name
    return bundled if bundled.is_dir() else REPO_ROOT / name
