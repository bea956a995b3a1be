"""The feedback inbox at unit level: which messages it keeps, redaction, a full queue, the file rotation, the
Redis list (a real redis-server) and its cap, a failing sink, the CLI (grouping, export) and the labelling
loop back into the router build's extra_data loader."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from checkpoints.router_config import load_router_config
from checkpoints.router_data import load_extra, load_training_data
from serve.cli import main
from serve.config import FeedbackInboxSettings, Settings
from serve.generation.base import ChatMessage
from serve.inbox import FeedbackInbox, FileSink, RedisSink, build_inbox, reason_for
from serve.metrics import Metrics
from serve.reply_events import RouteDecision
from serve.router.base import IntentResult, Ranked
from serve.sessions import Session
from tests.conftest import REDIS_URL, redis_available

CLARIFY = RouteDecision("clarify", "uncertain_intent:low_confidence")
HANDOFF = RouteDecision("handoff", "customer_requested_human")
LLM = RouteDecision("llm", "generated_reply")


def intent(
    label: str, confidence: float, uncertain: bool = False, second: str = "billing_inquiry"
) -> IntentResult:
    ranking = (
        Ranked(label, confidence),
        Ranked(second, round(1 - confidence, 6) / 2),
        Ranked("out_of_scope", 0.01),
    )
    return IntentResult(
        label, confidence, ranking, uncertain, "low_confidence" if uncertain else None, "onnx", "en"
    )


def metric(metrics: Metrics, name: str, **labels: str) -> float:
    for family in text_string_to_metric_families(metrics.render().decode()):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return float(sample.value)
    return 0.0


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# ------------------------------------------------------------------------------------------- what is kept
@pytest.mark.parametrize(
    "result,decision,record,expected",
    [
        (intent("billing_dispute", 0.39, uncertain=True), CLARIFY, ["uncertain", "handoff"], "uncertain"),
        (intent("contact_human", 0.99), HANDOFF, ["uncertain", "handoff"], "handoff"),
        (
            intent("billing_dispute", 0.39, uncertain=True),
            RouteDecision("handoff", "repeated_uncertain_intent"),
            ["uncertain"],
            "uncertain",
        ),
        (intent("billing_dispute", 0.95), LLM, ["uncertain", "handoff"], None),
        (intent("out_of_scope", 0.97), RouteDecision("template", "x"), ["uncertain", "handoff"], None),
        (intent("out_of_scope", 0.97), RouteDecision("template", "x"), ["out_of_scope"], "out_of_scope"),
        (intent("billing_dispute", 0.6), LLM, ["low_confidence"], "low_confidence"),
        (intent("billing_dispute", 0.8), LLM, ["low_confidence"], None),
    ],
)
def test_reason_is_the_first_configured_one_that_applies(result, decision, record, expected) -> None:
    assert reason_for(result, decision, record, 0.7) == expected


def test_disabled_by_default_builds_nothing(tmp_path) -> None:
    settings = Settings(cache_dir=tmp_path)
    assert settings.feedback_inbox.enabled is False
    assert build_inbox(settings) is None


def test_default_redis_is_the_one_the_server_already_uses(tmp_path) -> None:
    settings = Settings.model_validate(
        {"cache_dir": tmp_path, "cache": {"backend": "redis", "redis_url": "redis://cache:6379/2"}}
    )
    assert settings.inbox_redis_url == "redis://cache:6379/2"
    assert settings.inbox_path == tmp_path / "inbox" / "router.jsonl"


# ------------------------------------------------------------------------------------------ rows, file
PII_MESSAGES = [
    "same problem as before, call +86 138 1234 5678 or 13812345678",
    "mail li.wei@example.com, 身份证11010519491231002X，卡号4111 1111 1111 1111",
    "我的手机号是１３８１２３４５６７８",  # full-width digits, as Chinese input methods type them
]
PII = ["+86 138 1234 5678", "13812345678", "li.wei@example.com", "11010519491231002X", "4111 1111 1111 1111"]
DIGIT_RUNS = ["13812345678", "11010519491231002", "4111111111111111"]


async def test_rows_are_redacted_hash_the_session_and_are_written_on_close(tmp_path) -> None:
    path = tmp_path / "inbox" / "router.jsonl"
    metrics = Metrics()
    inbox = FeedbackInbox(FileSink(path, 1 << 20, 2), FeedbackInboxSettings(enabled=True), metrics)
    inbox.start()
    session = Session("customer-42-secret-session", "telecom", last_intent="network_fault")
    history = (ChatMessage("user", "hello"), ChatMessage("assistant", "hi"))
    for text in PII_MESSAGES:
        inbox.offer(text, intent("billing_dispute", 0.39, uncertain=True), CLARIFY, "en", session, history)
    inbox.offer("talk to a human", intent("contact_human", 0.99), HANDOFF, "en", None, ())
    inbox.offer("how do I pay my bill", intent("pay_bill_topup", 0.97), LLM, "en", session, ())  # not kept
    await inbox.aclose()

    rows = lines(path)
    assert [r["reason"] for r in rows] == ["uncertain"] * 3 + ["handoff"]
    first, handoff = rows[0], rows[-1]
    assert (
        first["predicted"] == "billing_dispute"
        and first["confidence"] == 0.39
        and first["route"] == "clarify"
    )
    assert first["top"][0] == ["billing_dispute", 0.39] and len(first["top"]) == 3
    assert first["turn"] == 2 and first["previous_intent"] == "network_fault" and first["intent"] is None
    assert "handoff_reason" not in first and handoff["handoff_reason"] == "customer_requested_human"
    assert len(first["session"]) == 16 and "session" not in handoff and "previous_intent" not in handoff
    raw = path.read_text(encoding="utf-8")
    assert "customer-42" not in raw and "secret" not in raw
    for value in PII:
        assert value not in raw
    for run in DIGIT_RUNS:
        assert run not in raw.replace(" ", "").replace("-", "")
    assert "<phone>" in rows[0]["text"] and "<email>" in rows[1]["text"] and "<id>" in rows[1]["text"]
    assert "<card>" in rows[1]["text"] and rows[2]["text"] == "我的手机号是<phone>"
    assert metric(metrics, "csreply_inbox_rows_total", reason="uncertain") == 3
    assert metric(metrics, "csreply_inbox_rows_total", reason="handoff") == 1


async def test_the_same_session_hashes_alike_and_another_one_differently(tmp_path) -> None:
    path = tmp_path / "i.jsonl"
    inbox = FeedbackInbox(FileSink(path, 1 << 20, 1), FeedbackInboxSettings(enabled=True))
    inbox.start()
    for sid in ("a", "a", "b"):
        inbox.offer(
            "hm", intent("billing_dispute", 0.3, uncertain=True), CLARIFY, "en", Session(sid, "telecom"), ()
        )
    await inbox.aclose()
    hashes = [r["session"] for r in lines(path)]
    assert hashes[0] == hashes[1] != hashes[2]


async def test_a_full_queue_drops_and_counts_without_waiting(tmp_path) -> None:
    path = tmp_path / "i.jsonl"
    metrics = Metrics()
    inbox = FeedbackInbox(
        FileSink(path, 1 << 20, 1), FeedbackInboxSettings(enabled=True, queue_size=2), metrics
    )
    # Not started yet: nothing drains, so the queue fills after two rows; `offer` is synchronous, so it
    # returns whatever the sink does.
    for i in range(5):
        inbox.offer(f"unsure {i}", intent("billing_dispute", 0.3, uncertain=True), CLARIFY, "en", None, ())
    assert inbox.dropped == 3
    assert metric(metrics, "csreply_inbox_dropped_total", cause="queue_full") == 3
    inbox.start()
    await inbox.aclose()
    assert [r["text"] for r in lines(path)] == ["unsure 0", "unsure 1"]
    inbox.offer("after close", intent("billing_dispute", 0.3, uncertain=True), CLARIFY, "en", None, ())
    assert metric(metrics, "csreply_inbox_dropped_total", cause="closed") == 1


async def test_sample_rate_keeps_a_share(tmp_path) -> None:
    draws = iter([0.1, 0.9, 0.2, 0.6])
    inbox = FeedbackInbox(
        FileSink(tmp_path / "i.jsonl", 1 << 20, 1),
        FeedbackInboxSettings(enabled=True, sample_rate=0.5),
        chance=lambda: next(draws),
    )
    inbox.start()
    for i in range(4):
        inbox.offer(f"m{i}", intent("billing_dispute", 0.3, uncertain=True), CLARIFY, "en", None, ())
    await inbox.aclose()
    assert [r["text"] for r in lines(tmp_path / "i.jsonl")] == ["m0", "m2"]


async def test_the_file_rotates_by_size_and_keeps_n(tmp_path) -> None:
    path = tmp_path / "router.jsonl"
    sink = FileSink(path, max_bytes=300, keep=2)
    for i in range(12):
        await sink.write([json.dumps({"text": f"message number {i:02d}", "pad": "x" * 40})])
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["router.jsonl", "router.jsonl.1", "router.jsonl.2"]
    assert all(p.stat().st_size <= 300 for p in tmp_path.iterdir())
    texts = [
        r["text"]
        for name in ("router.jsonl.2", "router.jsonl.1", "router.jsonl")
        for r in lines(tmp_path / name)
    ]
    assert texts == sorted(texts) and texts[-1] == "message number 11"  # newest kept, in order
    assert "message number 00" not in texts  # the oldest file was deleted


async def test_a_failing_sink_loses_rows_not_the_server() -> None:
    metrics = Metrics()
    sink = RedisSink("redis://127.0.0.1:1/0", "nowhere", 10)  # nothing listens on port 1
    inbox = FeedbackInbox(sink, FeedbackInboxSettings(enabled=True), metrics)
    inbox.start()
    inbox.offer("unsure", intent("billing_dispute", 0.3, uncertain=True), CLARIFY, "en", None, ())
    await inbox.aclose()
    assert inbox.written == 0
    assert metric(metrics, "csreply_inbox_dropped_total", cause="write_failed") == 1


# ------------------------------------------------------------------------------------------------ redis
@pytest.mark.skipif(not redis_available(), reason="needs a Redis at CSREPLY_TEST_REDIS_URL")
async def test_redis_list_is_capped_and_redacted_and_the_cli_reads_it(capsys) -> None:
    import redis

    key = f"csreply:test:inbox:{uuid.uuid4().hex}"
    inbox = FeedbackInbox(
        RedisSink(REDIS_URL, key, max_rows=3), FeedbackInboxSettings(enabled=True, backend="redis")
    )
    inbox.start()
    client = redis.Redis.from_url(REDIS_URL)
    try:
        for i, text in enumerate(PII_MESSAGES + ["which one, 4111-1111-1111-1111?", "the other thing"]):
            inbox.offer(
                f"{i}: {text}", intent("billing_dispute", 0.3, uncertain=True), CLARIFY, "en", None, ()
            )
        await inbox.aclose()
        stored = [json.loads(raw) for raw in client.lrange(key, 0, -1)]
        assert [r["text"][0] for r in stored] == ["2", "3", "4"]  # the newest three
        raw = "\n".join(json.dumps(r, ensure_ascii=False) for r in stored)
        assert "13812345678" not in raw and "4111" not in raw and "<card>" in raw

        # The CLI runs its own event loop, as it does from a shell.
        assert await asyncio.to_thread(main, ["router", "inbox", "--redis-url", REDIS_URL, "--key", key]) == 0
        out = capsys.readouterr().out
        assert f"redis {key}: 3 rows, 3 distinct texts: uncertain 3" in out
        assert "billing_dispute" in out and "the other thing" in out
    finally:
        client.delete(key)
        client.close()


# -------------------------------------------------------------------------------------------------- CLI
def write_inbox(path: Path) -> None:
    rows = [
        ("where is it", "order_tracking", 0.41, "uncertain"),
        ("Where is it?", "order_tracking", 0.43, "uncertain"),
        ("the parcel thing", "order_tracking", 0.38, "uncertain"),
        ("human please", "contact_human", 0.99, "handoff"),
        ("still broken", "network_fault", 0.35, "uncertain"),
        ("get me a person <phone>", "contact_human", 0.97, "handoff"),
    ]
    path.write_text(
        "".join(
            json.dumps(
                {
                    "ts": "2026-12-03T09:00:00Z",
                    "text": t,
                    "lang": "en",
                    "predicted": p,
                    "confidence": c,
                    "top": [[p, c]],
                    "reason": r,
                    "route": "clarify",
                    "turn": 1,
                    "intent": None,
                }
            )
            + "\n"
            for t, p, c, r in rows
        )
        + '{"text": "cut off by a cra\n',
        encoding="utf-8",
    )


def test_cli_groups_by_predicted_intent_and_reason(tmp_path, capsys) -> None:
    path = tmp_path / "router.jsonl"
    write_inbox(path)
    assert main(["router", "inbox", "--path", str(path)]) == 0
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    assert out[0] == f"{path}: 6 rows, 5 distinct texts: uncertain 4, handoff 2"
    header = next(i for i, line in enumerate(out) if line.startswith("predicted intent"))
    groups = [line.split() for line in out[header + 1 :] if not line.startswith(" ")]
    assert groups == [
        ["order_tracking", "3", "3", "0"],
        ["contact_human", "2", "0", "2"],
        ["network_fault", "1", "1", "0"],
    ]
    assert '"the parcel thing"' in captured.out and "1 lines that are not JSON" in captured.err

    assert main(["router", "inbox", "--path", str(path), "--reason", "handoff", "--examples", "1"]) == 0
    out = capsys.readouterr().out
    assert "2 rows" in out and "order_tracking" not in out and out.count('"') == 2  # one example shown


def test_cli_reads_the_rotated_files_and_limit_keeps_the_newest(tmp_path, capsys) -> None:
    path = tmp_path / "router.jsonl"
    write_inbox(path.with_name("router.jsonl.1"))
    path.write_text(
        json.dumps(
            {
                "text": "newest",
                "predicted": "billing_dispute",
                "confidence": 0.3,
                "reason": "uncertain",
                "lang": "en",
            }
        )
        + "\n"
    )
    assert main(["router", "inbox", "--path", str(path), "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert (
        out.startswith(f"{path} and 1 rotated files: 2 rows") and "newest" in out and "get me a person" in out
    )


def test_cli_without_an_inbox_says_where_it_looked(tmp_path, capsys) -> None:
    assert main(["router", "inbox", "--path", str(tmp_path / "none.jsonl")]) == 2
    assert "no inbox file at" in capsys.readouterr().err


def test_export_then_label_then_the_build_loader_takes_the_labelled_rows(tmp_path, capsys) -> None:
    path, out = tmp_path / "router.jsonl", tmp_path / "label" / "to_label.jsonl"
    write_inbox(path)
    assert main(["router", "inbox", "--path", str(path), "--export", str(out)]) == 0
    assert f"wrote 5 rows to {out} (1 repeated texts left out)" in capsys.readouterr().out
    exported = lines(out)
    assert [r["predicted"] for r in exported] == sorted(r["predicted"] for r in exported)
    assert all(list(r) == ["text", "lang", "intent", "predicted", "confidence", "reason"] for r in exported)
    assert all(r["intent"] is None for r in exported)

    # A labeller fills two rows, leaves one null, empties one and deletes one.
    by_text = {r["text"]: r for r in exported}
    by_text["the parcel thing"]["intent"] = "order_tracking"
    by_text["still broken"]["intent"] = "network_fault"
    by_text["human please"]["intent"] = ""
    del by_text["get me a person <phone>"]
    out.write_text("".join(json.dumps(r) + "\n" for r in by_text.values()))

    config_path = tmp_path / "build.yaml"
    config_path.write_text(
        yaml.safe_dump(
            {
                "version": 1,
                "name": "inbox-test",
                "data": {
                    "train": [],
                    "heldout": None,
                    "extra_data": [{"name": "inbox", "path": str(out), "dev_fraction": 0}],
                },
            }
        )
    )
    config = load_router_config(config_path)
    examples = load_extra(config.data.extra_data[0])
    assert sorted((e.text, e.intent, e.source) for e in examples) == [
        ("still broken", "network_fault", "inbox"),
        ("the parcel thing", "order_tracking", "inbox"),
    ]
    assert "2 rows without an intent were skipped" in capsys.readouterr().err
    data = load_training_data(config.data, seed=1)
    assert len(data.train) == 2 and data.sources[0]["rows"] == 2

    by_text["where is it"]["intent"] = "where_is_my_stuff"  # not an intent: the build stops, naming the line
    out.write_text("".join(json.dumps(r) + "\n" for r in by_text.values()))
    with pytest.raises(ValueError, match=r"to_label.jsonl:\d+: unknown intent 'where_is_my_stuff'"):
        load_extra(config.data.extra_data[0])
