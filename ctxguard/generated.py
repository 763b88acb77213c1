"""Lockfiles and generated files, and matching paths against shell patterns.

Low in the package: collection leaves these files out of diffs, and a diff's plan ranks them
last when they are kept.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable
from pathlib import PurePosixPath

GENERATED = (
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "poetry.lock",
    "uv.lock",
    "Pipfile.lock",
    "pdm.lock",
    "Cargo.lock",
    "go.sum",
    "Gemfile.lock",
    "composer.lock",
    "flake.lock",
    "mix.lock",
    "pubspec.lock",
    "Podfile.lock",
    "packages.lock.json",
    "*.min.js",
    "*.min.css",
    "*.map",
    "*.pb.go",
    "*_pb2.py",
    "*.snap",
)


def is_excluded(path: str, patterns: tuple[str, ...]) -> bool:
    """True if the path or its file name matches one of the patterns."""
    if not patterns:
        return False
    matcher = _matcher(patterns)
    return matcher(path) is not None or matcher(PurePosixPath(path).name) is not None


@functools.lru_cache(maxsize=64)
def _matcher(patterns: tuple[str, ...]) -> Callable[[str], re.Match[str] | None]:
    """One compiled regex for a set of shell patterns (case-sensitive, like fnmatchcase)."""
    return re.compile("|".join(fnmatch.translate(p) for p in patterns)).match
