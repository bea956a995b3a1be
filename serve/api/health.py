"""Liveness, readiness and the model list."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from serve.api.deps import OpsDep, ServicesDep
from serve.api.schemas import ModelCard, ModelList

router = APIRouter()


@router.get("/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get(
    "/ready", responses={503: {"description": "not ready: loading, draining or no backend can serve"}}
)
async def ready(services: ServicesDep) -> JSONResponse:
    lifecycle = services.lifecycle
    body: dict[str, Any] = {
        "ready": lifecycle.ready,
        "draining": lifecycle.draining,
        "degraded": services.degraded,
    }
    generator = services.generator
    try:
        await generator.check_health()
        healthy = True
    except Exception as exc:  # noqa: BLE001 - any failure means not ready; the reason goes to the client
        healthy, body["error"] = False, str(exc)
    body["generator"] = {**asdict(generator.stats()), "languages": list(generator.languages)}
    body["generators"] = generator.describe()
    body["in_flight"] = services.admission.in_flight
    body["waiting"] = services.admission.waiting
    chain = services.router
    body["router"] = {
        "chain": [b.name for b in chain.chain],
        "open_breakers": [b.name for b, br in zip(chain.chain, chain.breakers, strict=True) if br.is_open],
    }
    try:
        await chain.check_health()
        body["router"]["healthy"] = True
    except Exception as exc:  # noqa: BLE001 - a router that cannot classify makes the server not ready
        healthy, body["router"]["healthy"] = False, False
        body["router"]["error"] = str(exc)
    knowledge = services.knowledge.current
    body["knowledge"] = {
        "enabled": knowledge is not None,
        "digest": services.knowledge.digest,
        "entries": knowledge.size if knowledge else 0,
        "expired": knowledge.expired if knowledge else 0,
        "dense": knowledge.dense if knowledge else False,
        "semantic": knowledge.semantic_search if knowledge else False,
        "reloads": services.knowledge.reloads,
    }
    selector = services.selector
    body["reply_bank"] = {
        "replies": selector.size if selector else 0,
        "dense": selector.dense if selector else False,
        "semantic": selector.semantic_search if selector else False,
    }
    if services.builder is not None:
        body["router"]["build"] = services.builder.status()
    ok = lifecycle.ready and not lifecycle.draining and healthy
    body["ready"] = ok
    return JSONResponse(body, status_code=200 if ok else 503)


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text format"}},
)
async def metrics(ops: OpsDep) -> Response:
    from serve.metrics import CONTENT_TYPE

    return Response(ops.metrics.render(), media_type=CONTENT_TYPE)


@router.get("/v1/models")
async def models(services: ServicesDep) -> ModelList:
    created = int(services.started_at)
    return ModelList(data=[ModelCard(id=name, created=created) for name in services.generator.model_names])
