"""The retrieval index never imports JAX through bm25s (serve/retrieval/bm25.py says why: on a GPU host with
JAX installed, that import takes most of the GPU's memory). JAX is not installed here, so a recording double
named `jax` stands in for it: it writes a file when it is imported, as the real one would initialise its
backend."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

RECORDING_JAX_DOUBLE = """
import os, pathlib
pathlib.Path(os.environ["JAX_DOUBLE_MARKER"]).write_text("imported")
"""
RECORDING_JAX_LAX_DOUBLE = """
import numpy as np
def top_k(operand, k):
    order = np.argsort(operand)[::-1][:k]
    return operand[order], order
"""

BUILD_AND_SEARCH = """
import sys
from serve.retrieval.index import HybridIndex, View
index = HybridIndex([View(0, "which courier delivers my parcel", "key"), View(1, "reset the router", "key")])
hits = index.search("courier for my parcel", k=1)
import bm25s.selection
print(hits[0].item, bm25s.selection.JAX_IS_AVAILABLE, "jax" in sys.modules)
"""


def run_with_jax_double(tmp_path: Path, code: str) -> tuple[str, Path]:
    package = tmp_path / "site" / "jax"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(RECORDING_JAX_DOUBLE)
    (package / "lax.py").write_text(RECORDING_JAX_LAX_DOUBLE)
    marker = tmp_path / "jax-was-imported"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "site"), str(REPO)])
    env["JAX_DOUBLE_MARKER"] = str(marker)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip(), marker


def test_the_double_is_what_bm25s_would_import(tmp_path: Path) -> None:
    # Without the guard, bm25s takes the double for JAX: the test below would see the marker.
    out, marker = run_with_jax_double(tmp_path, "import bm25s.selection as s; print(s.JAX_IS_AVAILABLE)")
    assert out == "True"
    assert marker.exists()


def test_the_index_scores_with_numpy_and_never_imports_jax(tmp_path: Path) -> None:
    out, marker = run_with_jax_double(tmp_path, BUILD_AND_SEARCH)
    assert out == "0 False False"
    assert not marker.exists()
