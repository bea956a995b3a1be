"""How handlers receive the server's services: one FastAPI dependency, no None checks in handlers."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from serve.errors import BackendUnavailable
from serve.services import Services


def get_services(request: Request) -> Services:
    services: Services | None = getattr(request.app.state, "services", None)
    if services is None:
        raise BackendUnavailable("the server is starting: models are not loaded yet")
    return services


ServicesDep = Annotated[Services, Depends(get_services)]
