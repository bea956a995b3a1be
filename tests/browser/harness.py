"""A real server (real router, real SmolLM2) behind two test doubles, for the states a healthy local
server never shows on demand: not ready, an engine failure mid-stream, a connection lost mid-stream.

Run as `python -m tests.browser.harness PORT`; tests switch the doubles with POST /__double__/state
`{"ready": bool, "fail_stream_after": n | null, "drop_stream_after": n | null}`. Why doubles: uvicorn
only listens once start-up is complete, so "not ready" is never visible to a browser of a real server;
an engine crash and a cut TCP connection cannot be caused on purpose in the middle of one reply.
Everything else (routing, admission and its 429, SSE, CORS) is the real app.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

import uvicorn

from serve.app import create_app
from serve.config import load_settings
from serve.errors import GenerationFailed
from serve.generation.base import GenerationChunk, GenerationRequest, Generator
from serve.logsetup import configure_logging
from serve.services import hf_generator

Scope = dict[str, Any]


class MidStreamFailureGeneratorDouble:
    """The real generator; when armed, the next generation raises after `fail_after` text chunks."""

    def __init__(self, inner: Generator) -> None:
        self.inner = inner
        self.fail_after: int | None = None

    def load(self) -> None:
        # Defined here, not only reached through __getattr__: from Python 3.12, isinstance() against a
        # runtime-checkable Protocol (the services' `Loadable`) looks attributes up statically, so a
        # forwarded `load` is not seen and the real model is never loaded.
        self.inner.load()  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def generate(self, request: GenerationRequest) -> AsyncGenerator[GenerationChunk, None]:
        fail_after, self.fail_after = self.fail_after, None
        texts = 0
        async with aclosing(self.inner.generate(request)) as chunks:
            async for chunk in chunks:
                if fail_after is not None and texts >= fail_after:
                    raise GenerationFailed("the engine failed (injected by the test double)")
                texts += bool(chunk.text)
                yield chunk


class _Dropped(Exception):
    pass


class ReadinessGateDouble:
    """ASGI wrapper: answers 503 for /ready and /v1/* while closed; can cut one /v1/reply stream."""

    def __init__(self, app: Any, generator: MidStreamFailureGeneratorDouble) -> None:
        self.app = app
        self.generator = generator
        self.ready = True
        self.drop_after: int | None = None

    async def _json(self, send: Any, status: int, body: dict[str, Any]) -> None:
        payload = json.dumps(body).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if path == "/__double__/state":
            body = b""
            while True:
                message = await receive()
                body += message.get("body", b"")
                if not message.get("more_body"):
                    break
            state = json.loads(body or b"{}")
            self.ready = state.get("ready", self.ready)
            self.generator.fail_after = state.get("fail_stream_after")
            self.drop_after = state.get("drop_stream_after")
            await self._json(send, 200, {"ready": self.ready})
            return
        if not self.ready and (path == "/ready" or path.startswith("/v1/")):
            error = "the model is still loading (test double)"
            payload: dict[str, Any] = (
                {"ready": False, "error": error}
                if path == "/ready"
                else {"error": {"type": "backend_unavailable", "message": error, "param": None}}
            )
            await self._json(send, 503, payload)
            return
        if path == "/v1/reply" and self.drop_after is not None:
            await self._serve_then_drop(scope, receive, send, self.drop_after)
            return
        await self.app(scope, receive, send)

    async def _serve_then_drop(self, scope: Scope, receive: Any, send: Any, after: int) -> None:
        """Pass `after` body chunks with text, then stop: uvicorn closes the connection mid-body."""
        self.drop_after = None
        seen = 0

        async def cutting_send(message: dict[str, Any]) -> None:
            nonlocal seen
            if message["type"] == "http.response.body" and b"event: delta" in message.get("body", b""):
                if seen >= after:
                    raise _Dropped
                seen += 1
            await send(message)

        try:
            await self.app(scope, receive, cutting_send)
        except (
            Exception
        ) as exc:  # bare or inside the task group of the SSE response (no `except*`: Python 3.10)
            if not _only_dropped(exc):
                raise
            # returning with the body unfinished makes uvicorn close the socket


def _only_dropped(exc: BaseException) -> bool:
    """`exc` is _Dropped, or an exception group (the builtin one, or anyio's backport on Python 3.10) of
    nothing else."""
    inner = getattr(exc, "exceptions", None)
    if isinstance(inner, tuple) and inner:
        return all(_only_dropped(e) for e in inner)
    return isinstance(exc, _Dropped)


def main() -> None:
    port = int(sys.argv[1])
    settings = load_settings()
    configure_logging(settings.logging.level, settings.logging.json_format)
    generator = hf_generator(settings)
    double = MidStreamFailureGeneratorDouble(generator)
    app = create_app(settings, generator=double)  # type: ignore[arg-type]
    uvicorn.run(
        ReadinessGateDouble(app, double),
        host="127.0.0.1",
        port=port,
        log_config=None,
        timeout_graceful_shutdown=10,
    )


if __name__ == "__main__":
    main()
