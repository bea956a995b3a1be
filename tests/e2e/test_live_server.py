"""Against a real uvicorn process and the real SmolLM2 model (transformers continuous batching on CPU)."""

from __future__ import annotations

import asyncio
import json
import time
from itertools import pairwise
from typing import Any

import httpx
import pytest
from openai import OpenAI

from tests.conftest import sse_json
from tests.e2e.conftest import LiveServer

pytestmark = pytest.mark.slow

QUESTIONS = [
    "How can I check how much mobile data I have left this month?",
    "My parcel was supposed to arrive yesterday. Where is it?",
    "Can I change my plan to one with more minutes?",
    "I want to return a pair of shoes that do not fit.",
]


def chat_body(question: str, **extra: Any) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "system", "content": "You are a polite customer-service assistant. Answer briefly."},
            {"role": "user", "content": question},
        ],
        "temperature": 0,
        **extra,
    }


def reference_reply(server: LiveServer, question: str, max_tokens: int) -> dict[str, Any]:
    response = httpx.post(
        f"{server.url}/v1/chat/completions", json=chat_body(question, max_tokens=max_tokens), timeout=120
    )
    assert response.status_code == 200, response.text
    return response.json()


async def stream_reply(
    client: httpx.AsyncClient, payload: dict[str, Any]
) -> tuple[list[dict], list[float], bool]:
    """JSON events with their arrival times, and whether [DONE] closed the stream."""
    events: list[dict] = []
    arrivals: list[float] = []
    done = False
    async with client.stream("POST", "/v1/chat/completions", json=payload, timeout=300) as response:
        assert response.status_code == 200
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                done = True
                continue
            events.append(json.loads(data))
            arrivals.append(time.perf_counter())
    return events, arrivals, done


def content_of(events: list[dict], index: int = 0) -> str:
    return "".join(
        e["choices"][0]["delta"].get("content") or ""
        for e in events
        if e["choices"] and e["choices"][0]["index"] == index
    )


async def test_stream_arrives_chunk_by_chunk_and_equals_the_non_streamed_reply(
    live_server: LiveServer,
) -> None:
    reference = reference_reply(live_server, QUESTIONS[0], 32)
    payload = chat_body(QUESTIONS[0], max_tokens=32, stream=True, stream_options={"include_usage": True})
    async with httpx.AsyncClient(base_url=live_server.url) as client:
        events, arrivals, done = await stream_reply(client, payload)
    assert done
    assert content_of(events) == reference["choices"][0]["message"]["content"]
    content_times = [
        t
        for e, t in zip(events, arrivals, strict=True)
        if e["choices"] and e["choices"][0]["delta"].get("content")
    ]
    assert len(content_times) >= 10
    # tokens are delivered as they are made, not in one burst at the end
    gaps = [b - a for a, b in pairwise(content_times)]
    assert content_times[-1] - content_times[0] > 0.3
    assert sum(g > 0.01 for g in gaps) >= len(gaps) // 2
    assert all(e["choices"][0]["finish_reason"] is None for e in events[:-2])
    finish, last = events[-2], events[-1]  # include_usage: usage comes in its own chunk, choices empty
    assert finish["choices"][0]["finish_reason"] == reference["choices"][0]["finish_reason"]
    assert last["choices"] == [] and last["usage"] == reference["usage"]
    assert last["usage"]["completion_tokens"] <= 32


def test_official_openai_client_streams_unchanged(live_server: LiveServer) -> None:
    client = OpenAI(base_url=f"{live_server.url}/v1", api_key="unused")
    model = client.models.list().data[0].id
    stream = client.chat.completions.create(
        model=model,
        messages=[{"role": "user", "content": QUESTIONS[1]}],
        max_tokens=16,
        temperature=0,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.strip()
    finishing = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishing and finishing[-1].choices[0].finish_reason in ("stop", "length")
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens > 0
    plain = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": QUESTIONS[1]}], max_tokens=16, temperature=0
    )
    assert plain.choices[0].message.content == text


