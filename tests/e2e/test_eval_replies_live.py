"""`csreply eval replies --url` end to end against a real server (real router, prompts, canned and template
routes) whose generator is the test-only FastTestEngine: the JSON, the per-case JSONL, the Markdown
report and its PNGs are all written and agree."""

from __future__ import annotations

import json
from pathlib import Path

from serve.cli import main
from tests.e2e.conftest import stop_server
from tests.e2e.fast_server import start_fast_server

CASES = [
    {
        "messages": [
            {"role": "user", "content": "I'm moving abroad and want to cancel my line, is there a fee?"}
        ],
        "domain": "telecom",
        "lang": "en",
        "intent": "cancel_service",
        "expect_handoff": False,
        "source": "team",
    },
    {
        "messages": [{"role": "user", "content": "how much data have i got left this month?"}],
        "domain": "telecom",
        "lang": "en",
        "context": {"data_left": "3.2 GB"},
        "must_include": ["3.2 GB"],
        "source": "team",
    },
    {
        "messages": [{"role": "user", "content": "麻烦转一下人工，谢谢"}],
        "domain": "telecom",
        "lang": "zh",
        "expect_handoff": True,
        "source": "real",
    },
]


def test_eval_replies_writes_json_results_report_and_plots(tmp_path: Path) -> None:
    data = tmp_path / "cases.jsonl"
    data.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in CASES))
    server = start_fast_server(tmp_path / "server.log")
    try:
        out = tmp_path / "run.json"
        assert (
            main(
                [
                    "eval",
                    "replies",
                    "--data",
                    str(data),
                    "--url",
                    server.url,
                    "--json",
                    str(out),
                    "--concurrency",
                    "2",
                ]
            )
            == 0
        )
    finally:
        stop_server(server)
    result = json.loads(out.read_text())
    assert result["n"] == 3 and result["errors"] == 0 and result["report"] == str(out.with_suffix(".md"))
    rows = [json.loads(line) for line in out.with_suffix(".cases.jsonl").read_text().splitlines()]
    assert len(rows) == 3 and all(0 < r["ttft_ms"] <= r["latency_ms"] for r in rows)
    report = out.with_suffix(".md").read_text()
    assert f"| must_include met | {100 * result['must_include_rate']:.1f} % | 1 case |" in report
    assert "## By source" in report and "| real | 1 |" in report
    for name in ("times", "routes", "sentences"):
        png = out.with_suffix(f".{name}.png")
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5_000
        assert f"]({png.name})" in report
