"""`ctxguard --version` names the commit a build came from, unless it is the release's tag."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import ctxguard
from tests.conftest import ROOT


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True).stdout.strip()


def _expected() -> str:
    """What a build of this checkout says: the release, or its commit (dirty when it is)."""
    commit = _git("rev-parse", "--short=7", "HEAD")
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no"))
    released = f"v{ctxguard.__version__}" in _git("tag", "--points-at", "HEAD").split() and not dirty
    return "release" if released else commit + ("-dirty" if dirty else "")


@pytest.fixture(scope="module")
def checkout() -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no commit to name")


def test_the_version_names_the_commit_or_the_release(checkout: None) -> None:
    said = subprocess.run([sys.executable, "-m", "ctxguard", "--version"], capture_output=True, text=True).stdout
    stamp = _expected()
    assert said == (
        f"ctxguard {ctxguard.__version__}\n" if stamp == "release" else f"ctxguard {ctxguard.__version__} ({stamp})\n"
    )


def test_a_built_wheel_carries_the_stamp_and_the_source_tree_does_not(checkout: None, tmp_path: Path) -> None:
    """The wheel .ci/run builds of this checkout (CTXGUARD_TEST_WHEELS), else one built here."""
    given = os.environ.get("CTXGUARD_TEST_WHEELS")
    wheels = sorted(Path(given).glob("ctxguard_review-*.whl")) if given else []
    if not wheels:
        from setuptools import __version__ as setuptools_version

        if int(setuptools_version.split(".")[0]) < 77:
            pytest.skip(f"setuptools {setuptools_version} cannot build this project (77 or later) without the index")
        command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
        subprocess.run([*command, "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, check=True)
        wheels = sorted(tmp_path.glob("ctxguard_review-*.whl"))
    with zipfile.ZipFile(wheels[-1]) as built:
        assert built.read("ctxguard/_build.txt").decode().strip() == _expected()
    assert not (ROOT / "ctxguard/_build.txt").exists()


@pytest.mark.parametrize(
    ("head", "tags", "dirty", "said"),
    [
        ("1a2b3c4", ["v9.9.9"], False, "release"),
        ("1a2b3c4", ["v9.9.9"], True, "1a2b3c4-dirty"),
        ("1a2b3c4", ["v0.0.1"], False, "1a2b3c4"),
        (None, [], False, None),  # (an sdist: no checkout, no stamp)
    ],
)
def test_the_builds_stamp(head: str | None, tags: list[str], dirty: bool, said: str | None) -> None:
    from ctxguard.version import stamp

    answers = {"rev-parse": head, "tag": "\n".join(tags), "status": " M x.py" if dirty else ""}
    assert stamp(lambda *args: answers[args[0]] if head is not None else None, "9.9.9") == said
