"""The built wheel serves on its own: a non-editable install of it, in a fresh venv, run as `csreply run` from
a directory outside the repository, answers /v1/reply. Fails when the data the server reads at run time
(serve/resources.py: prompts/ and knowledge/) is missing from the wheel.

No network: the wheel is built from a copy of the working tree with the project venv's setuptools, installed
with --no-deps, and the fresh venv sees the already-installed dependencies through a .pth file naming the
project venv's site-packages (a path line in a .pth file adds that folder only: its editable-install hook does
not run, so `serve` comes from the wheel). The models come from the usual cache (CSREPLY_CACHE_DIR)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from serve.resources import BUNDLED
from tests.conftest import REPO, default_router_dir
from tests.e2e.conftest import STARTUP_DEADLINE_S, LiveServer, free_port, stop_server

pytestmark = pytest.mark.slow

# Not part of a build: hidden folders (.venv, .git, tool caches), build outputs, test and bench artifacts.
NOT_COPIED = shutil.ignore_patterns(
    ".*", "__pycache__", "build", "dist", "out", "*.egg-info", "artifacts", "results"
)


def outside_env() -> dict[str, str]:
    """The test's environment without anything that puts the checkout on sys.path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CSREPLY_CONFIG")}
    return {
        **env,
        "CSREPLY_LOGGING__JSON_FORMAT": "false",
        "CSREPLY_GENERATOR__WARMUP": "false",
        "CSREPLY_CACHE__BACKEND": "off",
    }


def run(command: list[str], cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, env=outside_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (
        f"{command} exited with {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
    )
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """csreply's wheel, built from a copy of the working tree (no build/ or egg-info left in the checkout)."""
    root = tmp_path_factory.mktemp("wheel")
    shutil.copytree(REPO, root / "src", ignore=NOT_COPIED)
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            str(root / "src"),
            "-w",
            str(root / "dist"),
        ],
        cwd=root,
    )
    (built,) = (root / "dist").glob("csreply-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed (not editable) and the project venv's packages visible."""
    venv = tmp_path_factory.mktemp("venv") / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=venv.parent)
    python = venv / "bin" / "python"
    purelib = Path(
        run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=venv.parent
        ).strip()
    )
    (purelib / "csreply-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # --ignore-installed: the csreply metadata of the project venv (its editable install) is visible through
    # the .pth file, and must neither stop this install nor be touched by it
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--ignore-installed",
            "-q",
            str(wheel),
        ],
        cwd=venv.parent,
    )
    return venv


def test_the_wheel_carries_the_data_the_server_reads(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    for name in BUNDLED:
        shipped = {n for n in names if n.startswith(f"serve/_data/{name}/")}
        in_repo = {f"serve/_data/{p.relative_to(REPO).as_posix()}" for p in (REPO / name).rglob("*.yaml")}
        assert in_repo and in_repo <= shipped, sorted(in_repo - shipped)[:5]
    assert "serve/web/static/index.html" in names
    assert any(n.startswith("checkpoints/adapters/") for n in names)  # `csreply prepare` merges this LoRA


@pytest.fixture(scope="module")
def wheel_server(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    default_router_dir()
    cwd = tmp_path_factory.mktemp("elsewhere")  # nothing of the repository here, nor on sys.path
    where = run(
        [
            str(installed / "bin" / "python"),
            "-c",
            "import serve, serve.resources as r; print(serve.__file__); print(r.data_dir('prompts'))",
        ],
        cwd=cwd,
    ).split()
    assert all(Path(p).is_relative_to(installed) for p in where), (
        where
    )  # the wheel's code and data, not REPO's
    port = free_port()
    log = cwd / "server.log"
    with open(log, "wb") as handle:
        process = subprocess.Popen(
            [str(installed / "bin" / "csreply"), "run", "--port", str(port)],
            cwd=cwd,
            env=outside_env(),
            stdout=handle,
            stderr=subprocess.STDOUT,
        )
    server = LiveServer(f"http://127.0.0.1:{port}", process, log)
    deadline = time.monotonic() + STARTUP_DEADLINE_S
    while True:
        if process.poll() is not None:
            raise AssertionError(
                f"the installed server exited with {process.returncode}:\n{log.read_text()[-3000:]}"
            )
        try:
            if httpx.get(f"{server.url}/ready", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            stop_server(server)
            raise AssertionError(f"not ready after {STARTUP_DEADLINE_S}s:\n{log.read_text()[-3000:]}")
        time.sleep(0.25)  # waiting for a subprocess to listen; no test asserts on time here
    try:
        yield server
    finally:
        stop_server(server)


def test_the_installed_wheel_answers_a_reply_from_outside_the_repository(wheel_server: LiveServer) -> None:
    ready = httpx.get(f"{wheel_server.url}/ready", timeout=10).json()
    assert ready["knowledge"]["enabled"] and ready["knowledge"]["entries"] > 0, ready["knowledge"]
    response = httpx.post(
        f"{wheel_server.url}/v1/reply",
        timeout=120,
        json={"domain": "ecommerce", "message": "Which courier do you use for deliveries?", "stream": False},
    )
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["reply"].strip() and data["intent"]["route"], data
