"""Serving at once on the quick lexical router while the BERT router builds, then swapping it in: /ready says
which router serves and how far the build is, and no request fails across the swap. The build is a stand-in
command (it writes a progress file, then installs the prepared default router), so the test takes seconds;
the real build is the same child process with `python -m checkpoints build-router`."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager

from serve.app import create_app
from serve.config import GeneratorSettings, RouterSettings, Settings, default_cache_dir
from serve.retrieval.semantic import SEARCH_ENCODER_DIRNAME
from serve.router.loading import quick_router_dir
from tests.api.test_reply import fixed_reply
from tests.conftest import default_router_dir
from tests.fakes import ScriptedFakeGenerator

STAND_IN_BUILD = """
import json, os, shutil, sys, time
src, dst = sys.argv[1], sys.argv[2]
progress = dst + ".progress.json"
for step in (1, 2):
    with open(progress, "w") as fh:
        json.dump({"stage": "training, epoch 1 of 3", "step": step, "steps": 4, "fraction": step / 4,
                   "elapsed_s": step, "eta_s": 4 - step}, fh)
    time.sleep(0.6)
shutil.copytree(src, dst + ".tmp")
os.replace(dst + ".tmp", dst)
os.remove(progress)
"""


@pytest.fixture(scope="module")
def quick_router() -> Path:
    path = quick_router_dir(default_cache_dir() / "router" / "default")
    if not (path / "router.json").is_file():
        import subprocess

        subprocess.run(
            [
                sys.executable,
                "-m",
                "checkpoints",
                "build-router",
                "build_configs/router/default.yaml",
                "--quick",
            ],
            check=True,
            cwd=Path(__file__).resolve().parents[2],
        )
    return path


async def test_serves_on_the_quick_router_then_swaps_in_the_built_one(
    tmp_path: Path, quick_router: Path
) -> None:
    router_dir = tmp_path / "router" / "default"
    shutil.copytree(quick_router, quick_router_dir(router_dir))
    search = default_cache_dir() / "models" / SEARCH_ENCODER_DIRNAME  # `csreply prepare` built it
    shutil.copytree(search, tmp_path / "models" / SEARCH_ENCODER_DIRNAME)
    command = [sys.executable, "-c", STAND_IN_BUILD, str(default_router_dir()), str(router_dir)]
    settings = Settings(
        cache_dir=tmp_path,
        generator=GeneratorSettings(warmup=False),
        router=RouterSettings(router_dir=router_dir, build_in_background=True, build_command=command),
    )
    app = create_app(settings, generator=ScriptedFakeGenerator(script=fixed_reply))
    async with LifespanManager(app, startup_timeout=60):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            first = (await client.get("/ready")).json()
            assert first["router"]["chain"][0] == "lexical"
            assert any("quick lexical router" in note for note in first["degraded"])
            assert first["knowledge"]["dense"] is False  # no sentence vectors from a lexical router
            # nor the English search encoder's yet: encoding for it would delay the first reply
            assert first["knowledge"]["semantic"] is False and first["reply_bank"]["semantic"] is False
            backends, seen_building, statuses = set(), False, []
            for _ in range(400):  # traffic all along; the swap happens between two requests
                reply = await client.post(
                    "/v1/reply",
                    json={
                        "domain": "telecom",
                        "stream": False,
                        "message": "my home broadband keeps dropping",
                    },
                )
                statuses.append(reply.status_code)
                backends.add(reply.json()["intent"]["backend"])
                build = (await client.get("/ready")).json()["router"]["build"]
                seen_building |= build["state"] == "building" and build.get("fraction") is not None
                if build["state"] in ("ready", "failed"):
                    break
                await asyncio.sleep(0.05)
            after = (await client.get("/ready")).json()
            last = (
                await client.post(
                    "/v1/reply",
                    json={
                        "domain": "telecom",
                        "stream": False,
                        "message": "my home broadband keeps dropping",
                    },
                )
            ).json()
    assert after["router"]["build"]["state"] == "ready", after["router"]["build"]
    assert seen_building  # progress was shown while it built
    assert all(code == 200 for code in statuses)
    assert "lexical" in backends and after["router"]["chain"][0].startswith("onnx")
    assert last["intent"]["backend"].startswith("onnx")
    assert (
        after["knowledge"]["dense"] is True and after["knowledge"]["reloads"] == 1
    )  # re-indexed with vectors
    assert after["knowledge"]["semantic"] is True and after["reply_bank"]["semantic"] is True
    assert not any("quick lexical router" in note for note in after["degraded"])


async def test_a_failed_build_keeps_the_quick_router_and_says_why(tmp_path: Path, quick_router: Path) -> None:
    router_dir = tmp_path / "router" / "default"
    shutil.copytree(quick_router, quick_router_dir(router_dir))
    command = [sys.executable, "-c", "import sys; print('out of memory', file=sys.stderr); sys.exit(3)"]
    settings = Settings(
        cache_dir=tmp_path,
        generator=GeneratorSettings(warmup=False),
        router=RouterSettings(router_dir=router_dir, build_in_background=True, build_command=command),
    )
    app = create_app(settings, generator=ScriptedFakeGenerator(script=fixed_reply))
    async with LifespanManager(app, startup_timeout=60):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            for _ in range(100):
                build = (await client.get("/ready")).json()["router"]["build"]
                if build["state"] != "building":
                    break
                await asyncio.sleep(0.05)
            reply = await client.post(
                "/v1/reply", json={"domain": "telecom", "message": "hi", "stream": False}
            )
    assert build["state"] == "failed" and "exited with 3" in build["error"]
    assert "out of memory" in Path(build["log"]).read_text()
    assert reply.status_code == 200 and reply.json()["intent"]["backend"] == "lexical"
    assert json.loads((quick_router_dir(router_dir) / "router.json").read_text())["kind"] == "lexical"
