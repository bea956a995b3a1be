"""The browser pages: `/` (chat widget demo), `/assist` (agent-assist panel) and `/static` (their files)."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from serve.web import STATIC_DIR

router = APIRouter()


# no-cache: the files are small and a stale widget.js after an upgrade would talk an old protocol.
_HEADERS = {"Cache-Control": "no-cache"}


@router.get("/", include_in_schema=False)
async def demo_page() -> FileResponse:
    return FileResponse(STATIC_DIR / "index.html", headers=_HEADERS)


@router.get("/assist", include_in_schema=False)
async def assist_page() -> FileResponse:
    return FileResponse(STATIC_DIR / "assist.html", headers=_HEADERS)


def mount_static(app: FastAPI) -> None:
    """Serve widget.js and the pages' assets under /static (no CDN: the pages work offline)."""
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
