"""A diff's file paths as text an agent can open, whatever git's `core.quotePath` says.

git C-quotes a path with non-ASCII bytes, quotes, backslashes or control characters
(`"t\\303\\274r.py"`); every reader of a diff's paths (the plan, the probes, the digest,
collection, streaming) takes them from here.
"""

from __future__ import annotations

import re
from typing import Any


def unquote(path: str) -> str:
    """A path as git wrote it in a diff header or listing, C-quoted (`"t\\303\\274r.py"`) or not,
    as UTF-8 text."""
    if len(path) < 2 or not (path.startswith('"') and path.endswith('"')):
        return path
    out = bytearray()
    body, i = path[1:-1], 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 == len(body):
            out += c.encode("utf-8", "surrogateescape")
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in "01234567" and i + 3 < len(body) + 1 and all(ch in "01234567" for ch in body[i + 1 : i + 4]):
            out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
            i += 4
            continue
        out += _ESCAPES.get(nxt, nxt).encode("utf-8", "surrogateescape")
        i += 2
    return out.decode("utf-8", "replace")


_ESCAPES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


_GIT_HEADER = re.compile(r'^diff --git (?:"a/((?:[^"\\]|\\.)*)"|a/(\S.*?)) (?:"b/((?:[^"\\]|\\.)*)"|b/(.*))$')


def header_path(line: str) -> str | None:
    """The new path in a `diff --git a/x b/y` line (quoted or not), or None for another line."""
    line = line.rstrip("\r\n")
    rest = line[len("diff --git ") :]
    half = (len(rest) - 1) // 2
    if line.startswith("diff --git a/") and rest[half : half + 3] == " b/" and rest[2:half] == rest[half + 3 :]:
        return rest[half + 3 :]  # `a/x y b/x y`: the same path twice, split in the middle as git does
    match = _GIT_HEADER.match(line)
    if match is None:
        return None
    if match.group(3) is not None:
        return unquote(f'"{match.group(3)}"')
    return match.group(4)


def file_path(patched: Any) -> str:
    """A unidiff PatchedFile's path, unquoted."""
    return unquote(str(patched.path))


def line_path(line: str, prefix: str) -> str:
    """The path after `prefix` on a header line (`rename to `, `+++ b/`), unquoted."""
    rest = line[len(prefix) :].rstrip("\r\n")
    if rest.startswith('"'):
        return unquote(rest).removeprefix("b/") if prefix.startswith("+++") else unquote(rest)
    return rest
