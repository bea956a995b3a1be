"""Installing a fully built directory in place of an old one, and the checksums of its manifest; shared by
model fetches, the search-encoder export and router builds.

Kept apart from fetch.py and router.py so that none has to import another for it (fetch.py calls the router
build and the search-encoder export from `prepare`, and those only need these steps)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from tqdm import tqdm

MANIFEST = "csreply-manifest.json"  # a prepared directory's record: its source and every file's sha256


def install_dir(staged: Path, target: Path) -> None:
    """Replace `target` with the fully built `staged` directory (never a half-written target)."""
    if target.exists():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(staged), target)


def sha256_file(path: Path, *, progress: bool = False) -> str:
    digest = hashlib.sha256()
    size = path.stat().st_size
    with (
        open(path, "rb") as fh,
        tqdm(
            total=size,
            unit="B",
            unit_scale=True,
            desc=f"sha256 {path.name}",
            disable=not progress,
            leave=False,
        ) as bar,
    ):
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
            bar.update(len(block))
    return digest.hexdigest()


def read_manifest(model_dir: Path) -> dict[str, Any] | None:
    """The directory's manifest, or None when it is missing or unreadable."""
    path = model_dir / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def file_digests(model_dir: Path) -> dict[str, str]:
    """The sha256 of every file in the directory but the manifest, by name: what a manifest records."""
    return {p.name: sha256_file(p) for p in sorted(model_dir.iterdir()) if p.is_file() and p.name != MANIFEST}


def files_intact(model_dir: Path, manifest: dict[str, Any]) -> bool:
    """Every file the manifest lists is there with its recorded sha256 (and it lists at least one)."""
    files = manifest.get("files", {})
    return bool(files) and all(
        (model_dir / name).is_file() and sha256_file(model_dir / name) == digest
        for name, digest in files.items()
    )
