"""The build's one addition to pyproject.toml: a stamp of the commit it was built from
(ctxguard.version.stamp), so that `ctxguard --version` names it (`0.2.0 (1a2b3c4)`) unless the
commit is the release's tag. Written into the built package only (`ctxguard/_build.txt`), never
the source tree; a build outside a git checkout (an sdist) writes none."""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # (ctxguard.version needs nothing beyond the standard library)

from ctxguard import __version__  # noqa: E402
from ctxguard.version import git_in, stamp  # noqa: E402


class StampedBuild(build_py):
    def run(self) -> None:
        super().run()
        said = stamp(git_in(HERE), __version__)
        if said is not None:
            (Path(self.build_lib) / "ctxguard" / "_build.txt").write_text(said + "\n")


setup(cmdclass={"build_py": StampedBuild})
