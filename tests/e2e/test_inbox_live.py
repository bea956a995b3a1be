"""The feedback inbox in the real server process (uvicorn, the real default router, SIGTERM drain) around the
test-only FastTestEngine: a conversation full of personal data that gets clarifying questions and handoffs
leaves rows in the inbox file, written by the shutdown drain at the latest, and none of that data."""

from __future__ import annotations

import json

import httpx

from tests.conftest import default_router_dir
from tests.e2e.conftest import stop_server
from tests.e2e.fast_server import start_fast_server

# What the real router decides for each message is not asserted, except where nothing else is plausible
# (an explicit request for a person): every message is recorded (low_confidence below 1.0 takes the rest),
# so the test holds for any router build and checks what it is for: no personal data reaches the inbox.
CONVERSATION = [
    "the same again, 11010519491231002X",
    "and also li.wei@example.com",
    "I want to talk to a real person, call me on +86 138 1234 5678",
    "转人工，我的手机号13812345678",
    "that one, 4111 1111 1111 1111",
]
PII = ["11010519491231002X", "li.wei@example.com", "+86 138 1234 5678", "13812345678", "4111 1111 1111 1111"]
DIGIT_RUNS = ["11010519491231002", "13812345678", "4111111111111111"]


def test_a_pii_conversation_leaves_redacted_rows_and_the_drain_writes_them(tmp_path) -> None:
    default_router_dir()  # fails with the fix when `csreply prepare` has not built the router
    inbox = tmp_path / "inbox" / "router.jsonl"
    server = start_fast_server(
        tmp_path / "server.log",
        env={
            "CSREPLY_FEEDBACK_INBOX__ENABLED": "true",
            "CSREPLY_FEEDBACK_INBOX__PATH": str(inbox),
            "CSREPLY_FEEDBACK_INBOX__RECORD": '["uncertain", "handoff", "out_of_scope", "low_confidence"]',
            "CSREPLY_FEEDBACK_INBOX__LOW_CONFIDENCE_BELOW": "1.0",
        },
    )
    try:
        routes = []
        with httpx.Client(base_url=server.url, timeout=30) as client:
            for message in CONVERSATION:
                response = client.post(
                    "/v1/reply",
                    json={
                        "domain": "telecom",
                        "message": message,
                        "session_id": "pii-conversation-7",
                        "stream": False,
                    },
                )
                assert response.status_code == 200, response.text
                routes.append((response.json()["intent"]["route"], response.json()["intent"]["label"]))
            metrics = client.get("/metrics").text
    finally:
        stop_server(server)
    assert server.process.returncode == 0
    assert routes[2] == ("handoff", "contact_human"), routes
    assert "csreply_inbox_dropped_total" in metrics

    raw = inbox.read_text(encoding="utf-8")
    rows = [json.loads(line) for line in raw.splitlines()]
    assert [r["route"] for r in rows] == [r for r, _ in routes]
    assert rows[2]["reason"] == "handoff" and rows[2]["handoff_reason"] == "customer_requested_human"
    assert [r["turn"] for r in rows] == [1, 2, 3, 4, 5]
    assert len({r["session"] for r in rows}) == 1 and "pii-conversation" not in raw
    assert rows[3]["lang"] == "zh" and rows[3]["text"] == "转人工，我的手机号<phone>"
    for value in PII:
        assert value not in raw
    for run in DIGIT_RUNS:
        assert run not in raw.replace(" ", "").replace("-", "")
    assert "written=5 dropped=0" in server.log.read_text()
