"""The import graph of serve/ and checkpoints/, read statically (every import statement, including those
inside functions): the server never imports the build tools, and the build tools import each other without
cycles."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

PACKAGES = ("serve", "checkpoints")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in sorted((REPO / pkg).rglob("*.py"))}


def imported(path: Path, name: str, known: set[str]) -> set[str]:
    """Project modules one file imports. `from pkg import x` counts pkg.x when that is a module, else pkg."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in known:  # a.b.c where a.b is the module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imported(path, name, set(mods)) for name, path in mods.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_walk_sees_imports_inside_functions_and_from_imports() -> None:
    edges = graph()
    assert "serve.llm_preset" in edges["serve.generation.trtllm"]  # module level
    assert "serve.router.tensorrt" in edges["serve.router.loading"]  # inside tensorrt_router()
    assert "serve.engine_artifacts" in edges["checkpoints.llm"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_serve_module_imports_checkpoints() -> None:
    offenders = {
        name: sorted(t for t in targets if t.split(".")[0] == "checkpoints")
        for name, targets in graph().items()
        if name.split(".")[0] == "serve"
    }
    assert not {k: v for k, v in offenders.items() if v}


def _checkpoints_cycles() -> list[list[str]]:
    edges = graph()
    inner = {
        name: {t for t in targets if t.startswith("checkpoints")}
        for name, targets in edges.items()
        if name.startswith("checkpoints")
    }
    return cycles(inner)


def test_no_import_cycle_among_checkpoints_modules() -> None:
    assert _checkpoints_cycles() == []


def test_no_import_cycle_across_serve_and_checkpoints() -> None:
    edges = graph()
    across = [c for c in cycles(edges) if {m.split(".")[0] for m in c} == set(PACKAGES)]
    assert across == []


def test_no_import_cycle_among_serve_modules() -> None:
    edges = graph()
    inner = {
        name: {t for t in targets if t.startswith("serve")}
        for name, targets in edges.items()
        if name.startswith("serve")
    }
    assert cycles(inner) == []
