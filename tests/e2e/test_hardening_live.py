"""Issue 11 on the real embedded model behind `csreply run`: a smaller load run, disconnects that free the
engine's slots and KV blocks, and a SIGTERM drain that ends every stream with a terminal event and exits 0."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from typing import Any

import httpx

from tests.conftest import parse_sse
from tests.e2e.conftest import LiveServer, start_server

CHAT = "/v1/chat/completions"


def body(text: str, max_tokens: int, **extra: object) -> dict[str, object]:
    return {
        "messages": [{"role": "user", "content": text}],
        "max_tokens": max_tokens,
        "stream": True,
        **extra,
    }


def terminated(text: str) -> dict[str, Any]:
    """The last JSON chunk of a complete stream (which ended with [DONE])."""
    payloads = parse_sse(text)
    assert payloads and payloads[-1] == "[DONE]", text[-300:]
    return json.loads(payloads[-2])


async def test_real_model_streams_under_concurrency_all_terminate_and_free_the_engine(
    live_server: LiveServer,
) -> None:
    total, concurrency = 12, 4
    semaphore = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(base_url=live_server.url, timeout=300) as client:

        async def one(i: int) -> dict[str, Any]:
            async with semaphore:
                r = await client.post(
                    CHAT,
                    json=body(
                        f"Give me one tip about saving money, number {i}.",
                        8,
                        temperature=0,
                        stream_options={"include_usage": True},
                    ),
                    headers={"x-csreply-timeout": "600"},
                )
                assert r.status_code == 200
                chunks = [json.loads(p) for p in parse_sse(r.text)[:-1]]
                assert len({c["id"] for c in chunks}) == 1  # never another request's chunks
                return terminated(r.text)

        lasts = await asyncio.gather(*(one(i) for i in range(total)))
        ready = (await client.get("/ready")).json()
    for last in lasts:
        assert last["choices"] == [] and last["usage"]["completion_tokens"] > 0, last
    assert ready["ready"] and ready["in_flight"] == 0
    assert ready["generator"]["engine_running"] == 0 and ready["generator"]["kv_blocks_used"] == 0


async def test_real_model_disconnect_frees_slot_and_kv_blocks_within_100ms(live_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=120) as client:
        baseline = (await client.get("/ready")).json()["generator"]
        async with client.stream(
            "POST", CHAT, json=body("Write a long story about a lighthouse.", 800, ignore_eos=True)
        ) as r:
            async for line in r.aiter_lines():
                if line.startswith("data:") and '"content"' in line and '"content": ""' not in line:
                    break
            during = (await client.get("/ready")).json()["generator"]
        gone = time.perf_counter()  # leaving the block closes the connection
        aborted_s: float | None = None
        engine_s: float | None = None
        while engine_s is None:
            stats = (await client.get("/ready")).json()["generator"]
            now = time.perf_counter() - gone
            if aborted_s is None and stats["active_requests"] == 0:
                aborted_s = now  # the server aborted the request (engine cancel issued, slot released)
            if aborted_s is not None and stats["engine_running"] == 0:
                engine_s = now  # the engine thread dropped it at its next batch step
            await asyncio.sleep(0.005)
        metrics = (await client.get("/metrics")).text
    assert aborted_s is not None  # set before engine_s, which ended the loop
    print(
        f"real model: disconnect aborted in {aborted_s * 1000:.1f} ms, engine dropped it after "
        f"{engine_s * 1000:.1f} ms; KV blocks used {during['kv_blocks_used']} during, "
        f"{stats['kv_blocks_used']} after (baseline {baseline['kv_blocks_used']})"
    )
    assert during["engine_running"] == 1 and during["kv_blocks_used"] > 0
    assert aborted_s < 0.1
    assert engine_s < 5  # one engine step; seconds only on an overloaded machine
    assert stats["kv_blocks_used"] == baseline["kv_blocks_used"] == 0
    assert 'csreply_num_requests_running{endpoint="chat"} 0.0' in metrics


async def test_ignore_eos_gives_a_fixed_length_reply_on_the_real_model(live_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live_server.url, timeout=120) as client:

        def ask(**extra: object) -> dict[str, object]:
            return {
                "messages": [{"role": "user", "content": "Say hi."}],
                "max_tokens": 48,
                "temperature": 0,
                **extra,
            }

        fixed, free = await asyncio.gather(
            client.post(CHAT, json=ask(ignore_eos=True)), client.post(CHAT, json=ask())
        )
    assert (
        free.json()["choices"][0]["finish_reason"] == "stop"
        and free.json()["usage"]["completion_tokens"] < 48
    )
    assert fixed.json()["choices"][0]["finish_reason"] == "length"
    assert fixed.json()["usage"]["completion_tokens"] == 48


def test_csreply_run_drains_on_sigterm_and_exits_0(tmp_path) -> None:
    server = start_server(
        tmp_path / "server.log",
        {"CSREPLY_SERVER__DRAIN_TIMEOUT_S": "1", "CSREPLY_LOGGING__JSON_FORMAT": "true"},
    )

    async def scenario() -> list[str]:
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as client:
            started = asyncio.Event()
            streaming = 0

            async def stream(i: int) -> str:
                nonlocal streaming
                lines: list[str] = []
                counted = False
                # ignore_eos: the small model may end a story in seconds; these must outlive the drain
                async with client.stream(
                    "POST", CHAT, json=body(f"Tell a very long story {i}.", 900, ignore_eos=True)
                ) as r:
                    async for line in r.aiter_lines():
                        lines.append(line)
                        if not counted and '"content"' in line and '"content": ""' not in line:
                            counted = True
                            streaming += 1
                            if streaming == 2:
                                started.set()
                return "\n".join(lines)

            tasks = [asyncio.create_task(stream(i)) for i in range(2)]
            await asyncio.wait_for(started.wait(), 120)  # both streams are past their first token
            server.process.send_signal(signal.SIGTERM)
            return list(await asyncio.gather(*tasks))

    try:
        texts = asyncio.run(scenario())
        assert server.process.wait(timeout=60) == 0
    finally:
        if server.process.poll() is None:
            server.process.kill()
    for text in texts:
        last = terminated(text)
        assert "shutting down" in last["error"]["message"]  # cut at the drain timeout, with a terminal event
    log = server.log.read_text()
    assert "server.draining" in log and "server.drained left=0" in log
