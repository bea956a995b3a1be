"""Build the configured router chain: tensorrt -> onnx -> rules, skipping (and reporting) what cannot load."""

from __future__ import annotations

import logging
from pathlib import Path

from serve.config import RouterSettings, Settings
from serve.router.base import IntentClassifier, Thresholds
from serve.router.encoding import TextEncoder
from serve.router.fallback import FallbackRouter
from serve.router.lexical import LexicalHead, LexicalRouter
from serve.router.manifest import RouterManifest, read_manifest
from serve.router.model import Calibration, ModelRouter, RouterSession
from serve.router.rules import RulesRouter

logger = logging.getLogger(__name__)


def thresholds_for(settings: RouterSettings, manifest: RouterManifest | None) -> Thresholds:
    base = manifest.thresholds if manifest else {}
    return Thresholds(
        min_confidence=settings.min_confidence
        if settings.min_confidence is not None
        else base.get("min_confidence", Thresholds().min_confidence),
        min_margin=settings.min_margin
        if settings.min_margin is not None
        else base.get("min_margin", Thresholds().min_margin),
    )


def calibration_for(router_dir: Path, manifest: RouterManifest) -> Calibration:
    """The build's calibration: temperatures, lexical ensemble, and the out-of-scope bias chosen on dev."""
    oos = manifest.out_of_scope or {}
    bias = float(oos.get("bias", 0.0))
    oos_index = manifest.labels.index("out_of_scope") if bias and "out_of_scope" in manifest.labels else None
    lexical = manifest.lexical
    if not lexical:
        return Calibration(manifest.temperature, oos_index=oos_index, oos_bias=bias)
    return Calibration(
        manifest.temperature,
        LexicalHead.load(router_dir / lexical["file"]),
        lexical["weight"],
        lexical["temperature"],
        oos_index,
        bias,
    )


def model_router(
    name: str,
    session: RouterSession,
    router_dir: Path,
    manifest: RouterManifest,
    settings: RouterSettings,
    space: str | None = None,
) -> ModelRouter:
    return ModelRouter(
        name,
        session,
        TextEncoder(router_dir / "tokenizer.json", manifest.max_length),
        tuple(manifest.labels),
        calibration_for(router_dir, manifest),
        thresholds_for(settings, manifest),
        settings.max_batch_size,
        settings.max_wait_ms,
        space,
    )


def onnx_router(router_dir: Path, manifest: RouterManifest, settings: RouterSettings) -> ModelRouter:
    from serve.router.onnx import OnnxSession

    variant = None if settings.variant == "auto" else settings.variant
    path = manifest.variant_path(router_dir, variant)
    session = OnnxSession(path, settings.threads, settings.device, settings.spin_wait)
    chosen = manifest.variants[variant or manifest.default_variant]
    return model_router(
        f"onnx-{chosen.precision}", session, router_dir, manifest, settings, chosen.sha256[:16]
    )


def tensorrt_router(router_dir: Path, manifest: RouterManifest, settings: RouterSettings) -> ModelRouter:
    from serve.router.tensorrt import TensorRTSession

    device = settings.device if settings.device.startswith("cuda") else "cuda"
    return model_router("tensorrt", TensorRTSession(router_dir, device), router_dir, manifest, settings)


def quick_router_dir(router_dir: Path) -> Path:
    """Where the quick (lexical-only) router of a router directory lives: `<router_dir>-quick`."""
    return router_dir.with_name(router_dir.name + "-quick")


def lexical_router(router_dir: Path, manifest: RouterManifest, settings: RouterSettings) -> LexicalRouter:
    head = LexicalHead.load(router_dir / (manifest.lexical or {}).get("file", "lexical.npz"))
    return LexicalRouter(
        head, tuple(manifest.labels), Calibration(manifest.temperature), thresholds_for(settings, manifest)
    )


def load_router(settings: Settings) -> tuple[FallbackRouter, list[str]]:
    """The chain for `settings.router.backend`, plus notes on every backend that could not be used."""
    config = settings.router
    notes: list[str] = []
    chain: list[IntentClassifier] = []
    manifest = None
    if config.backend in ("tensorrt", "onnx"):
        try:
            manifest = read_manifest(settings.router_dir)
        except (FileNotFoundError, ValueError) as exc:
            quick = _quick(settings)
            if quick is not None:
                notes.append(
                    f"router: the BERT router is not built yet ({exc}); serving with the quick lexical router"
                )
                chain.append(quick)
            else:
                notes.append(f"router: no trained model ({exc}); using the rules backend")
    if manifest is not None and config.backend == "tensorrt":
        try:
            chain.append(tensorrt_router(settings.router_dir, manifest, config))
        except Exception as exc:  # noqa: BLE001 - ImportError, EngineMismatch, missing plan: all fall back
            notes.append(f"router: tensorrt unavailable ({exc}); falling back to onnx")
    if manifest is not None:
        try:
            chain.append(onnx_router(settings.router_dir, manifest, config))
        except Exception as exc:  # noqa: BLE001
            notes.append(f"router: onnx unavailable ({exc}); falling back to rules")
    chain.append(RulesRouter(thresholds_for(config, manifest)))
    for note in notes:
        logger.warning("router.degraded %s", note)
    return FallbackRouter(chain, config.breaker_failures, config.breaker_cooldown_s), notes


def _quick(settings: Settings) -> LexicalRouter | None:
    quick_dir = quick_router_dir(settings.router_dir)
    try:
        manifest = read_manifest(quick_dir)
        return lexical_router(quick_dir, manifest, settings.router)
    except (FileNotFoundError, ValueError, OSError):
        return None
