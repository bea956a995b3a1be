"""`FastTestEngine`: a test-only Generator that streams numbered tokens as fast as the event loop allows.

It stands in for the engine in load and fault tests, where the server's own plumbing (admission, SSE,
deadlines, disconnects, drain) is what is measured; the real engine is covered by the e2e tests. Markers
in the last user message inject faults:

* `[[raise]]`  raises after two chunks (an engine crashing mid-stream);
* `[[hang]]`   sends one chunk, then never another (an engine that hangs);
* `[[slow]]`   sleeps `slow_s` between chunks (a long generation, for deadlines and the drain).

`pace_s` paces every chunk and `label` names the tokens ("a0 a1 ..."): the engine-pool tests run two of
these as remote engines and tell from a reply's text which one wrote it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field

from serve.errors import BackendUnavailable
from serve.generation.base import ChatMessage, GenerationChunk, GenerationRequest, GeneratorStats

BLOCK_TOKENS = 16


@dataclass
class FastTestEngine:
    tokens: int = 12
    slow_s: float = 0.05
    pace_s: float = 0.0
    label: str = "t"
    name: str = "fast-test"
    model_name: str = "fast-test-model"
    languages: tuple[str, ...] = ("en", "zh")
    running: set[str] = field(default_factory=set)
    aborted: list[str] = field(default_factory=list)
    started: int = 0
    broken: bool = False  # every request fails before its first token (an engine that is down)

    async def generate(self, request: GenerationRequest) -> AsyncGenerator[GenerationChunk, None]:
        if self.broken:
            raise BackendUnavailable("fast test engine is marked down")
        text = request.messages[-1].content
        count = min(self.tokens, request.max_new_tokens)
        self.started += 1
        self.running.add(request.request_id)
        finished = False
        try:
            for i in range(count - 1):
                yield GenerationChunk(f"{self.label}{i} ")
                if "[[raise]]" in text and i == 1:
                    raise RuntimeError("injected engine crash")
                if "[[hang]]" in text:
                    await asyncio.Event().wait()
                await asyncio.sleep(self.slow_s if "[[slow]]" in text else self.pace_s)
            finished = True
            yield GenerationChunk(
                f"{self.label}{count - 1}",
                "stop" if count == self.tokens else "length",
                prompt_tokens=self.count_prompt_tokens(request.messages),
                completion_tokens=count,
            )
        finally:
            self.running.discard(request.request_id)
            if not finished:
                self.aborted.append(request.request_id)

    def count_prompt_tokens(self, messages: tuple[ChatMessage, ...]) -> int:
        return sum(len(m.content.split()) + 4 for m in messages)

    async def warmup(self) -> None:
        return None

    async def check_health(self) -> None:
        if self.broken:
            raise BackendUnavailable("fast test engine is marked down")

    def stats(self) -> GeneratorStats:
        running = len(self.running)
        # Blocks as a paged engine would hold them: a fixed share per running request, none when idle.
        return GeneratorStats(
            self.name,
            self.model_name,
            running,
            running,
            0,
            self.started,
            kv_blocks_used=running * 2,
            kv_blocks_total=512,
        )

    async def aclose(self) -> None:
        return None


def main() -> None:
    """`python -m tests.fast_engine --port N`: the real server (uvicorn, drain, signals) with this engine."""
    import argparse

    from serve.app import create_app
    from serve.config import load_settings
    from serve.logsetup import configure_logging
    from serve.server import serve_app

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tokens", type=int, default=12)
    parser.add_argument("--delay-ms", type=float, default=0.0, help="pause before every chunk")
    parser.add_argument("--label", default="t", help="token text prefix")
    args = parser.parse_args()
    settings = load_settings()
    settings = settings.model_copy(update={"server": settings.server.model_copy(update={"port": args.port})})
    configure_logging(settings.logging.level, settings.logging.json_format)
    engine = FastTestEngine(
        tokens=args.tokens,
        slow_s=float(os.environ.get("FAST_ENGINE_SLOW_S", "0.05")),
        pace_s=args.delay_ms / 1000,
        label=args.label,
    )
    raise SystemExit(serve_app(create_app(settings, generator=engine), settings))


if __name__ == "__main__":
    main()
