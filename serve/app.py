"""FastAPI app factory and lifespan: load the models, warm up, then serve; drain on shutdown."""

from __future__ import annotations

import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, Response

from serve.api import health, intent, openai, reply
from serve.api.errors import error_response, install_error_handlers
from serve.config import Settings
from serve.errors import PayloadTooLarge
from serve.generation.base import Generator
from serve.logsetup import request_id_var
from serve.router.base import IntentClassifier
from serve.services import build_services

logger = logging.getLogger(__name__)


def create_app(
    settings: Settings, generator: Generator | None = None, router: IntentClassifier | None = None
) -> FastAPI:
    """The server; `generator` and `router` replace the configured backends (tests pass fakes)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services = await build_services(settings, generator, router)
        app.state.services = services
        logger.info("server.ready generator=%s model=%s members=%s", services.generator.name,
                    services.generator.model_name, [m.name for m in services.generator.members])
        try:
            yield
        finally:
            await services.aclose()

    app = FastAPI(title="csreply", version="0.1.0", lifespan=lifespan)
    install_error_handlers(app)

    @app.middleware("http")
    async def request_context(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        request_id = request.headers.get("x-request-id") or secrets.token_hex(8)
        token = request_id_var.set(request_id[:64])
        try:
            length = request.headers.get("content-length")
            if length and length.isdigit() and int(length) > settings.server.max_body_bytes:
                return error_response(
                    PayloadTooLarge(f"request body is {length} bytes; the limit is {settings.server.max_body_bytes}")
                )
            response = await call_next(request)
            response.headers["x-request-id"] = request_id[:64]
            return response
        finally:
            request_id_var.reset(token)

    app.include_router(health.router)
    app.include_router(openai.router)
    app.include_router(intent.router)
    app.include_router(reply.router)
    return app
