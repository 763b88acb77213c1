"""Artifact type: explicit choice first, then the file extension, then the content."""

from __future__ import annotations

import re
from pathlib import PurePath

from ctxguard.kinds.json import parse
from ctxguard.options import TYPES, KindName

_BY_SUFFIX: dict[str, KindName] = {
    ".diff": "diff",
    ".patch": "diff",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
    ".geojson": "json",
    ".log": "log",
    ".out": "log",
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
}
_DIFF_START = re.compile(r"^(diff --git |diff --cc |--- \S.*\n\+\+\+ \S|Index: )", re.M)
_HEADING = re.compile(r"^#{1,6} \S", re.M)
_LOG_LINE = re.compile(
    r"^(\S*\d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}|\[?(INFO|DEBUG|WARN|WARNING|ERROR|TRACE)\b"
    r"|##\[|={5,} .* ={5,}$)",
    re.M,
)


def classify(name: str, text: str, explicit: str | None = None) -> KindName:
    """The artifact type for a name and its content (an explicit type is one of TYPES: the
    config and the command line check it)."""
    if explicit:
        if explicit not in TYPES:
            raise ValueError(f"type must be one of {', '.join(TYPES)} (got {explicit!r})")
        return explicit
    by_suffix = _BY_SUFFIX.get(PurePath(name).suffix.lower())
    if by_suffix:
        return by_suffix
    return sniff(text)


def sniff(text: str) -> KindName:
    """Guess a type from the first few kilobytes of content."""
    head = text[:8192]
    stripped = head.lstrip()
    if _DIFF_START.search(head) and "\n@@ " in text[:65536] or stripped.startswith("diff --git "):
        return "diff"
    if stripped[:1] in "{[" and stripped:
        found = parse(text)
        if found is not None and not found[1]:
            return "json"
    lines = head.splitlines()[:200]
    if lines and len(_HEADING.findall(head)) >= 2:
        return "markdown"
    if lines and sum(1 for line in lines if _LOG_LINE.match(line)) >= max(3, len(lines) // 3):
        return "log"
    return "text"
