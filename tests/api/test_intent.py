"""POST /v1/intent against the real default router (ONNX Runtime on the shipped build)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from serve.app import create_app
from serve.config import GeneratorSettings, RouterSettings, Settings
from tests.conftest import default_router_dir, lifespan
from tests.fakes import ScriptedFakeGenerator

# These tests read the trained default router's decisions on real phrasings (a model build).
pytestmark = pytest.mark.trained_router

URL = "/v1/intent"


def router_settings(tmp_path: Path, **router: object) -> Settings:
    return Settings(
        cache_dir=tmp_path,
        generator=GeneratorSettings(warmup=False),
        router=RouterSettings(router_dir=default_router_dir(), **router),
    )


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(router_settings(tmp_path), generator=ScriptedFakeGenerator())
    async with lifespan(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
            yield c


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("I want to check how much data I have left", "balance_usage_inquiry"),
        ("我的快递到哪了？三天了还没动", "order_tracking"),
        ("转人工", "contact_human"),
    ],
)
async def test_single_text_gets_label_confidence_ranking_backend_latency(
    client, text: str, label: str
) -> None:
    response = await client.post(URL, json={"text": text, "top_k": 3})
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["label"] == label
    assert 0 < data["confidence"] <= 1 and len(data["ranking"]) == 3
    assert data["ranking"][0] == {"label": label, "confidence": data["confidence"]}
    assert (
        data["ranking"][0]["confidence"]
        >= data["ranking"][1]["confidence"]
        >= data["ranking"][2]["confidence"]
    )
    assert data["backend"].startswith("onnx-") and data["latency_ms"] > 0
    assert data["lang"] == ("zh" if any("\u4e00" <= c <= "\u9fff" for c in text) else "en")
    assert data["truncated"] is False


async def test_batch_keeps_order(client: httpx.AsyncClient) -> None:
    texts = ["refund please", "套餐怎么升级", "hello there", "where is my parcel"]
    response = await client.post(URL, json={"texts": texts})
    results = response.json()["results"]
    assert [r["label"] for r in results] == ["refund", "plan_change", "greeting_chitchat", "order_tracking"]


async def test_100kb_text_is_truncated_and_says_so(client: httpx.AsyncClient) -> None:
    text = "my internet connection keeps dropping every evening " * 2000
    assert len(text) > 100_000
    data = (await client.post(URL, json={"text": text})).json()
    assert data["truncated"] is True and data["tokens"] == 128
    assert data["label"] == "network_fault"


async def test_binary_garbage_gets_a_defined_result(client: httpx.AsyncClient) -> None:
    garbage = os.urandom(300).decode("latin-1")
    data = (await client.post(URL, json={"text": garbage})).json()
    assert data["label"] in [r["label"] for r in data["ranking"]]
    assert 0 <= data["confidence"] <= 1


@pytest.mark.parametrize(
    ("payload", "param"),
    [
        ({"text": ""}, "text"),
        ({"text": "   \n"}, "text"),
        ({"texts": []}, "texts"),
        ({"texts": ["ok", ""]}, "texts[1]"),
        ({"text": 42}, "text"),
        ({"texts": "abc"}, "texts"),
        ({"text": "a", "texts": ["b"]}, None),
        ({}, None),
        ({"text": "a", "top_k": 0}, "top_k"),
        ({"text": "a", "verbose": True}, "verbose"),
    ],
)
async def test_bad_input_is_a_400_naming_the_field(client, payload: dict, param: str | None) -> None:
    response = await client.post(URL, json=payload)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["param"] == param


async def test_non_utf8_body_is_a_400(client: httpx.AsyncClient) -> None:
    response = await client.post(
        URL, content=b'{"text": "\xff\xfe"}', headers={"content-type": "application/json"}
    )
    assert response.status_code == 400


async def test_too_many_texts_is_a_400(client: httpx.AsyncClient) -> None:
    response = await client.post(URL, json={"texts": ["hi"] * 65})
    assert response.status_code == 400 and response.json()["error"]["param"] == "texts"


async def test_tensorrt_config_falls_back_to_onnx_and_ready_says_so(tmp_path: Path) -> None:
    app = create_app(router_settings(tmp_path, backend="tensorrt"), generator=ScriptedFakeGenerator())
    async with lifespan(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
            data = (await c.post(URL, json={"text": "where is my parcel"})).json()
            assert data["backend"].startswith("onnx-")
            ready = (await c.get("/ready")).json()
    assert any("tensorrt unavailable" in note for note in ready["degraded"])
