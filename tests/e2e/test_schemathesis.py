"""Schemathesis against the OpenAPI schema of a real server (test-only FastTestEngine): no 5xx.

Bounded: a fixed number of generated cases per operation (about 30 s on 2 cores)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.core.result import Err

from tests.e2e.conftest import LiveServer, stop_server
from tests.e2e.fast_server import start_fast_server

EXAMPLES_PER_OPERATION = 40


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_fast_server(
        tmp_path_factory.mktemp("st") / "server.log", env={"CSREPLY_ADMISSION__MAX_QUEUE": "64"}
    )
    try:
        yield live
    finally:
        stop_server(live)


def test_generated_requests_get_no_5xx(server: LiveServer) -> None:
    schema = schemathesis.openapi.from_dict(httpx.get(f"{server.url}/openapi.json").json())
    failures: list[str] = []
    calls = 0
    for result in schema.get_all_operations():
        if isinstance(result, Err):
            raise result.err()  # an operation the schema cannot describe fails the test as it is
        operation = result.ok()

        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.generate],
        )
        @given(case=operation.as_strategy())
        def check(case: schemathesis.Case) -> None:
            nonlocal calls
            calls += 1
            response = case.call(base_url=server.url, timeout=30)
            if response.status_code >= 500:
                failures.append(
                    f"{case.method} {case.formatted_path} -> {response.status_code}: "
                    f"{response.text[:200]} (body {str(case.body)[:200]})"
                )

        check()
    print(
        f"schemathesis: {calls} generated requests over {len(list(schema.get_all_operations()))} operations, "
        f"{len(failures)} with a 5xx"
    )
    assert calls >= EXAMPLES_PER_OPERATION
    assert not failures, failures[:5]
    assert httpx.get(f"{server.url}/ready").status_code == 200
