"""How far a router build has got, in a small JSON file beside its output, so that a server waiting for the
build (and anyone else) can show progress and an ETA: `<out_dir>.progress.json`, rewritten at most every few
seconds, removed when the build ends."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path


def progress_path(out_dir: Path) -> Path:
    return out_dir.with_name(out_dir.name + ".progress.json")


class Progress:
    def __init__(self, out_dir: Path, total_steps: int, every_s: float = 5.0) -> None:
        self.path = progress_path(out_dir)
        self.total = max(1, total_steps)
        self.every_s = every_s
        self.started = time.time()
        self._last = 0.0
        self.write("starting", 0, force=True)

    def write(self, stage: str, step: int, force: bool = False) -> None:
        now = time.time()
        if not force and now - self._last < self.every_s:
            return
        self._last = now
        elapsed = now - self.started
        # the steps are the training; the export and evaluation after them take about a tenth more
        eta = elapsed / step * (self.total - step) + 0.1 * elapsed / step * self.total if step else None
        body = {
            "stage": stage,
            "step": step,
            "steps": self.total,
            "fraction": round(step / self.total, 4),
            "elapsed_s": round(elapsed, 1),
            "eta_s": None if eta is None else round(eta, 1),
            "pid": os.getpid(),
            "updated": now,
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(body))
        os.replace(tmp, self.path)


def read_progress(out_dir: Path) -> dict[str, object] | None:
    try:
        return json.loads(progress_path(out_dir).read_text())  # type: ignore[no-any-return]
    except (OSError, ValueError):
        return None
