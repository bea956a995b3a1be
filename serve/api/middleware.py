"""Pure ASGI middleware: request ids, the body-size limit, API keys, and client-disconnect cancellation.

Pure ASGI (not `@app.middleware("http")`), so responses pass straight through: the only per-message work
on a response is one type check in `send` (to add `x-request-id` to the start message); bodies are never
buffered or re-chunked. The request body is read here (it is bounded by `max_body_bytes`) and replayed to
the app; after that this middleware is the one reader of the connection, so it sees a disconnect at once:
before the response has started (a request waiting in the admission queue, or a non-streaming reply being
generated) it cancels the handler, which aborts the engine work and frees its slot; once an SSE response
runs, the app's own disconnect listener receives the same `http.disconnect` and closes the stream.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from contextlib import suppress
from typing import Any

from serve.logsetup import request_id_var

logger = logging.getLogger("serve.http")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


def _error(
    status: int,
    error_type: str,
    message: str,
    headers: list[tuple[bytes, bytes]] | None = None,
    request_id: str = "",
) -> tuple[Message, Message]:
    body = json.dumps({"error": {"type": error_type, "message": message, "param": None}}).encode()
    start_headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"x-request-id", request_id.encode()),
        *(headers or []),
    ]
    return (
        {"type": "http.response.start", "status": status, "headers": start_headers},
        {"type": "http.response.body", "body": body},
    )


class RequestContextMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        api_keys: list[str] | None = None,
        public_paths: list[str] | None = None,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.api_keys = [k.encode() for k in (api_keys or [])]
        self.public_paths = tuple(public_paths or ())

    def _public(self, path: str) -> bool:
        return any(path == p or (p.endswith("/") and path.startswith(p)) for p in self.public_paths)

    def _authorized(self, scope: Scope) -> bool:
        header = b""
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                header = value
                break
        scheme, _, token = header.partition(b" ")
        if scheme.lower() != b"bearer" or not token:
            return False
        token = token.strip()
        ok = False
        for key in self.api_keys:  # compare with every key: the time taken says nothing about which matched
            ok |= hmac.compare_digest(token, key)
        return ok

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = ""
        for name, value in scope.get("headers", ()):
            if name == b"x-request-id":
                given = value.decode("latin-1")
                break
        request_id = given if _REQUEST_ID.match(given) else secrets.token_hex(8)
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        status_box = [0]
        try:
            await self._handle(scope, receive, send, request_id, status_box)
        finally:
            logger.info(
                "http.request method=%s path=%s status=%d ms=%.1f",
                scope.get("method"),
                scope.get("path"),
                status_box[0],
                (time.perf_counter() - started) * 1000,
            )
            request_id_var.reset(token)

    async def _handle(
        self, scope: Scope, receive: Receive, send: Send, request_id: str, status_box: list[int]
    ) -> None:
        async def reply_error(
            status: int, error_type: str, message: str, headers: list[tuple[bytes, bytes]] | None = None
        ) -> None:
            status_box[0] = status
            for message_ in _error(status, error_type, message, headers, request_id):
                await send(message_)

        if self.api_keys and scope.get("method") != "OPTIONS" and not self._public(scope["path"]):
            if not self._authorized(scope):
                await reply_error(
                    401,
                    "authentication_error",
                    "missing or invalid API key: send `Authorization: Bearer <key>`",
                    [(b"www-authenticate", b"Bearer")],
                )
                return
        declared = None
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                declared = value
                break
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await reply_error(
                413,
                "invalid_request_error",
                f"request body is {int(declared)} bytes; the limit is {self.max_body_bytes}",
            )
            return
        # Read the (bounded) body, then hand it to the app in one message.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                await reply_error(
                    413,
                    "invalid_request_error",
                    f"request body exceeds the limit of {self.max_body_bytes} bytes",
                )
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body: bytes | None = b"".join(chunks)
        disconnected = asyncio.Event()
        response_started = False

        async def app_receive() -> Message:
            nonlocal body
            if body is not None:
                data, body = body, None
                return {"type": "http.request", "body": data, "more_body": False}
            await disconnected.wait()
            return {"type": "http.disconnect"}

        async def app_send(message: Message) -> None:
            nonlocal response_started
            if message["type"] == "http.response.start":
                response_started = True
                status_box[0] = message["status"]
                message["headers"] = [*message.get("headers", ()), (b"x-request-id", request_id.encode())]
            await send(message)

        app_task: asyncio.Task[None] = asyncio.ensure_future(self.app(scope, app_receive, app_send))

        async def watch() -> None:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    break
            disconnected.set()
            if not response_started and not app_task.done():
                logger.info("http.client_gone before_response=true")
                app_task.cancel()

        watcher = asyncio.create_task(watch())
        try:
            await app_task
        except asyncio.CancelledError:
            if not disconnected.is_set():
                raise  # the server cancelled us (shutdown), not the client going away
            status_box[0] = 499
        finally:
            watcher.cancel()
            with suppress(asyncio.CancelledError):
                await watcher
