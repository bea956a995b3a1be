"""The lifespan settles every backend before wiring: a trtllm generator that cannot load (or cannot even be
imported) gives way to hf, and every endpoint, /v1/reply included, is then served by the fallback."""

from __future__ import annotations

import httpx

import serve.services
from serve.app import create_app
from serve.config import GeneratorSettings, Settings
from serve.generation.trtllm import from_preset
from tests.conftest import GENERATED_ONLY, REPO, lifespan, sse_json
from tests.fakes import ScriptedFakeGenerator

SMOKE = REPO / "build_configs/llm/smollm2-135m-instruct-any-fp16.yaml"
LLM_MESSAGE = {
    "domain": "telecom",
    "message": "How do I check how much mobile data I have left this month?",
    "stream": True,
}


async def test_reply_is_served_by_hf_after_a_failed_trtllm_load(tmp_path, monkeypatch) -> None:
    hf = ScriptedFakeGenerator(name="hf")
    monkeypatch.setattr(serve.services, "hf_generator", lambda settings: hf)
    broken = from_preset(SMOKE, tmp_path)  # no engine was built under tmp_path: load() fails
    settings = Settings(cache_dir=tmp_path, generator=GeneratorSettings(warmup=False), **GENERATED_ONLY)
    app = create_app(settings, generator=broken)
    async with lifespan(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            ready = (await client.get("/ready")).json()
            reply = await client.post("/v1/reply", json=LLM_MESSAGE)
            completion = await client.post(
                "/v1/chat/completions", json={"messages": [{"role": "user", "content": "hi there"}]}
            )
    assert ready["generator"]["backend"] == "hf"
    assert any("trtllm failed to load" in note for note in ready["degraded"])
    events, _ = sse_json(reply.text)
    assert reply.status_code == 200
    assert [e for e in events if "route" in e][0]["route"] == "llm"
    assert "error" not in events[-1] and events[-1]["finish_reason"] == "stop"
    assert completion.status_code == 200
    assert len(hf.started) == 2  # both endpoints reached the fallback engine, not the dead one


async def test_trtllm_that_cannot_be_imported_falls_back_and_ready_says_so(
    tmp_path, monkeypatch, caplog
) -> None:
    monkeypatch.setattr(serve.services, "hf_generator", lambda settings: ScriptedFakeGenerator(name="hf"))
    settings = Settings(
        cache_dir=tmp_path, generator=GeneratorSettings(backend="trtllm", trtllm_preset=SMOKE, warmup=False)
    )
    app = create_app(settings)
    async with lifespan(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            ready = (await client.get("/ready")).json()
    assert ready["generator"]["backend"] == "hf"
    assert ready["generators"][0]["name"] == "default"
    assert any("trtllm configured but TensorRT-LLM is not importable" in n for n in ready["degraded"])
    assert "generator.fallback" in caplog.text


async def test_handlers_answer_503_before_the_services_exist(settings) -> None:
    app = create_app(settings, generator=ScriptedFakeGenerator())  # lifespan not run: nothing is loaded
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        response = await client.post("/v1/intent", json={"text": "hello"})
    assert response.status_code == 503
    assert response.json()["error"]["type"] == "backend_unavailable"
