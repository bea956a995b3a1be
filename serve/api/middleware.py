"""Request context as pure ASGI middleware: a request id for the logs (and the `x-request-id` response
header), and 413 for bodies declared larger than the limit.

Pure ASGI on purpose: Starlette's `@app.middleware("http")` (BaseHTTPMiddleware) pipes every response body
through an extra task and memory stream, a cost paid per SSE frame, i.e. per streamed token."""

from __future__ import annotations

import secrets

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serve.api.errors import error_response
from serve.errors import PayloadTooLarge
from serve.logsetup import request_id_var

REQUEST_ID_HEADER = b"x-request-id"


class RequestContextMiddleware:
    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = length = None
        for name, value in scope["headers"]:
            if name == REQUEST_ID_HEADER:
                request_id = value.decode("latin-1")
            elif name == b"content-length":
                length = value.decode("latin-1")
        request_id = (request_id or secrets.token_hex(8))[:64]
        token = request_id_var.set(request_id)
        try:
            if length and length.isdigit() and int(length) > self.max_body_bytes:
                response = error_response(
                    PayloadTooLarge(f"request body is {length} bytes; the limit is {self.max_body_bytes}"))
                await response(scope, receive, send)
                return
            header = (REQUEST_ID_HEADER, request_id.encode("latin-1"))

            async def send_with_id(message: Message) -> None:
                if message["type"] == "http.response.start":
                    message["headers"] = [*message.get("headers", ()), header]
                await send(message)

            await self.app(scope, receive, send_with_id)
        finally:
            request_id_var.reset(token)
