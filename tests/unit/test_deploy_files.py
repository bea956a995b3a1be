"""The Dockerfiles in docs/deploy/, read (no Docker engine on the project's machines): they install from
pyproject.toml, never from a list of their own, copy what the build needs, name presets that exist, and the
GPU image is the TensorRT-LLM release that pyproject.toml's `trtllm` extra pins. And the helper that keeps the
container's own packages (docs/deploy/container_requirements.py)."""

from __future__ import annotations

import importlib.util
import re
import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest
from packaging.requirements import Requirement

from serve.resources import BUNDLED
from tests.conftest import REPO
from tests.unit.test_python_support import pyproject

DEPLOY = REPO / "docs" / "deploy"
DOCKERFILES = sorted(DEPLOY.glob("Dockerfile.*"))
PRESET = re.compile(r"build_configs/llm/[\w.\-]+\.yaml")


def instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments), continuation lines joined, comments left out."""
    lines = [line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    return [
        (line.split(maxsplit=1)[0].upper(), line.split(maxsplit=1)[1])
        for line in joined.splitlines()
        if line.strip()
    ]


def pip_installs(path: Path) -> list[list[str]]:
    """The arguments of every `pip install` in the RUN instructions."""
    found = []
    for kind, command in instructions(path):
        if kind != "RUN":
            continue
        for part in re.split(r"&&|;", command):
            words = shlex.split(part)
            if words[:2] == ["pip", "install"]:
                found.append(words[2:])
    return found


def test_there_are_both_dockerfiles() -> None:
    assert [p.name for p in DOCKERFILES] == ["Dockerfile.cpu", "Dockerfile.gpu"]


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_dependencies_come_from_pyproject_not_a_list_of_their_own(path: Path) -> None:
    installs = pip_installs(path)
    assert installs
    for args in installs:
        rest = iter(args)
        for arg in rest:
            if arg in ("-r", "-c", "--index-url"):
                next(rest)  # a file written from pyproject.toml / the container, or an index
            elif arg.startswith("-"):
                continue
            else:  # the project itself, or its torch pin read out of pyproject.toml
                assert arg == "." or arg.startswith(".[") or arg.startswith("$(grep"), (path.name, arg, args)
    assert any("." in args or any(a.startswith(".[") for a in args) for args in installs)


@pytest.mark.parametrize("path", DOCKERFILES, ids=lambda p: p.name)
def test_the_build_copies_what_exists_and_what_the_wheel_needs(path: Path) -> None:
    copied = []
    for kind, args in instructions(path):
        if kind == "COPY":
            sources = args.split()[:-1]
            copied += sources
            assert all((REPO / s).exists() for s in sources), (path.name, sources)
    for needed in ("pyproject.toml", "setup.py", "MANIFEST.in", "serve", "checkpoints", *BUNDLED):
        assert needed in copied, (path.name, needed)


@pytest.mark.parametrize(
    "path", [*DOCKERFILES, REPO / "docs" / "deploy.md", REPO / "docs" / "gpu.md"], ids=lambda p: p.name
)
def test_named_presets_exist(path: Path) -> None:
    for preset in PRESET.findall(path.read_text()):
        assert (REPO / preset).is_file(), (path.name, preset)


def test_the_gpu_image_is_the_tensorrt_llm_release_the_trtllm_extra_pins() -> None:
    text = (DEPLOY / "Dockerfile.gpu").read_text()
    image = re.search(r"^ARG TRTLLM_IMAGE=(\S+)$", text, re.M)
    assert image, "Dockerfile.gpu names its base image in ARG TRTLLM_IMAGE"
    repository, tag = image.group(1).rsplit(":", 1)
    assert repository == "nvcr.io/nvidia/tensorrt-llm/release" and tag.startswith("1.2.")
    extra = [Requirement(r) for r in pyproject()["project"]["optional-dependencies"]["trtllm"]]
    (pin,) = [r for r in extra if r.name == "tensorrt-llm"]
    assert tag in pin.specifier, (tag, str(pin.specifier))
    assert re.search(
        r"^ARG PRESET=build_configs/llm/", text, re.M
    )  # a default that test_named_presets checks
    assert "--extra trtllm" in text


def helper() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "container_requirements", DEPLOY / "container_requirements.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_container_keeps_its_own_packages_and_gets_the_rest_from_the_metadata() -> None:
    requires = [
        "torch==2.13.0",
        "fastapi==0.165.0; python_version >= '3.11'",
        "fastapi==0.162.5; python_version < '3.11'",
        "redis==8.1.0",
        "pytest==9.2.0; extra == 'dev'",
        "tensorrt-llm==1.2.1; extra == 'trtllm'",
        "tensorrt~=10.14.1; extra == 'trtllm'",
    ]
    installed = {"torch", "tensorrt-llm", "tensorrt", "pip"}
    fastapi = "fastapi==0.165.0" if sys.version_info >= (3, 11) else "fastapi==0.162.5"  # this Python's pin
    to_install, kept = helper().split(requires, installed, ["trtllm"])
    assert kept == ["torch==2.13.0", "tensorrt-llm==1.2.1", "tensorrt~=10.14.1"]
    assert to_install == [fastapi, "redis==8.1.0"]  # markers dropped; no dev extra
    to_install, kept = helper().split(requires, set(), [])
    assert to_install == ["torch==2.13.0", fastapi, "redis==8.1.0"] and kept == []
