"""csreply's requirements that this Python environment does not already provide, one a line, for
`pip install -c <the environment's own versions> -r <this output>` on a GPU host (Dockerfile.gpu,
docs/gpu.md).

TensorRT-LLM's release container already has torch, transformers, numpy, TensorRT and TensorRT-LLM, built and
pinned for each other; replacing any of them with csreply's pins (which are for the CPU default) breaks it. So
the container's own distributions win wherever it has one: they are left out here (and listed on stderr), and
everything else comes from csreply's own metadata, that is pyproject.toml's dependencies and the extras asked
for. Run it after `pip install --no-deps .` (or `-e .`).

    python docs/deploy/container_requirements.py --extra trtllm > /tmp/csreply-requirements.txt
"""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import sys
from collections.abc import Container, Iterable

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def split(
    requires: Iterable[str], installed: Container[str], extras: Iterable[str]
) -> tuple[list[str], list[str]]:
    """(to install, provided by the environment): the requirements that apply to this Python and these extras,
    split by whether a distribution of that name is installed (`installed` holds canonical names)."""
    wanted = [""] + sorted(set(extras))
    to_install: list[str] = []
    provided: list[str] = []
    for line in requires:
        requirement = Requirement(line)
        if requirement.marker is not None and not any(
            requirement.marker.evaluate({"extra": e}) for e in wanted
        ):
            continue
        requirement.marker = None
        (provided if canonicalize_name(requirement.name) in installed else to_install).append(
            str(requirement)
        )
    return to_install, provided


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--extra", action="append", default=[], help="an extra of csreply's (repeatable)")
    parser.add_argument("--package", default="csreply")
    args = parser.parse_args()
    requires = metadata.requires(args.package) or []
    installed = {
        canonicalize_name(d.metadata["Name"]) for d in metadata.distributions() if d.metadata["Name"]
    }
    installed.discard(canonicalize_name(args.package))
    to_install, provided = split(requires, installed, args.extra)
    for line in provided:
        print(f"kept the environment's own, not csreply's pin: {line}", file=sys.stderr)
    print("\n".join(to_install))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
