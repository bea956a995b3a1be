"""FastAPI app factory and lifespan: load the models, warm up, then serve; drain on shutdown."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware

from serve.api import health, intent, openai, pages, reply
from serve.api.errors import install_error_handlers
from serve.api.middleware import RequestContextMiddleware
from serve.config import Settings
from serve.generation.base import Generator
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

    app.add_middleware(RequestContextMiddleware, max_body_bytes=settings.server.max_body_bytes)

    app.include_router(health.router)
    app.include_router(openai.router)
    app.include_router(intent.router)
    app.include_router(reply.router)
    app.include_router(pages.router)
    pages.mount_static(app)
    if settings.server.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=settings.server.cors_origins,
                           allow_methods=["GET", "POST", "OPTIONS"],
                           allow_headers=["content-type", "authorization"],
                           expose_headers=["Retry-After", "x-request-id"])
    return app
