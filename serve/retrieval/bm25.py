"""The `bm25s` library, imported without JAX.

bm25s imports JAX when it is installed (for its top-k) and calls it once at import time. On a GPU host
whose Python has JAX, as many CUDA images do, that initialises JAX's CUDA backend, which by default takes
75 % of the GPU's memory for itself: the language model then fails to load for lack of memory (seen on a
lent H200: the server exited with "CUDA error: out of memory"). The index only asks bm25s for scores, never
for its top-k, so the library is imported with `jax` marked unimportable and uses NumPy throughout, the
same code path on every machine.
"""

from __future__ import annotations

import sys
from types import ModuleType


def load_bm25s() -> ModuleType:
    """Import bm25s so that it does not import JAX; a JAX that the process imported before is left alone."""
    loaded = sys.modules.get("bm25s")
    if loaded is not None:
        return loaded
    block = "jax" not in sys.modules
    if block:
        sys.modules["jax"] = None  # type: ignore[assignment]  # `import jax.lax` raises ImportError
    try:
        import bm25s
    finally:
        if block:
            del sys.modules["jax"]
    return bm25s
