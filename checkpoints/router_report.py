"""report.md of a router build: every metric in router.json with the data it was measured on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from checkpoints.router_config import RouterBuildConfig
from checkpoints.router_data import TrainingData


def data_notes(config: RouterBuildConfig, data: TrainingData) -> dict[str, str]:
    """For each metric split, in words, which data it was measured on."""
    dev_parts = [f"{s['name']} ({s['dev']})" for s in data.sources if s["dev"]]
    notes = {
        "dev": "held back from training, stratified by intent and language, per file: "
        + ", ".join(dev_parts)
        + "; used to pick the epoch, temperatures, lexical weight, out-of-scope bias and thresholds",
    }
    if config.data.heldout:
        notes["heldout"] = (
            f"{config.data.heldout}: written apart from the training files, never trained or tuned "
            "on (training lines equal to a held-out line are dropped)"
        )
    for path in config.data.analysis:
        notes[Path(path).stem] = (
            f"{path}: an analysis set, evaluation only (training lines equal to its lines are dropped)"
        )
    return notes


def _row(name: str, m: dict[str, Any]) -> str:
    langs = " ".join(
        f"{k} {100 * v['macro_f1']:.1f}" for k, v in m.items() if isinstance(v, dict) and k in ("en", "zh")
    )
    uncertain = f"{100 * m['uncertain_rate']:.1f}" if "uncertain_rate" in m else ""
    return (
        f"| {name} | {m['n']} | {100 * m['accuracy']:.1f} | {100 * m['macro_f1']:.1f} | {langs} "
        f"| {uncertain} |"
    )


def write_report(path: Path, manifest: dict[str, Any]) -> None:
    data = manifest["data"]
    lines = [
        f"# Router build `{manifest['name']}` ({manifest['build_hash']})",
        "",
        "## Data",
        "",
        "| file | kind | rows | train | dev | weight |",
        "|---|---|---|---|---|---|",
    ]
    for s in data["sources"]:
        lines.append(
            f"| {s['name']} (`{s['path']}`) | {s['kind']} | {s['rows']} | {s['train']} | {s['dev']} | "
            f"{s['weight']:g} |"
        )
    lines += [
        "",
        f"{data['dropped_as_in_heldout']} training lines equal to held-out lines were dropped.",
        "",
        "## Metrics",
        "",
    ]
    for split, note in data["metric_data"].items():
        lines.append(f"- `*_{split}`: {note}")
    lines += [
        "",
        "| metric | n | accuracy | macro-F1 | per language macro-F1 | uncertain |",
        "|---|---|---|---|---|---|",
    ]
    for name, m in manifest["metrics"].items():
        if not isinstance(m, dict) or "accuracy" not in m:
            continue
        lines.append(_row(name, m))
        for source, part in (m.get("by_source") or {}).items():
            lines.append(_row(f"{name} / {source}", part))
    oos = manifest.get("out_of_scope")
    if oos:
        d = oos["dev"]
        lines += [
            "",
            "## Out of scope (chosen on dev)",
            "",
            f"bias {oos['bias']:+.2f} for target recall {oos['target_recall']}: dev recall "
            f"{d['oos_recall']:.3f}, precision {d['oos_precision']:.3f}, macro-F1 {d['macro_f1']:.4f} "
            f"({oos['dev_n_oos']} OOS messages)",
        ]
    th = manifest["thresholds"]
    lines += [
        "",
        "## Uncertain thresholds",
        "",
        f"min_confidence {th['min_confidence']}, min_margin {th['min_margin']}",
    ]
    if "tuned_on_dev" in th:
        t = th["tuned_on_dev"]
        lines.append(
            f"(tuned on dev: uncertain {t['dev_uncertain_rate']:.3f}, confident-wrong "
            f"{t['dev_confident_wrong_rate']:.3f})"
        )
    lines += ["", f"Default variant: {manifest['default_variant']}."]
    path.write_text("\n".join(lines) + "\n")
