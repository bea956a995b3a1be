"""Errors become HTTP in one place: JSON `{"error": {"type", "message", "param"}}`, no 500 for bad input."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from serve.errors import Overloaded, ServeError

logger = logging.getLogger(__name__)


def error_body(error_type: str, message: str, param: str | None = None) -> dict[str, Any]:
    return {"error": {"type": error_type, "message": message, "param": param}}


def error_response(exc: ServeError) -> JSONResponse:
    headers = {"Retry-After": str(max(1, round(exc.retry_after)))} if isinstance(exc, Overloaded) else None
    return JSONResponse(error_body(exc.error_type, exc.message, exc.param), exc.status_code, headers=headers)


def format_loc(loc: tuple[Any, ...] | list[Any]) -> str | None:
    """('body', 'messages', 0, 'content') -> 'messages[0].content'."""
    parts = [p for p in loc if p != "body"]
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("str", "list[TextPart]", "function-after[_check_stop(), union[str,list[str],none]]"):
            continue  # pydantic's union-branch markers say nothing to a client
        else:
            out += f".{part}" if out else str(part)
    return out or None


def validation_message(errors: list[dict[str, Any]]) -> tuple[str, str | None]:
    first = errors[0]
    if first.get("type") == "json_invalid":
        return f"request body is not valid JSON: {first.get('ctx', {}).get('error', first.get('msg'))}", None
    param = format_loc(first.get("loc", ()))
    msg = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    if first.get("type") == "missing":
        if param is None:
            return "the request body is empty: send a JSON object", None
        return f"{param} is required", param
    return (f"{param}: {msg}" if param else msg), param


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServeError)
    async def _serve_error(_: Request, exc: ServeError) -> JSONResponse:
        if exc.status_code >= 500:
            logger.error("request.failed type=%s message=%s", exc.error_type, exc.message)
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        message, param = validation_message(list(exc.errors()))
        return JSONResponse(error_body("invalid_request_error", message, param), 400)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        error_type = "invalid_request_error" if exc.status_code < 500 else "server_error"
        if exc.status_code == 404:
            error_type = "not_found"
        message = str(exc.detail)
        if exc.status_code == 400 and "parsing the body" in message:
            message = "request body could not be decoded: send UTF-8 JSON"
        return JSONResponse(error_body(error_type, message), exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        logger.exception("request.crashed")
        return JSONResponse(error_body("server_error", "internal server error"), 500)
