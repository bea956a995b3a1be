"""Dense vectors of an index's texts, computed once per encoder and text set and kept on disk: the knowledge
base and the reply bank hold thousands of short texts, and encoding them all takes seconds at start-up."""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from serve.retrieval.index import DEFAULT_WEIGHTS, HybridIndex, View, Weights
from serve.retrieval.semantic import SemanticEncoder

logger = logging.getLogger(__name__)

# texts -> one L2-normalised row per text, or None when the encoder has no vectors (a rules-only router)
Embed = Callable[[list[str]], "np.ndarray | None"]

# The last few arrays in memory too, by the same content key: a reload re-indexes only what changed, and
# several servers in one process (tests, benchmarks) encode the same texts once.
_MEMORY: OrderedDict[str, np.ndarray] = OrderedDict()
_MEMORY_ITEMS = 32


def _remembered(key: str) -> np.ndarray | None:
    found = _MEMORY.get(key)
    if found is not None:
        _MEMORY.move_to_end(key)
    return found


def _remember(key: str, array: np.ndarray) -> np.ndarray:
    _MEMORY[key] = array
    while len(_MEMORY) > _MEMORY_ITEMS:
        _MEMORY.popitem(last=False)
    return array


def cached_vectors(
    texts: Sequence[str], embed: Embed | None, space: str | None, vectors_dir: Path | None
) -> np.ndarray | None:
    """`embed(texts)`, read from `vectors_dir` when this encoder (`space`, e.g. the router's build hash) has
    already encoded exactly these texts."""
    if embed is None or space is None or not texts:
        return None
    key = hashlib.sha256(("\0".join([space, *texts])).encode()).hexdigest()[:24]
    known = _remembered(key)
    if known is not None:
        return known
    path = vectors_dir / f"{key}.npy" if vectors_dir is not None else None
    if path is not None and path.is_file():
        try:
            vectors = np.load(path)
            if vectors.shape[0] == len(texts):
                return _remember(key, vectors)
        except (OSError, ValueError):
            logger.warning("retrieval.vectors unreadable cache file %s: recomputing", path)
    vectors = embed(list(texts))
    if vectors is None:
        return None
    if path is not None:
        _save(path, vectors)
    return _remember(key, vectors)


def index_vectors(
    texts: Sequence[str],
    items: Sequence[int],
    embed: Embed | None,
    space: str | None,
    vectors_dir: Path | None,
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The texts' vectors and the projection fitted on them (serve/retrieval/projection.py), both cached."""
    from serve.retrieval.projection import fit_projection

    vectors = cached_vectors(texts, embed, space, vectors_dir)
    if vectors is None:
        return None, None
    key = hashlib.sha256(("\0".join([space or "", *texts, ",".join(map(str, items))])).encode()).hexdigest()[
        :24
    ]
    known = _remembered(key + ".projection")
    if known is not None:
        return vectors, known
    path = vectors_dir / f"{key}.projection.npy" if vectors_dir is not None else None
    if path is not None and path.is_file():
        try:
            return vectors, _remember(key + ".projection", np.load(path))
        except (OSError, ValueError):
            logger.warning("retrieval.vectors unreadable projection %s: refitting", path)
    projection = fit_projection(vectors, np.asarray(items, dtype=np.int64))
    if projection is None:
        return vectors, None
    if path is not None:
        _save(path, projection)
    return vectors, _remember(key + ".projection", projection)


def build_index(
    keys: Sequence[Sequence[str]],
    bodies: Sequence[str],
    embed: Embed | None,
    space: str | None,
    vectors_dir: Path | None,
    weights: Weights = DEFAULT_WEIGHTS,
    semantic: SemanticEncoder | None = None,
) -> HybridIndex:
    """The hybrid index over items (the knowledge base's entries, the reply bank's replies): item i is found
    by its key texts `keys[i]` (title and questions, situation and examples) and its body `bodies[i]`,
    lexically and, when `embed` gives vectors, densely; `semantic`: the English search encoder, for an
    English index."""
    views = [View(i, text, "key") for i, texts in enumerate(keys) for text in texts]
    views += [View(i, body, "body") for i, body in enumerate(bodies)]
    texts = [v.text for v in views]
    vectors, projection = index_vectors(texts, [v.item for v in views], embed, space, vectors_dir)
    extra = (
        cached_vectors(texts, semantic.embed, semantic.space, vectors_dir) if semantic is not None else None
    )
    return HybridIndex(
        views, vectors, projection, weights, extra, semantic.encode_one if semantic is not None else None
    )


def _save(path: Path, array: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npy.tmp")  # another process may write it too
    with os.fdopen(fd, "wb") as fh:
        np.save(fh, array.astype(np.float32))
    os.replace(tmp, path)
