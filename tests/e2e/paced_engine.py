"""A csreply server process whose generator is `PacedTestEngine`, a test double that streams a fixed number
of tokens at a fixed pace. The engine-pool tests start two of these as "remote engines" (their real
/v1/chat/completions over real HTTP) and kill one mid-stream: the thing under test is the frontend's
openai backend, so the engine behind the remote only has to stream predictably and die for real.

    python -m tests.e2e.paced_engine --port 9001 --tokens 40 --delay-ms 25
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

from serve.errors import BackendUnavailable
from serve.generation.base import ChatMessage, GenerationChunk, GenerationRequest, GeneratorStats

MODEL = "paced-test-engine"


class PacedTestEngine:
    name = "paced-test"
    model_name = MODEL
    languages = ("en",)

    def __init__(self, tokens: int, delay_s: float, label: str) -> None:
        self.tokens = tokens
        self.delay_s = delay_s
        self.label = label
        self.total = 0
        self.active = 0

    async def generate(self, request: GenerationRequest) -> AsyncIterator[GenerationChunk]:
        self.total += 1
        self.active += 1
        try:
            count = min(self.tokens, request.max_new_tokens)
            for i in range(count):
                await asyncio.sleep(self.delay_s)
                yield GenerationChunk(f"{self.label}{i} ")
            yield GenerationChunk("", "stop", prompt_tokens=5, completion_tokens=count)
        finally:
            self.active -= 1

    def count_prompt_tokens(self, messages: tuple[ChatMessage, ...]) -> int:
        return sum(len(m.content.split()) for m in messages)

    async def warmup(self) -> None:
        return None

    async def check_health(self) -> None:
        if self.delay_s < 0:
            raise BackendUnavailable("never")

    def stats(self) -> GeneratorStats:
        return GeneratorStats(self.name, self.model_name, self.active, self.active, 0, requests_total=self.total)

    async def aclose(self) -> None:
        return None


def main() -> None:
    import uvicorn

    from serve.app import create_app
    from serve.config import GeneratorSettings, Settings
    from serve.router.rules import RulesRouter

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tokens", type=int, default=40)
    parser.add_argument("--delay-ms", type=float, default=25.0)
    parser.add_argument("--label", default="tok")
    parser.add_argument("--cache-dir", type=Path, required=True)
    args = parser.parse_args()
    settings = Settings(cache_dir=args.cache_dir,
                        generator=GeneratorSettings(warmup=False, max_concurrent_requests=512))
    engine = PacedTestEngine(args.tokens, args.delay_ms / 1000, args.label)
    app = create_app(settings, generator=engine, router=RulesRouter())
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
