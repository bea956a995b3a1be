"""Liveness, readiness and the model list."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from serve.api.schemas import ModelCard, ModelList
from serve.runtime import Runtime

router = APIRouter()


def runtime_of(request: Request) -> Runtime:
    return request.app.state.runtime  # type: ignore[no-any-return]


@router.get("/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/ready")
async def ready(request: Request) -> JSONResponse:
    runtime = runtime_of(request)
    body: dict[str, Any] = {"ready": runtime.ready, "degraded": list(runtime.degraded)}
    generator = runtime.generator
    try:
        await generator.check_health()
        healthy = True
    except Exception as exc:  # noqa: BLE001 - any failure means not ready; the reason goes to the client
        healthy, body["error"] = False, str(exc)
    body["generator"] = {**asdict(generator.stats()), "languages": list(generator.languages)}
    body["in_flight"] = runtime.admission.in_flight
    if runtime.router is not None:
        body["router"] = {"chain": [b.name for b in runtime.router.chain],
                          "open_breakers": [b.name for b, br in zip(runtime.router.chain, runtime.router.breakers)
                                            if br.is_open]}
    ok = runtime.ready and healthy
    body["ready"] = ok
    return JSONResponse(body, status_code=200 if ok else 503)


@router.get("/v1/models")
async def models(request: Request) -> ModelList:
    runtime = runtime_of(request)
    return ModelList(data=[ModelCard(id=runtime.generator.model_name, created=int(runtime.started_at))])
