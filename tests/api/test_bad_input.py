"""A corpus of bad requests: every one gets a 4xx with a clear JSON error, none a 5xx."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from serve.app import create_app
from serve.config import AdmissionSettings, GeneratorSettings, ServerSettings, Settings
from tests.conftest import lifespan
from tests.fast_engine import FastTestEngine

CHAT = "/v1/chat/completions"
REPLY = "/v1/reply"
OK_MSG = [{"role": "user", "content": "hi"}]
JSON = {"content-type": "application/json"}


def case(
    method: str,
    path: str,
    *,
    json: object = None,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
    expect: int | tuple[int, ...] = 400,
    says: str = "",
) -> tuple:
    return (method, path, json, raw, headers or {}, expect if isinstance(expect, tuple) else (expect,), says)


CASES = {
    # malformed JSON
    "empty body": case("POST", CHAT, raw=b"", headers=JSON, says="JSON"),
    "truncated json": case("POST", CHAT, raw=b'{"messages": [', headers=JSON, says="JSON"),
    "trailing comma": case("POST", CHAT, raw=b'{"messages": [],}', headers=JSON, says="JSON"),
    "single quotes": case("POST", CHAT, raw=b"{'messages': []}", headers=JSON, says="JSON"),
    "bare string": case("POST", CHAT, raw=b'"hello"', headers=JSON),
    "json array": case("POST", CHAT, raw=b"[1, 2]", headers=JSON),
    "json null": case("POST", CHAT, raw=b"null", headers=JSON),
    "NaN literal": case(
        "POST", REPLY, raw=b'{"domain": "telecom", "message": "hi", "max_tokens": NaN}', headers=JSON
    ),
    "reply truncated": case("POST", REPLY, raw=b'{"domain": "tel', headers=JSON, says="JSON"),
    # invalid UTF-8 and encodings
    "invalid utf-8": case(
        "POST", CHAT, raw=b'{"messages": [{"role": "user", "content": "\xff\xfe"}]}', headers=JSON
    ),
    "latin-1 body": case(
        "POST", REPLY, raw='{"domain": "telecom", "message": "caf\u00e9"}'.encode("latin-1"), headers=JSON
    ),
    "utf-16 body": case("POST", CHAT, raw='{"messages": []}'.encode("utf-16"), headers=JSON),
    "lone surrogate escape": case(
        "POST", REPLY, raw=b'{"domain": "telecom", "message": "\\ud800"}', headers=JSON, says="message"
    ),
    # wrong types
    "messages not a list": case("POST", CHAT, json={"messages": "hi"}, says="messages"),
    "messages empty": case("POST", CHAT, json={"messages": []}, says="messages"),
    "message not an object": case("POST", CHAT, json={"messages": ["hi"]}, says="messages[0]"),
    "content a number": case(
        "POST", CHAT, json={"messages": [{"role": "user", "content": 5}]}, says="content"
    ),
    "content null": case("POST", CHAT, json={"messages": [{"role": "user", "content": None}]}),
    "role unknown": case("POST", CHAT, json={"messages": [{"role": "wizard", "content": "hi"}]}, says="role"),
    "role tool": case("POST", CHAT, json={"messages": [{"role": "tool", "content": "hi"}]}, says="role"),
    "role missing": case("POST", CHAT, json={"messages": [{"content": "hi"}]}, says="role"),
    "blank content": case(
        "POST", CHAT, json={"messages": [{"role": "user", "content": "   "}]}, says="empty"
    ),
    "image part": case(
        "POST",
        CHAT,
        json={
            "messages": [
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://x"}}]}
            ]
        },
    ),
    "max_tokens string": case(
        "POST", CHAT, json={"messages": OK_MSG, "max_tokens": "many"}, says="max_tokens"
    ),
    "max_tokens zero": case("POST", CHAT, json={"messages": OK_MSG, "max_tokens": 0}, says="max_tokens"),
    "max_tokens huge": case("POST", CHAT, json={"messages": OK_MSG, "max_tokens": 10**9}, says="max_tokens"),
    "max_tokens float": case("POST", CHAT, json={"messages": OK_MSG, "max_tokens": 1.5}, says="max_tokens"),
    "temperature high": case("POST", CHAT, json={"messages": OK_MSG, "temperature": 5}, says="temperature"),
    "temperature string": case(
        "POST", CHAT, json={"messages": OK_MSG, "temperature": "hot"}, says="temperature"
    ),
    "top_p zero": case("POST", CHAT, json={"messages": OK_MSG, "top_p": 0}, says="top_p"),
    "n too many": case("POST", CHAT, json={"messages": OK_MSG, "n": 50}, says="n"),
    "n negative": case("POST", CHAT, json={"messages": OK_MSG, "n": -1}, says="n"),
    "stop too many": case(
        "POST", CHAT, json={"messages": OK_MSG, "stop": ["a", "b", "c", "d", "e"]}, says="stop"
    ),
    "stop empty string": case("POST", CHAT, json={"messages": OK_MSG, "stop": [""]}, says="stop"),
    "stop a number": case("POST", CHAT, json={"messages": OK_MSG, "stop": 7}, says="stop"),
    "stream a string": case("POST", CHAT, json={"messages": OK_MSG, "stream": "yes please"}, says="stream"),
    "seed a string": case("POST", CHAT, json={"messages": OK_MSG, "seed": "abc"}, says="seed"),
    "stream_options unknown": case("POST", CHAT, json={"messages": OK_MSG, "stream_options": {"x": 1}}),
    "unknown model": case("POST", CHAT, json={"messages": OK_MSG, "model": "gpt-9"}, says="model"),
    "domain unknown": case("POST", REPLY, json={"domain": "banking", "message": "hi"}, says="domain"),
    "domain missing": case("POST", REPLY, json={"message": "hi"}, says="domain"),
    "message missing": case("POST", REPLY, json={"domain": "telecom"}, says="message"),
    "message a list": case("POST", REPLY, json={"domain": "telecom", "message": ["hi"]}, says="message"),
    "message blank": case("POST", REPLY, json={"domain": "telecom", "message": " \n "}, says="empty"),
    "lang unknown": case(
        "POST", REPLY, json={"domain": "telecom", "message": "hi", "lang": "fr"}, says="lang"
    ),
    "history wrong role": case(
        "POST",
        REPLY,
        json={"domain": "telecom", "message": "hi", "history": [{"role": "system", "content": "x"}]},
    ),
    "context nested": case(
        "POST", REPLY, json={"domain": "telecom", "message": "hi", "context": {"a": {"b": 1}}}
    ),
    "session id with spaces": case(
        "POST", REPLY, json={"domain": "telecom", "message": "hi", "session_id": "a b"}, says="session_id"
    ),
    "suggest n too big": case("POST", "/v1/suggest", json={"domain": "telecom", "message": "hi", "n": 9}),
    "intent both text and texts": case("POST", "/v1/intent", json={"text": "a", "texts": ["b"]}),
    "intent empty texts": case("POST", "/v1/intent", json={"texts": []}),
    "intent top_k huge": case("POST", "/v1/intent", json={"text": "hi", "top_k": 1000}, says="top_k"),
    # control characters, template syntax, unknown fields
    "NUL in message": case(
        "POST", REPLY, json={"domain": "telecom", "message": "hi\u0000there"}, says="U+0000"
    ),
    "escape char in chat": case(
        "POST", CHAT, json={"messages": [{"role": "user", "content": "a\u001b[31m"}]}, says="U+001B"
    ),
    "bell in history": case(
        "POST",
        REPLY,
        json={"domain": "telecom", "message": "hi", "history": [{"role": "user", "content": "\u0007"}]},
    ),
    "template syntax is data": case(
        "POST",
        REPLY,
        json={"domain": "telecom", "stream": False, "message": "{{ 7*7 }} {% for x in range(9) %}"},
        expect=200,
    ),
    "unknown reply field": case(
        "POST", REPLY, json={"domain": "telecom", "message": "hi", "colour": "red"}, says="colour"
    ),
    "unknown chat field": case(
        "POST", CHAT, json={"messages": OK_MSG, "frobnicate": True}, says="frobnicate"
    ),
    "tools": case("POST", CHAT, json={"messages": OK_MSG, "tools": [{"type": "function"}]}, says="tools"),
    # sizes
    "oversized body": case(
        "POST", CHAT, raw=b'{"messages": "' + b"x" * 70_000 + b'"}', headers=JSON, expect=413
    ),
    "oversized message": case("POST", REPLY, json={"domain": "telecom", "message": "x" * 5000}, says="limit"),
    "oversized history": case(
        "POST",
        REPLY,
        json={"domain": "telecom", "message": "hi", "history": [{"role": "user", "content": "x"}] * 60},
        says="history",
    ),
    "too many chat messages": case("POST", CHAT, json={"messages": OK_MSG * 300}, says="messages"),
    "too many context keys": case(
        "POST", REPLY, json={"domain": "telecom", "message": "hi", "context": {f"k{i}": i for i in range(30)}}
    ),
    "bad timeout header": case("POST", CHAT, json={"messages": OK_MSG}, headers={"x-csreply-timeout": "nan"}),
    "unknown variant": case(
        "POST",
        REPLY,
        json={"domain": "telecom", "message": "How much data do I have left?"},
        headers={"x-csreply-variant": "nope"},
        says="variant",
    ),
    # content types
    "form encoded": case(
        "POST", CHAT, raw=b"messages=hi", headers={"content-type": "application/x-www-form-urlencoded"}
    ),
    "text plain": case("POST", REPLY, raw=b"hello", headers={"content-type": "text/plain"}),
    "multipart": case(
        "POST", CHAT, raw=b"--x\r\n\r\n--x--", headers={"content-type": "multipart/form-data; boundary=x"}
    ),
    # methods and paths
    "GET chat": case("GET", CHAT, expect=405),
    "PUT reply": case("PUT", REPLY, expect=405),
    "DELETE models": case("DELETE", "/v1/models", expect=405),
    "POST health": case("POST", "/health", expect=405),
    "unknown path": case("GET", "/v2/everything", expect=404),
    "unknown session": case("GET", "/v1/sessions/nope", expect=404),
}


@pytest.fixture
async def client(tmp_path) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(
        cache_dir=tmp_path,
        server=ServerSettings(max_body_bytes=65_536),
        generator=GeneratorSettings(max_concurrent_requests=8, warmup=False),
        admission=AdmissionSettings(max_queue=8),
    )
    app = create_app(settings, generator=FastTestEngine())
    async with lifespan(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
            yield c


def test_the_corpus_is_large_enough() -> None:
    assert len(CASES) >= 60


@pytest.mark.parametrize("name", list(CASES))
async def test_bad_input_gets_a_clear_4xx(client: httpx.AsyncClient, name: str) -> None:
    method, path, body, raw, headers, expect, says = CASES[name]
    if raw is not None:
        response = await client.request(method, path, content=raw, headers=headers)
    else:
        response = await client.request(method, path, json=body, headers=headers)
    assert response.status_code < 500, (name, response.status_code, response.text[:300])
    assert response.status_code in expect, (name, response.status_code, response.text[:300])
    if response.status_code >= 400:
        error = response.json()["error"]
        assert error["type"] and len(error["message"]) > 5
        assert "Traceback" not in error["message"]
        if says:
            assert says in error["message"] or says == error["param"], (name, error)
