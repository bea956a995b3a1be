"""FastAPI app factory and lifespan: load the models, warm up, then serve; drain on shutdown."""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.middleware.cors import CORSMiddleware

from serve.api import admin, health, intent, openai, pages, reply
from serve.api.deps import Ops
from serve.api.errors import install_error_handlers
from serve.api.middleware import RequestContextMiddleware
from serve.config import Settings
from serve.generation.base import Generator
from serve.metrics import Metrics
from serve.router.base import IntentClassifier
from serve.services import build_services
from serve.streams import StreamRegistry

logger = logging.getLogger(__name__)

DOCS_ASSETS = "/docs-assets"


def create_app(
    settings: Settings, generator: Generator | None = None, router: IntentClassifier | None = None
) -> FastAPI:
    """The server; `generator` and `router` replace the configured backends (tests pass fakes)."""
    server = settings.server
    ops = Ops(Metrics(), StreamRegistry(server.request_timeout_s, server.max_request_timeout_s))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services = await build_services(settings, generator, router, ops.metrics)
        app.state.services = services
        ops.metrics.source = lambda: services.generator
        logger.info(
            "server.ready generator=%s model=%s members=%s",
            services.generator.name,
            services.generator.model_name,
            [m.name for m in services.generator.members],
        )
        try:
            yield
        finally:
            ops.streams.stop_all("shutdown")
            await services.aclose()

    app = FastAPI(
        title="csreply",
        version="0.1.0",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json" if server.docs else None,
        description="Customer-service reply server: intent routing and streamed replies.",
    )
    app.state.ops = ops
    install_error_handlers(app)
    keys = server.keys()
    if not keys and not _loopback(server.host):
        logger.warning(
            "server.no_api_keys host=%s: anyone who can reach this address can use the API; "
            "set server.api_keys",
            server.host,
        )
    app.add_middleware(
        RequestContextMiddleware,
        max_body_bytes=server.max_body_bytes,
        api_keys=keys,
        public_paths=[*server.public_paths, *((f"{DOCS_ASSETS}/",) if server.docs else ())],
    )
    if server.cors_origins:
        # Outermost, so a preflight is answered before authentication and errors carry CORS headers too.
        app.add_middleware(
            CORSMiddleware,
            allow_origins=server.cors_origins,
            allow_methods=["GET", "POST"],
            allow_headers=[
                "authorization",
                "content-type",
                "x-request-id",
                "x-csreply-variant",
                "x-csreply-timeout",
            ],
            expose_headers=["x-request-id", "retry-after"],
            max_age=600,
        )
    if server.docs:
        _mount_docs(app)

    app.include_router(health.router)
    app.include_router(openai.router)
    app.include_router(intent.router)
    app.include_router(reply.router)
    app.include_router(pages.router)
    app.include_router(admin.router)
    pages.mount_static(app)
    return app


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _mount_docs(app: FastAPI) -> None:
    """Swagger UI from the assets bundled with swagger-ui-py: /docs works without internet access."""
    from pathlib import Path

    import swagger_ui
    from starlette.staticfiles import StaticFiles

    static = Path(swagger_ui.__file__).parent / "static"
    app.mount(DOCS_ASSETS, StaticFiles(directory=static), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="csreply API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon-32x32.png",
        )
