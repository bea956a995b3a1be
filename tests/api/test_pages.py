"""The browser pages and their static files are served by the app; CORS headers only when configured.
No lifespan: these routes need no model (the browser tests cover the pages against the real server)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from serve.app import create_app
from serve.config import GeneratorSettings, ServerSettings, Settings
from serve.web import STATIC_DIR

SHOP = "https://shop.example.com"


def client_for(tmp_path: Path, cors_origins: list[str]) -> httpx.AsyncClient:
    settings = Settings(
        cache_dir=tmp_path,
        server=ServerSettings(cors_origins=cors_origins),
        generator=GeneratorSettings(warmup=False),
    )
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(settings)), base_url="http://test")


@pytest.mark.parametrize(("path", "marker"), [("/", 'id="chat"'), ("/assist", 'id="suggest-form"')])
async def test_pages_are_html_that_load_only_local_files(tmp_path: Path, path: str, marker: str) -> None:
    async with client_for(tmp_path, []) as client:
        response = await client.get(path)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert marker in response.text
    assert "http://" not in response.text and "https://" not in response.text  # no CDN: works offline


@pytest.mark.parametrize("name", ["widget.js", "assist.js", "pages.css"])
async def test_static_files_are_served_from_the_package(tmp_path: Path, name: str) -> None:
    async with client_for(tmp_path, []) as client:
        response = await client.get(f"/static/{name}")
    assert response.status_code == 200
    assert response.content == (STATIC_DIR / name).read_bytes()


async def test_no_cors_headers_by_default(tmp_path: Path) -> None:
    async with client_for(tmp_path, []) as client:
        response = await client.options(
            "/v1/reply", headers={"Origin": SHOP, "Access-Control-Request-Method": "POST"}
        )
        simple = await client.get("/health", headers={"Origin": SHOP})
    assert "access-control-allow-origin" not in response.headers
    assert "access-control-allow-origin" not in simple.headers


async def test_configured_origin_gets_preflight_and_exposed_headers(tmp_path: Path) -> None:
    async with client_for(tmp_path, [SHOP]) as client:
        preflight = await client.options(
            "/v1/reply",
            headers={
                "Origin": SHOP,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type, authorization",
            },
        )
        other = await client.options(
            "/v1/reply",
            headers={"Origin": "https://evil.example.com", "Access-Control-Request-Method": "POST"},
        )
        simple = await client.get("/health", headers={"Origin": SHOP})
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == SHOP
    assert "POST" in preflight.headers["access-control-allow-methods"]
    assert "authorization" in preflight.headers["access-control-allow-headers"].lower()
    assert other.status_code == 400 and "access-control-allow-origin" not in other.headers
    assert simple.headers["access-control-allow-origin"] == SHOP
    exposed = {h.strip().lower() for h in simple.headers["access-control-expose-headers"].split(",")}
    assert {"retry-after", "x-request-id"} <= exposed
