"""How much of each changed file a cut diff shows (a record's `files[].shown`)."""

from __future__ import annotations

from ctxguard.git.paths import file_path, header_path
from ctxguard.kinds.diff.model import DiffDoc


def file_coverage(doc: DiffDoc, content: str) -> dict[str, str]:
    """How much of each changed file a cut diff shows: "whole" (every hunk line, in order),
    "cut" (its header, or one of its changed lines found nowhere else in the diff) or
    "omitted". A file whose lines all occur in other files too, with no header shown, counts
    as omitted, and so does a file with no hunks (a rename, a binary file) whose header is not
    shown: the claim is never more than the content proves."""
    parsed = doc.parsed
    if parsed is None:
        return {}
    shown = set(content.splitlines())
    segments = set(content.split("\n"))
    headers = [line for line in shown if "diff --git a/" in line]
    seen = doc.changed_lines
    coverage = {}
    for patched, hunks in zip(parsed.files, parsed.bodies):
        path, raw = file_path(patched), patched.path  # (raw: as the headers in the content write it)
        header = f"+++ b/{raw}" in shown or any(
            f"diff --git a/{raw} " in line or header_path(line) == path for line in headers
        )
        if not hunks:  # a rename, a binary file, a mode change: its header is all there is
            coverage[path] = "whole" if header else "omitted"
            continue
        if all(_may_hold(segments, body) and "".join(body) in content for body in hunks):
            coverage[path] = "whole"
            continue
        lines = [line.rstrip("\r\n") for body in hunks for line in body if line[:1] in ("+", "-")]
        unique = any(seen[line] == 1 and line in shown for line in lines)
        coverage[path] = "cut" if header or unique else "omitted"
    return coverage


def _may_hold(segments: set[str], body: list[str]) -> bool:
    """A cheap necessary condition for "".join(body) to be in the content: a body line between
    two line feeds must be one of the content's line-feed-separated segments."""
    return all(
        line[:-1] in segments for before, line in zip(body, body[1:]) if before.endswith("\n") and line.endswith("\n")
    )