async def test_client_disconnect_cancels_the_request_in_the_engine(live_server: LiveServer) -> None:
    payload = chat_body(
        QUESTIONS[2], max_tokens=400, stream=True, ignore_eos=True
    )  # still running when we leave
    async with httpx.AsyncClient(base_url=live_server.url) as client:
        async with client.stream("POST", "/v1/chat/completions", json=payload, timeout=60) as response:
            seen = 0
            async for line in response.aiter_lines():
                seen += line.startswith("data:")
                if seen >= 4:
                    break
            during = live_server.engine_stats()
            assert during["active_requests"] == 1
            assert during["engine_running"] + during["engine_waiting"] == 1
        closed_at = time.monotonic()
    # 400 tokens take ~25 s here; the engine must let go of the request long before that
    while time.monotonic() - closed_at < 8:
        stats = live_server.engine_stats()
        if stats["active_requests"] == 0 and stats["engine_running"] == 0 and stats["engine_waiting"] == 0:
            break
        await asyncio.sleep(0.1)
    assert (stats["active_requests"], stats["engine_running"], stats["engine_waiting"]) == (0, 0, 0)
    assert "ASGI callable returned without completing response" not in live_server.log.read_text()


async def test_sixteen_concurrent_streams_all_complete_correctly(live_server: LiveServer) -> None:
    references = {
        q: reference_reply(live_server, q, 24)["choices"][0]["message"]["content"] for q in QUESTIONS
    }
    async with httpx.AsyncClient(base_url=live_server.url) as client:
        results = await asyncio.gather(
            *[
                stream_reply(
                    client,
                    chat_body(
                        QUESTIONS[i % 4], max_tokens=24, stream=True, stream_options={"include_usage": True}
                    ),
                )
                for i in range(16)
            ]
        )
    for i, (events, _, done) in enumerate(results):
        assert done, f"stream {i} did not end with [DONE]"
        assert events[-2]["choices"][0]["finish_reason"] in ("stop", "length")
        assert events[-1]["choices"] == [] and events[-1]["usage"]["completion_tokens"] > 0
        assert content_of(events) == references[QUESTIONS[i % 4]], f"stream {i} differs from its greedy reply"
    assert live_server.engine_stats()["active_requests"] == 0


async def test_same_seed_gives_the_same_sampled_reply_even_under_load(live_server: LiveServer) -> None:
    sampled = chat_body(QUESTIONS[3], max_tokens=24, temperature=0.9, top_p=0.95, seed=1234)
    async with httpx.AsyncClient(base_url=live_server.url, timeout=120) as client:
        alone = (await client.post("/v1/chat/completions", json=sampled)).json()
        other = chat_body(QUESTIONS[0], max_tokens=24, temperature=0.9, seed=99)
        loaded, *_ = await asyncio.gather(
            client.post("/v1/chat/completions", json=sampled),
            client.post("/v1/chat/completions", json=other),
            client.post("/v1/chat/completions", json={**other, "seed": 5}),
        )
        two = (await client.post("/v1/chat/completions", json={**sampled, "n": 2})).json()
    text = alone["choices"][0]["message"]["content"]
    assert loaded.json()["choices"][0]["message"]["content"] == text
    assert two["choices"][0]["message"]["content"] == text  # choice 0 uses the request's seed
    assert two["choices"][1]["message"]["content"] != text  # choice 1 uses seed + 1


async def test_chinese_stream_never_carries_a_broken_character(live_server: LiveServer) -> None:
    payload = {
        "messages": [{"role": "user", "content": "我的话费余额怎么查？请用中文回答。"}],
        "max_tokens": 40,
        "temperature": 0,
        "stream": True,
    }
    async with httpx.AsyncClient(base_url=live_server.url) as client:
        events, _, done = await stream_reply(client, payload)
    assert done
    deltas = [e["choices"][0]["delta"].get("content") or "" for e in events]
    assert all("\ufffd" not in d for d in deltas)
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in d) for d in deltas)


def test_stop_string_cuts_the_reply_and_never_appears(live_server: LiveServer) -> None:
    full = reference_reply(live_server, QUESTIONS[1], 40)["choices"][0]["message"]["content"]
    words = full.split()
    assert len(words) > 6, full
    stop = " " + words[len(words) // 2]
    cut = full.index(stop)
    response = httpx.post(
        f"{live_server.url}/v1/chat/completions",
        json=chat_body(QUESTIONS[1], max_tokens=40, stop=[stop]),
        timeout=120,
    )
    choice = response.json()["choices"][0]
    assert choice["message"]["content"] == full[:cut]
    assert choice["finish_reason"] == "stop"
    streamed = httpx.post(
        f"{live_server.url}/v1/chat/completions",
        json=chat_body(QUESTIONS[1], max_tokens=40, stop=[stop], stream=True),
        timeout=120,
    )
    events, done = sse_json(streamed.text)
    assert done and content_of(events) == full[:cut]
