"""How handlers receive the server's services: one FastAPI dependency, no None checks in handlers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from serve.errors import BackendUnavailable
from serve.metrics import Metrics
from serve.services import Services
from serve.streams import StreamRegistry


# Both getters are `async def` though they never await: FastAPI runs a plain `def` dependency in the thread
# pool, a thread hop per request for an attribute read.
async def get_services(request: Request) -> Services:
    services: Services | None = getattr(request.app.state, "services", None)
    if services is None:
        raise BackendUnavailable("the server is starting: models are not loaded yet")
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


@dataclass(frozen=True)
class Ops:
    """What the HTTP layer needs beside the services: metrics and the open streams (deadlines, drain).
    Built with the app (before the lifespan), so /metrics answers while the models load."""

    metrics: Metrics
    streams: StreamRegistry


async def get_ops(request: Request) -> Ops:
    ops: Ops = request.app.state.ops
    return ops


OpsDep = Annotated[Ops, Depends(get_ops)]
