"""Build hook only; the project's metadata is in pyproject.toml.

The data the server reads at run time (serve/resources.py: prompts/ and knowledge/) stays at the repository
root, where the team edits it; a built wheel gets a copy inside the package, at serve/_data/<name>/. An
editable install gets none: it reads the checkout's folders. MANIFEST.in puts the folders in the sdist, for a
wheel built from it.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUNDLED = ("prompts", "knowledge")  # serve/resources.py BUNDLED


class BuildPyWithData(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "serve" / "_data"
        for name in BUNDLED:
            files = sorted(
                p for p in (ROOT / name).rglob("*") if p.is_file() and "__pycache__" not in p.parts
            )
            if not files:
                raise SystemExit(
                    f"setup.py: {ROOT / name} is missing or empty: the server cannot run without it"
                )
            for source in files:
                destination = target / source.relative_to(ROOT)
                destination.parent.mkdir(parents=True, exist_ok=True)
                self.copy_file(str(source), str(destination))


setup(cmdclass={"build_py": BuildPyWithData})
