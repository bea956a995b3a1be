"""Issue 11 in process: metrics (names match docs, dashboard and alert rules), queue and deadlines, API keys,
CORS, unsupported OpenAI fields, router failure, offline /docs, PII-free logs."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import AsyncIterator

import httpx
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from serve.app import create_app
from serve.config import AdmissionSettings, GeneratorSettings, ServerSettings, Settings
from serve.errors import BackendUnavailable
from serve.logsetup import JsonFormatter
from serve.router.base import IntentResult
from tests.conftest import GENERATED_ONLY, REPO, lifespan, parse_sse, sse_json
from tests.fast_engine import FastTestEngine
from tests.waiting import until

CHAT = "/v1/chat/completions"
DOCS = REPO / "docs"
# Exported only where a GPU and its driver are present.
GPU_ONLY = {"csreply_gpu_utilization_perc", "csreply_gpu_memory_used_bytes", "csreply_gpu_memory_total_bytes"}


def make_settings(tmp_path, **server: object) -> Settings:
    return Settings(
        cache_dir=tmp_path,
        generator=GeneratorSettings(max_concurrent_requests=4, warmup=False),
        admission=AdmissionSettings(max_queue=2, max_queue_wait_s=5),
        server=ServerSettings(**server),
        **GENERATED_ONLY,
    )  # type: ignore[arg-type]


async def open_client(
    settings: Settings, engine: object | None = None, router: object | None = None
) -> AsyncIterator[tuple[httpx.AsyncClient, FastTestEngine]]:
    engine = engine or FastTestEngine()
    app = create_app(settings, generator=engine, router=router)  # type: ignore[arg-type]
    async with lifespan(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            yield client, engine  # type: ignore[misc]


@pytest.fixture
async def fast(tmp_path) -> AsyncIterator[tuple[httpx.AsyncClient, FastTestEngine]]:
    async for pair in open_client(make_settings(tmp_path)):
        yield pair


def chat(text: str = "hello there", **extra: object) -> dict[str, object]:
    return {"messages": [{"role": "user", "content": text}], **extra}


def exported_names(text: str) -> set[str]:
    names = set()
    for family in text_string_to_metric_families(text):
        suffixes = {"histogram": ("_bucket", "_sum", "_count"), "counter": ("_total",)}.get(
            family.type, ("",)
        )
        names |= {family.name, *(family.name + s for s in suffixes)}
        names |= {s.name for s in family.samples}
    return names


# ----------------------------------------------------------------------------------------------- metrics
async def test_metrics_after_traffic_move_and_match_the_docs_dashboard_and_alerts(fast) -> None:
    client, _ = fast
    before = (await client.get("/metrics")).text
    for _ in range(3):
        assert (await client.post(CHAT, json=chat(stream=True))).status_code == 200
    await client.post("/v1/reply", json={"domain": "telecom", "message": "How much data do I have left?"})
    response = await client.get("/metrics")
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text

    def sample(name: str, source: str, **labels: str) -> float:
        for family in text_string_to_metric_families(source):
            for s in family.samples:
                if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                    return s.value
        return 0.0

    for histogram, count in (
        ("csreply_time_to_first_token_seconds", 3),
        ("csreply_e2e_request_latency_seconds", 3),
        ("csreply_inter_token_latency_seconds", 3 * 11),
    ):  # 12 text chunks: 11 gaps
        assert (
            sample(f"{histogram}_count", text, endpoint="chat")
            == count
            > sample(f"{histogram}_count", before)
        )
        assert sample(f"{histogram}_sum", text, endpoint="chat") > 0
    assert sample("csreply_router_latency_seconds_count", text) >= 1
    assert sample("csreply_requests_total", text, endpoint="chat", status="ok") == 3
    assert sample("csreply_generation_tokens_total", text, endpoint="chat") == 3 * 12
    assert sample("csreply_kv_cache_blocks_total", text, variant="default") == 512

    exported = exported_names(text)
    documented = set(re.findall(r"^\| `(csreply_[a-z0-9_]+)`", (DOCS / "metrics.md").read_text(), re.M))
    assert documented - GPU_ONLY <= exported, documented - exported
    exported_bases = {
        n
        for n in exported
        if not n.endswith(("_bucket", "_sum", "_count", "_created")) and n + "_total" not in exported
    }
    assert exported_bases <= documented, exported_bases - documented

    dashboard = json.loads((DOCS / "monitoring/grafana-dashboard.json").read_text())
    dashboard_exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    rules = yaml.safe_load((DOCS / "monitoring/alerts.yml").read_text())
    rule_exprs = [r["expr"] for g in rules["groups"] for r in g["rules"]]
    used = {m for e in dashboard_exprs + rule_exprs for m in re.findall(r"csreply_[a-z0-9_]+", e)}
    assert len(rule_exprs) >= 4 and len(dashboard_exprs) >= 10
    assert used - GPU_ONLY <= exported, used - exported


async def test_two_apps_in_one_process_keep_separate_registries(tmp_path) -> None:
    async for client_a, _ in open_client(make_settings(tmp_path)):
        async for client_b, _ in open_client(make_settings(tmp_path)):
            await client_a.post(CHAT, json=chat())
            a, b = (await client_a.get("/metrics")).text, (await client_b.get("/metrics")).text
    assert 'csreply_requests_total{endpoint="chat",intent="-",route="-",status="ok",variant="-"} 1.0' in a
    assert 'status="ok"' not in b


# ------------------------------------------------------------------------------ admission and deadlines
async def test_queue_is_fifo_then_429_with_retry_after(fast) -> None:
    client, engine = fast
    streams = [
        asyncio.create_task(
            client.post(CHAT, json=chat("[[hang]]", stream=True), headers={"x-csreply-timeout": "2"})
        )
        for _ in range(4)
    ]
    await until(lambda: len(engine.running) >= 4)
    queued = [asyncio.create_task(client.post(CHAT, json=chat("q"))) for _ in range(2)]

    async def two_waiting() -> bool:
        return bool((await client.get("/ready")).json()["waiting"] >= 2)

    await until(two_waiting)
    refused = await client.post(CHAT, json=chat("one too many"))
    assert refused.status_code == 429 and refused.headers["retry-after"] == "1"
    assert "queued" in refused.json()["error"]["message"]
    done = await asyncio.gather(*queued)  # served once the hung streams hit their deadline
    assert [r.status_code for r in done] == [200, 200]
    for r in await asyncio.gather(*streams):
        assert json.loads(parse_sse(r.text)[-2])["choices"][0]["finish_reason"] == "timeout"
    metrics = (await client.get("/metrics")).text
    assert 'csreply_request_rejections_total{endpoint="chat",reason="queue_full"} 1.0' in metrics
    assert 'csreply_request_timeouts_total{endpoint="chat"} 4.0' in metrics


async def test_deadline_header_is_validated_and_capped(fast) -> None:
    client, _ = fast
    bad = await client.post(CHAT, json=chat(), headers={"x-csreply-timeout": "soon"})
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "x-csreply-timeout"
    assert (await client.post(CHAT, json=chat(), headers={"x-csreply-timeout": "-1"})).status_code == 400
    non_stream = await client.post(CHAT, json=chat("[[hang]]"), headers={"x-csreply-timeout": "0.2"})
    assert non_stream.json()["choices"][0]["finish_reason"] == "timeout"


async def test_reply_deadline_ends_with_a_done_event_saying_timeout(tmp_path) -> None:
    class LlmRouter:
        name, labels = "stub-router", ("billing_inquiry",)

        async def classify(self, texts, top_k=5):
            return [
                IntentResult("billing_inquiry", 0.99, (), False, None, "stub-router", "en") for _ in texts
            ]

        async def check_health(self) -> None:
            return None

        async def aclose(self) -> None:
            return None

    async for client, engine in open_client(make_settings(tmp_path), router=LlmRouter()):
        r = await client.post(
            "/v1/reply",
            json={"domain": "telecom", "message": "[[hang]] my bill is wrong"},
            headers={"x-csreply-timeout": "0.3"},
        )
        events, _ = sse_json(r.text)
        assert events[0]["route"] == "llm"
        assert events[-1]["finish_reason"] == "timeout"
        assert not engine.running and engine.aborted


# ------------------------------------------------------------------------------------------ security
async def test_api_keys_guard_everything_but_the_public_paths(tmp_path) -> None:
    settings = make_settings(tmp_path, api_keys=["key-one", "key-two"])
    async for client, _ in open_client(settings):
        missing = await client.post(CHAT, json=chat())
        assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
        assert missing.json()["error"]["type"] == "authentication_error"
        wrong = await client.post(CHAT, json=chat(), headers={"authorization": "Bearer key-three"})
        assert wrong.status_code == 401
        for key in ("key-one", "key-two"):
            ok = await client.post(CHAT, json=chat(), headers={"authorization": f"Bearer {key}"})
            assert ok.status_code == 200
        for path in ("/health", "/ready", "/metrics"):
            assert (await client.get(path)).status_code == 200
        assert (await client.get("/v1/models")).status_code == 401


async def test_cors_preflight_is_answered_for_allowed_origins_only(tmp_path) -> None:
    settings = make_settings(tmp_path, cors_origins=["https://shop.example"], api_keys=["k"])
    preflight = {
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
    }
    async for client, _ in open_client(settings):
        ok = await client.options(CHAT, headers={"origin": "https://shop.example", **preflight})
        assert ok.status_code == 200
        assert ok.headers["access-control-allow-origin"] == "https://shop.example"
        other = await client.options(CHAT, headers={"origin": "https://evil.example", **preflight})
        assert "access-control-allow-origin" not in other.headers
        refused = await client.post(CHAT, json=chat(), headers={"origin": "https://shop.example"})
        assert refused.status_code == 401  # errors carry CORS headers, so the browser can read them
        assert refused.headers["access-control-allow-origin"] == "https://shop.example"


async def test_body_limit_applies_without_content_length_too(tmp_path) -> None:
    async for client, _ in open_client(make_settings(tmp_path, max_body_bytes=2048)):

        async def chunks():
            for _ in range(10):
                yield b" " * 1000

        r = await client.post(CHAT, content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413


class FormattingHandler(logging.Handler):
    """Formats at emit time, in the request's context (as the server's stderr handler does)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(JsonFormatter())
        self.lines: list[tuple[int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((record.levelno, self.format(record)))


async def test_logs_of_a_pii_conversation_contain_none_of_it(fast) -> None:
    client, _ = fast
    pii = [
        "13800138000",
        "+86 139-1234-5678",
        "li.wei@example.com",
        "11010519491231002X",
        "6222021234567890123",
        "4111 1111 1111 1111",
        "(555) 123-4567",
    ]
    secret_sentence = "my cat Mochi likes the blue sofa"
    handler = FormattingHandler()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    messages = [
        f"我的手机号{pii[0]}，{secret_sentence}",
        f"call me on {pii[1]} or mail {pii[2]}",
        f"身份证{pii[3]}，卡号{pii[4]}",
        f"card {pii[5]}, office {pii[6]}",
    ]
    for text in messages:
        await client.post(CHAT, json=chat(text, stream=True))
        await client.post("/v1/reply", json={"domain": "ecommerce", "message": text, "stream": False})
        logging.getLogger("serve.test").warning("customer said: %s", text)  # as a careless log line would
    await client.post(CHAT, json=chat(f"[[raise]] {pii[0]}", stream=True))
    root.removeHandler(handler)
    root.setLevel(old_level)
    assert any('"request_id"' in line for _, line in handler.lines)
    logged = "\n".join(line for _, line in handler.lines)
    for value in pii:
        assert value not in logged
        assert value.replace(" ", "").replace("-", "") not in logged.replace(" ", "")
    info = "\n".join(line for level, line in handler.lines if level <= logging.INFO)
    assert "Mochi" not in info


# --------------------------------------------------------------------------------------------- edges
async def test_unsupported_openai_fields_are_400s_naming_them(fast) -> None:
    client, _ = fast
    for field, value in [
        ("tools", [{"type": "function", "function": {"name": "f"}}]),
        ("logprobs", True),
        ("response_format", {"type": "json_object"}),
        ("tool_choice", "auto"),
        ("top_logprobs", 2),
        ("functions", [{"name": "f"}]),
        ("logit_bias", {"50256": -100}),
    ]:
        r = await client.post(CHAT, json={**chat(), field: value})
        assert r.status_code == 400, field
        assert field in r.json()["error"]["message"]
    both = await client.post(CHAT, json=chat(tools=[{"type": "function"}], logprobs=True))
    assert "logprobs, tools" in both.json()["error"]["message"]
    harmless = await client.post(
        CHAT,
        json=chat(
            user="u-1",
            metadata={"k": "v"},
            logprobs=False,
            response_format={"type": "text"},
            presence_penalty=0,
        ),
    )
    assert harmless.status_code == 200
    fixed = await client.post(CHAT, json=chat(ignore_eos=True))  # the benchmark extension is implemented
    assert fixed.status_code == 200


async def test_message_limit_is_the_configured_one_for_both_endpoints(tmp_path) -> None:
    settings = make_settings(tmp_path).model_copy(
        update={"reply": make_settings(tmp_path).reply.model_copy(update={"max_message_chars": 50})}
    )
    async for client, _ in open_client(settings):
        long = "x" * 51
        r = await client.post(CHAT, json=chat(long))
        assert r.status_code == 400 and r.json()["error"]["param"] == "messages[0].content"
        r = await client.post("/v1/reply", json={"domain": "telecom", "message": long})
        assert r.status_code == 400 and r.json()["error"]["param"] == "message"
        r = await client.post(
            "/v1/reply",
            json={"domain": "telecom", "message": "hi", "history": [{"role": "user", "content": long}]},
        )
        assert r.status_code == 400 and r.json()["error"]["param"] == "history[0].content"
        assert (await client.post(CHAT, json=chat("x" * 50))).status_code == 200


async def test_router_failure_is_a_typed_503_and_ready_says_so(tmp_path) -> None:
    class BrokenRouter:
        name, labels = "broken-router", ("billing_inquiry",)

        async def classify(self, texts, top_k=5):
            raise RuntimeError("onnx session died")

        async def check_health(self) -> None:
            raise BackendUnavailable("onnx session died")

        async def aclose(self) -> None:
            return None

    app = create_app(make_settings(tmp_path), generator=FastTestEngine())
    async with lifespan(app):
        app.state.services.router.chain[:] = [BrokenRouter()]  # the router breaks while serving
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            r = await client.post("/v1/reply", json={"domain": "telecom", "message": "hello"})
            assert r.status_code == 503
            assert r.json()["error"]["type"] == "backend_unavailable"
            assert "router" in r.json()["error"]["message"]
            assert (await client.post("/v1/intent", json={"text": "hello"})).status_code == 503
            ready = await client.get("/ready")
            assert ready.status_code == 503 and ready.json()["router"]["healthy"] is False


async def test_docs_work_offline_and_describe_the_status_codes(fast) -> None:
    client, _ = fast
    page = (await client.get("/docs")).text
    assert "/docs-assets/swagger-ui-bundle.js" in page and "cdn" not in page.lower()
    asset = await client.get("/docs-assets/swagger-ui-bundle.js")
    assert asset.status_code == 200 and len(asset.content) > 100_000
    schema = (await client.get("/openapi.json")).json()
    for path in ("/v1/chat/completions", "/v1/reply"):
        codes = set(schema["paths"][path]["post"]["responses"])
        assert {"200", "400", "413", "429", "503", "504"} <= codes, (path, codes)
    assert "/metrics" in schema["paths"]


async def test_requests_get_a_request_id_and_keep_a_valid_given_one(fast) -> None:
    client, _ = fast
    given = await client.get("/health", headers={"x-request-id": "abc-123"})
    assert given.headers["x-request-id"] == "abc-123"
    junk = await client.get("/health", headers={"x-request-id": "bad id with spaces"})
    assert re.fullmatch(r"[0-9a-f]{16}", junk.headers["x-request-id"])
