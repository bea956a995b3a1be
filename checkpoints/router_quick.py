"""The quick router: the lexical head alone, trained in seconds, so that a new machine can serve at once while
the BERT router builds (on a CPU without native bfloat16 that build takes about 16 minutes on 2 cores).

    python -m checkpoints build-router build_configs/router/default.yaml --quick

Writes `<cache>/router/<name>-quick/` (router.json with `"kind": "lexical"`, lexical.npz): the server uses it
when the full router is missing, and swaps in the full one when its build ends (docs/router.md).
"""

from __future__ import annotations

import hashlib
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from checkpoints.router_config import RouterBuildConfig
from checkpoints.router_data import load_jsonl, load_training_data, resolve
from checkpoints.router_metrics import summarize
from checkpoints.staging import install_dir
from serve.router.loading import quick_router_dir
from serve.taxonomy import INTENT_INDEX, INTENTS

QUICK_CODE = ("router_quick.py", "router_lexical.py", "router_data.py")


def quick_hash(config: RouterBuildConfig) -> str:
    digest = hashlib.sha256(config.data.model_dump_json().encode())
    for path in [resolve(p) for p in config.data.train]:
        digest.update(path.name.encode() + (path.read_bytes() if path.is_file() else b""))
    here = Path(__file__).parent
    for name in QUICK_CODE:
        digest.update((here / name).read_bytes())
    digest.update((here.parent / "serve" / "router" / "lexical.py").read_bytes())
    return digest.hexdigest()[:16]


def build_quick_router(config: RouterBuildConfig, cache_dir: Path, full_dir: Path) -> Path:
    """Train, calibrate and save the lexical router beside the full one's directory; skipped when current."""
    from checkpoints.router import _fit_temperature, log
    from checkpoints.router_lexical import train_lexical

    out_dir = quick_router_dir(full_dir)
    manifest_path = out_dir / "router.json"
    wanted = quick_hash(config)
    if manifest_path.is_file() and json.loads(manifest_path.read_text()).get("build_hash") == wanted:
        log(f"quick router {config.name} is up to date: {out_dir}")
        return out_dir
    started = time.perf_counter()
    data = load_training_data(config.data, config.training.seed)
    random.seed(config.training.seed)
    head = train_lexical(data.train, config.data.noise_prob, config.training.seed)
    dev_logits = head.logits([e.text for e in data.dev])
    temperature = _fit_temperature(dev_logits, [INTENT_INDEX[e.intent] for e in data.dev])
    metrics: dict[str, Any] = {"dev": _score(dev_logits, data.dev)}
    if config.data.heldout:
        heldout = load_jsonl(resolve(config.data.heldout))
        metrics["heldout"] = _score(head.logits([e.text for e in heldout]), heldout)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir.parent, prefix=f".{out_dir.name}-") as tmp:
        staged = Path(tmp) / "router"
        staged.mkdir()
        head.save(staged / "lexical.npz")
        manifest = {
            "format": 1,
            "kind": "lexical",
            "name": f"{config.name}-quick",
            "labels": list(INTENTS),
            "max_length": config.export.max_length,
            "temperature": temperature,
            "lexical": {"file": "lexical.npz", "weight": 1.0, "temperature": temperature},
            "thresholds": config.thresholds.model_dump(include={"min_confidence", "min_margin"}),
            "default_variant": "lexical",
            "variants": {},
            "build_hash": wanted,
            "metrics": metrics,
            "build_seconds": round(time.perf_counter() - started, 1),
        }
        (staged / "router.json").write_text(json.dumps(manifest, indent=2) + "\n")
        install_dir(staged, out_dir)
    log(
        f"quick router {config.name} (lexical head only) ready in {manifest['build_seconds']} s: dev "
        f"accuracy {metrics['dev']['accuracy']:.3f}"
        + (f", held-out {metrics['heldout']['accuracy']:.3f}" if "heldout" in metrics else "")
        + f": {out_dir}"
    )
    return out_dir


def _score(logits: Any, examples: list[Any]) -> dict[str, Any]:
    return summarize(examples, [INTENTS[i] for i in logits.argmax(axis=1)])
