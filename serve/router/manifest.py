"""router.json: what a router build produced and how to serve it (written by checkpoints/router.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Variant(BaseModel):
    model_config = ConfigDict(extra="allow")
    file: str
    sha256: str
    precision: str


class RouterManifest(BaseModel):
    model_config = ConfigDict(extra="allow")
    format: int = 1
    name: str
    labels: list[str]
    max_length: int
    temperature: float = Field(1.0, gt=0)
    lexical: dict[str, Any] | None = None  # {"file", "weight", "temperature"}
    out_of_scope: dict[str, Any] | None = None  # {"bias", "target_recall", "dev": {...}}: chosen on dev
    thresholds: dict[str, Any]
    default_variant: str
    variants: dict[str, Variant]
    build_hash: str
    metrics: dict[str, Any] = {}

    def variant_path(self, root: Path, variant: str | None = None) -> Path:
        name = variant or self.default_variant
        if name not in self.variants:
            raise KeyError(f"router {self.name} has no variant {name!r}; it has {sorted(self.variants)}")
        return root / self.variants[name].file


def read_manifest(router_dir: Path) -> RouterManifest:
    path = router_dir / "router.json"
    if not path.is_file():
        raise FileNotFoundError(f"no router at {router_dir} (router.json missing): run `csreply prepare`")
    return RouterManifest.model_validate(json.loads(path.read_text()))
