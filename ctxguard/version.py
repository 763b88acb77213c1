"""The version a user has: the release it is, or the commit it was built from.

A build writes the stamp into the package (setup.py: `ctxguard/_build.txt`); run from a checkout
without one (an editable install), git is asked. The stamp is `release` when the commit is the
version's tag (`v0.2.0`) and the tree is clean, else the commit's short sha (`-dirty` after it
when tracked files differ from it)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from ctxguard import __version__

HERE = Path(__file__).resolve().parent


def described() -> str:
    """`0.2.0` for a release, `0.2.0 (1a2b3c4)` for any other commit."""
    built = HERE / "_build.txt"
    if built.is_file():
        said: str | None = built.read_text(encoding="utf-8").strip()
    else:
        top = git_in(HERE)("rev-parse", "--show-toplevel")
        own = top is not None and Path(top).resolve() / "ctxguard" == HERE  # (not someone else's repository)
        said = stamp(git_in(HERE), __version__) if own else None
    return __version__ if said in (None, "", "release") else f"{__version__} ({said})"


Git = Callable[..., "str | None"]


def git_in(folder: Path) -> Git:
    """git run in `folder`: its output, or None when it fails (no git, not a checkout)."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    return git


def stamp(git: Git, version: str) -> str | None:
    """`release`, the short sha (`-dirty` when tracked files changed), or None outside a checkout."""
    commit = git("rev-parse", "--short=7", "HEAD")
    if commit is None:
        return None
    tags = (git("tag", "--points-at", "HEAD") or "").split()
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    return "release" if f"v{version}" in tags and not dirty else commit + ("-dirty" if dirty else "")
