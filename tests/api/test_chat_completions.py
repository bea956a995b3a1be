"""SSE order and framing, error mapping and cancellation, through the ASGI app with a scripted fake engine."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from serve.api.openai import stream_frames
from serve.api.sse import DONE, terminated
from serve.completions import ChoiceEvent
from serve.errors import GenerationFailed
from serve.generation.base import GenerationChunk, GenerationRequest
from tests.conftest import sse_json
from tests.fakes import ScriptedFakeGenerator
from tests.waiting import until

URL = "/v1/chat/completions"


def body(**extra: object) -> dict[str, object]:
    return {"messages": [{"role": "user", "content": "where is my parcel today"}], **extra}


async def test_stream_sends_role_content_finish_then_done(client: httpx.AsyncClient) -> None:
    response = await client.post(URL, json=body(stream=True))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events, done = sse_json(response.text)
    assert done
    assert events[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    content = [e for e in events[1:-1]]
    assert all(e["choices"][0]["finish_reason"] is None for e in content)
    assert "".join(e["choices"][0]["delta"]["content"] for e in content) == "where is my parcel today"
    assert events[-1]["choices"][0]["finish_reason"] == "stop"
    assert "usage" not in events[-1]  # not asked for
    assert {e["object"] for e in events} == {"chat.completion.chunk"}
    assert len({e["id"] for e in events}) == 1


async def test_include_usage_sends_one_usage_chunk_with_empty_choices_before_done(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(URL, json=body(stream=True, stream_options={"include_usage": True}))
    events, done = sse_json(response.text)
    assert done
    assert all("usage" in e and e["usage"] is None for e in events[:-1])
    assert events[-1]["usage"] == {"prompt_tokens": 7, "completion_tokens": 5, "total_tokens": 12}
    assert events[-1]["choices"] == []
    assert events[-2]["choices"][0]["finish_reason"] == "stop"


async def test_non_streaming_reply_matches_streamed_text(client: httpx.AsyncClient) -> None:
    response = await client.post(URL, json=body())
    assert response.status_code == 200
    data = response.json()
    assert data["object"] == "chat.completion"
    assert data["choices"][0]["message"] == {"role": "assistant", "content": "where is my parcel today"}
    assert data["choices"][0]["finish_reason"] == "stop"
    assert data["usage"]["total_tokens"] == 12


async def test_n_choices_each_get_their_own_stream_and_seed(
    client: httpx.AsyncClient, fake_generator: ScriptedFakeGenerator
) -> None:
    response = await client.post(
        URL, json=body(n=3, seed=10, stream=True, stream_options={"include_usage": True})
    )
    events, done = sse_json(response.text)
    assert done
    finishes = [e for e in events if e["choices"] and e["choices"][0]["finish_reason"]]
    assert sorted(e["choices"][0]["index"] for e in finishes) == [0, 1, 2]
    assert events[-1]["usage"]["completion_tokens"] == 15
    assert sorted(r.seed if r.seed is not None else -1 for r in fake_generator.requests) == [10, 11, 12]


async def test_sampling_parameters_reach_the_engine(
    client: httpx.AsyncClient, fake_generator: ScriptedFakeGenerator
) -> None:
    await client.post(URL, json=body(temperature=0.3, top_p=0.8, stop=["END"], max_tokens=9, seed=4))
    request = fake_generator.requests[-1]
    assert (request.temperature, request.top_p, request.stop, request.max_new_tokens, request.seed) == (
        0.3,
        0.8,
        ("END",),
        9,
        4,
    )


@pytest.mark.parametrize(
    ("payload", "param", "needle"),
    [
        ({"messages": []}, "messages", "at least 1"),
        ({"messages": "hello"}, "messages", "list"),
        ({"messages": [{"role": "user", "content": "   "}]}, None, "messages[0].content is empty"),
        ({"messages": [{"role": "wizard", "content": "hi"}]}, "messages[0].role", "role"),
        ({"messages": [{"role": "user"}]}, "messages[0].content", "required"),
        ({"messages": [{"role": "user", "content": 42}]}, "messages[0].content", "string"),
        (body(max_tokens=0), "max_tokens", "greater than or equal to 1"),
        (body(max_tokens=-5), "max_tokens", "greater than or equal to 1"),
        (body(max_tokens=10**9), "max_tokens", "at most"),
        (body(max_tokens="lots"), "max_tokens", "integer"),
        (body(temperature=5), "temperature", "less than or equal to 2"),
        (body(top_p=0), "top_p", "greater than 0"),
        (body(n=9), "n", "less than or equal to 4"),
        (body(stop=["a", "b", "c", "d", "e"]), "stop", "at most 4"),
        (body(stream="yes please"), "stream", "boolean"),
        (body(model="gpt-4o"), "model", "not served"),
    ],
)
async def test_bad_input_gets_400_naming_the_field(
    client: httpx.AsyncClient, payload: dict[str, object], param: str | None, needle: str
) -> None:
    response = await client.post(URL, json=payload)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param
    assert needle in error["message"]


@pytest.mark.parametrize("raw", [b'{"messages": [', b"\xff\xfe\xfa not json", b"", b"[1, 2]"])
async def test_malformed_or_non_utf8_bodies_get_400(client: httpx.AsyncClient, raw: bytes) -> None:
    response = await client.post(URL, content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert response.json()["error"]["type"] == "invalid_request_error"


async def test_oversized_body_gets_413(client: httpx.AsyncClient) -> None:
    response = await client.post(URL, json=body(padding="x" * 2_000_000))
    assert response.status_code == 413
    assert "limit" in response.json()["error"]["message"]


async def test_error_before_first_token_is_an_http_error(
    fake_generator: ScriptedFakeGenerator, client
) -> None:
    def fail(request: GenerationRequest) -> list:
        return [GenerationFailed("engine exploded")]

    fake_generator.script = fail
    response = await client.post(URL, json=body(stream=True))
    # The engine pool found no member that could start the request: 503, with the engine's own reason.
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["type"] == "backend_unavailable" and "engine exploded" in error["message"]


async def test_error_mid_stream_ends_with_error_frame_and_done(fake_generator, client) -> None:
    def fail_late(request: GenerationRequest) -> list:
        return [GenerationChunk("partial "), GenerationFailed("engine died mid-stream")]

    fake_generator.script = fail_late
    response = await client.post(URL, json=body(stream=True))
    events, done = sse_json(response.text)
    assert done
    assert events[-1]["error"]["type"] == "generation_failed"
    assert events[1]["choices"][0]["delta"]["content"] == "partial "


async def test_overload_returns_429_with_retry_after(settings, fake_generator, client) -> None:
    fake_generator.gate = asyncio.Event()  # hold every stream open after its first chunk
    limit = settings.generator.max_concurrent_requests

    async def open_stream() -> httpx.Response:
        return await client.post(URL, json=body(stream=True))

    holders = [asyncio.create_task(open_stream()) for _ in range(limit)]
    await until(lambda: len(fake_generator.started) >= limit, every=0)
    response = await client.post(URL, json=body())
    assert response.status_code == 429
    assert response.headers["retry-after"] == "1"
    assert response.json()["error"]["type"] == "overloaded"
    fake_generator.gate.set()
    assert all(r.status_code == 200 for r in await asyncio.gather(*holders))
    assert (await client.post(URL, json=body())).status_code == 200  # slots were released


async def test_closing_the_stream_aborts_every_engine_request(fake_generator, client) -> None:
    fake_generator.gate = asyncio.Event()
    runtime = client._transport.app.state.services  # type: ignore[attr-defined]
    from serve.api.openai import to_params
    from serve.api.schemas import ChatCompletionRequest

    params = to_params(ChatCompletionRequest.model_validate(body(n=2)))
    events = await runtime.completions.open(params)
    frames = terminated(
        stream_frames(events, params.request_id, 0, "fake-model", 2, False), events.aclose, trailer=DONE
    )
    await anext(frames)
    await anext(frames)
    await frames.aclose()  # what sse-starlette does when the client goes away
    assert sorted(fake_generator.aborted) == sorted(fake_generator.started)
    assert len(fake_generator.aborted) == 2
    assert runtime.admission.in_flight == 0


async def test_health_ready_and_models(
    client: httpx.AsyncClient, fake_generator: ScriptedFakeGenerator
) -> None:
    assert (await client.get("/health")).json() == {"status": "ok"}
    ready = await client.get("/ready")
    assert ready.status_code == 200
    assert ready.json()["generator"]["backend"] == "fake"
    models = (await client.get("/v1/models")).json()
    assert [m["id"] for m in models["data"]] == ["fake-model"]
    fake_generator.healthy = False
    ready = await client.get("/ready")
    assert ready.status_code == 503
    assert "unhealthy" in ready.json()["error"]


async def test_unknown_route_is_a_json_404(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/nope")
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "not_found"


async def test_stream_frames_handle_an_event_source_directly() -> None:
    async def events():
        yield ChoiceEvent(0, "你好", None)
        yield ChoiceEvent(0, "", "length", 3, 1)

    async def nothing() -> None:
        return None

    frames = [
        f async for f in terminated(stream_frames(events(), "id", 0, "m", 1, True), nothing, trailer=DONE)
    ]
    assert frames[-1] == b"data: [DONE]\n\n"
    events_out, done = sse_json(b"".join(frames).decode())
    assert done
    assert events_out[-2]["choices"][0]["finish_reason"] == "length" and events_out[-2]["usage"] is None
    assert events_out[-1]["choices"] == []
    assert events_out[-1]["usage"] == {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    assert events_out[1]["choices"][0]["delta"] == {"content": "你好"}


async def test_a_stream_closed_before_its_first_frame_still_aborts_and_frees_its_slot(
    fake_generator, client
) -> None:
    fake_generator.gate = asyncio.Event()
    runtime = client._transport.app.state.services  # type: ignore[attr-defined]
    from serve.api.openai import to_params
    from serve.api.schemas import ChatCompletionRequest

    events = await runtime.completions.open(to_params(ChatCompletionRequest.model_validate(body())))
    assert runtime.admission.in_flight == 1
    await events.aclose()
    await events.aclose()  # idempotent
    assert fake_generator.aborted == fake_generator.started
    assert runtime.admission.in_flight == 0


async def test_continue_final_message_hands_the_assistant_text_to_the_engine_as_a_prefix(
    client: httpx.AsyncClient, fake_generator: ScriptedFakeGenerator
) -> None:
    """vLLM's extension, which the openai pool backend uses with `prefill: true`: the last assistant message
    is the start of the reply; the engine continues it and the stream carries only what follows."""
    lead = "Your order A1 shows as shipped."
    messages = [
        {"role": "user", "content": "where is my parcel today"},
        {"role": "assistant", "content": lead},
    ]
    response = await client.post(
        URL, json={"messages": messages, "continue_final_message": True, "add_generation_prompt": False}
    )
    assert response.status_code == 200, response.text
    sent = fake_generator.requests[-1]
    assert sent.prefix == lead and [m.role for m in sent.messages] == ["user"]
    assert lead not in response.json()["choices"][0]["message"]["content"]


@pytest.mark.parametrize(
    "extra,expected",
    [
        ({"continue_final_message": True}, "add_generation_prompt false"),
        ({"continue_final_message": True, "add_generation_prompt": False}, "ends with an assistant message"),
        ({"add_generation_prompt": False}, "only supported with continue_final_message"),
    ],
)
async def test_continue_final_message_misuse_is_a_400_that_says_why(
    client: httpx.AsyncClient, extra: dict, expected: str
) -> None:
    response = await client.post(URL, json=body(**extra))
    assert response.status_code == 400 and expected in response.text, response.text
