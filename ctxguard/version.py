"""The version a user has: the release it is, or the commit it was built from."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ctxguard import __version__

HERE = Path(__file__).resolve().parent


def described() -> str:
    """`0.2.0` for a release, `0.2.0 (1a2b3c4)` for any other commit: the build's stamp
    (setup.py), else, run from a checkout (an editable install), what git says of it."""
    stamp = HERE / "_build.txt"
    if stamp.is_file():
        said = stamp.read_text(encoding="utf-8").strip()
    else:
        said = _checkout() or ""
    return __version__ if said in ("", "release") else f"{__version__} ({said})"


def _checkout() -> str | None:
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(HERE), *args], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    if top is None or not (Path(top) / "ctxguard" / "__init__.py").is_file() or Path(top) / "ctxguard" != HERE:
        return None  # (not this package's own checkout: an install inside someone else's repository)
    commit = git("rev-parse", "--short=7", "HEAD")
    if commit is None:
        return None
    tags = (git("tag", "--points-at", "HEAD") or "").split()
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    return "release" if f"v{__version__}" in tags and not dirty else commit + ("-dirty" if dirty else "")
