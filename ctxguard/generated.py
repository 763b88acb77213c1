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


def matches_paths(path: str, patterns: tuple[str, ...]) -> bool:
    """True if a repository path matches one of an entry's `paths` globs, by the rule a files
    entry's globs follow on disk (pathlib's): `*` and `?` within one folder, `**` any number of
    folders, a trailing `**` every file below. A plain path is that file or, as git reads it,
    every file below that folder."""
    return bool(patterns) and _path_globs(patterns)(path) is not None


@functools.lru_cache(maxsize=64)
def _path_globs(patterns: tuple[str, ...]) -> Callable[[str], re.Match[str] | None]:
    return re.compile("|".join(f"(?:{_path_glob(p)})" for p in patterns) + r"\Z").match


def _path_glob(pattern: str) -> str:
    if not any(c in pattern for c in "*?["):  # a plain path: that file, or every file below that folder
        return re.escape(pattern.strip("/")) + "(?:/.*)?"
    parts = [part for part in pattern.strip("/").split("/") if part not in ("", ".")]
    out = []
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:[^/]+/)*")
            continue
        out.append(_segment(part) + ("" if last else "/"))
    return "".join(out)


def _segment(part: str) -> str:
    """One folder's or file's pattern: `*` and `?` never cross `/`; `[...]` is a class."""
    out, i = [], 0
    while i < len(part):
        c = part[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and "]" in part[i + 2 :]:
            end = part.index("]", i + 2)
            body = part[i + 1 : end]
            body = "^" + body[1:] if body.startswith("!") else body
            out.append("[" + body.replace("\\", "\\\\").replace("[", "\\[") + "]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)
