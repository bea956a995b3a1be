"""Liveness, readiness and the model list."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from serve.api.deps import ServicesDep
from serve.api.schemas import ModelCard, ModelList

router = APIRouter()


@router.get("/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/ready", responses={503: {"description": "not ready: loading, draining or no backend can serve"}})
async def ready(services: ServicesDep) -> JSONResponse:
    lifecycle = services.lifecycle
    body: dict[str, Any] = {"ready": lifecycle.ready, "draining": lifecycle.draining,
                            "degraded": services.degraded}
    generator = services.generator
    try:
        await generator.check_health()
        healthy = True
    except Exception as exc:  # noqa: BLE001 - any failure means not ready; the reason goes to the client
        healthy, body["error"] = False, str(exc)
    body["generator"] = {**asdict(generator.stats()), "languages": list(generator.languages)}
    body["generators"] = generator.describe()
    body["in_flight"] = services.admission.in_flight
    chain = services.router
    body["router"] = {"chain": [b.name for b in chain.chain],
                      "open_breakers": [b.name for b, br in zip(chain.chain, chain.breakers) if br.is_open]}
    ok = lifecycle.ready and not lifecycle.draining and healthy
    body["ready"] = ok
    return JSONResponse(body, status_code=200 if ok else 503)


@router.get("/v1/models")
async def models(services: ServicesDep) -> ModelList:
    created = int(services.started_at)
    return ModelList(data=[ModelCard(id=name, created=created) for name in services.generator.model_names])
