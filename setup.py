"""The build's one addition to pyproject.toml: a stamp of the commit it was built from, so that
`ctxguard --version` names it (`0.2.0 (1a2b3c4)`) unless the commit is the release's tag
(`v0.2.0`). Written into the built package only (`ctxguard/_build.txt`), never the source tree;
a build outside a git checkout (an sdist) writes none."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(HERE), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def stamp() -> str | None:
    """`release` when the checkout's HEAD is the version's tag, its short sha otherwise, None
    outside a checkout."""
    version = re.search(r'__version__ = "(.+?)"', (HERE / "ctxguard/__init__.py").read_text()).group(1)  # type: ignore[union-attr]
    commit = _git("rev-parse", "--short=7", "HEAD")
    if commit is None:
        return None
    tags = (_git("tag", "--points-at", "HEAD") or "").split()
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no"))
    return "release" if f"v{version}" in tags and not dirty else commit + ("-dirty" if dirty else "")


class StampedBuild(build_py):
    def run(self) -> None:
        super().run()
        said = stamp()
        if said is not None:
            (Path(self.build_lib) / "ctxguard" / "_build.txt").write_text(said + "\n")


if __name__ == "__main__":  # (as the build backend runs it; a test imports stamp() alone)
    setup(cmdclass={"build_py": StampedBuild})
