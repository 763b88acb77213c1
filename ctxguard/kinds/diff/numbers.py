"""New-file line numbers on a diff's hunk lines (`line_numbers: true`), so a reviewer can comment
inline: each context or added line shown gets its line number in the new file before it, each
removed line a blank of the same width. The content is numbered after the cut: its gap lines
name the raw lines they stand for, so every shown line is known by its raw line."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ctxguard.plan import GAP_LINE

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
WIDTH = 5  # digits and a space before each hunk line


def new_numbers(raw: str) -> list[int | None]:
    """For each raw line (from 0), its line number in the new file: for the context and added
    lines of a hunk; None for every other line (headers, removed lines, notes)."""
    out: list[int | None] = []
    new: int | None = None  # the next new-file line, inside a hunk
    for line in raw.split("\n"):
        match = _HUNK.match(line)
        if match:
            new = int(match.group(2))
            out.append(None)
        elif new is not None and line[:1] in (" ", "+"):
            out.append(new)
            new += 1
        elif new is not None and line[:1] in ("-", "\\"):
            out.append(None)
        else:
            new = None  # (a file header, or anything else, ends the hunk)
            out.append(None)
    return out


def number_of(lines: Sequence[str], i: int) -> int | None:
    """The line number of hunk line i (of the diff's lines) in its file: in the new file for a
    context or added line, in the old file for a removed one; None outside a hunk. (Read back to
    the hunk's header: one hunk's lines, not the diff's.)"""
    sign = lines[i][:1]
    if sign not in (" ", "+", "-"):
        return None
    counted = (" ", "-") if sign == "-" else (" ", "+")
    before = 0
    for j in range(i - 1, -1, -1):
        line = lines[j]
        match = _HUNK.match(line)
        if match:
            return int(match.group(1 if sign == "-" else 2)) + before
        if line[:1] not in (" ", "+", "-", "\\"):
            return None  # (a header: i is not in a hunk)
        before += line[:1] in counted
    return None


def numbered(content: str, raw: str) -> str:
    """The content with new-file line numbers on its hunk lines. Lines are matched to raw lines
    by the gap lines' ranges; a line that is not a hunk line (a header, a gap, the marker) is
    left as it is."""
    numbers = new_numbers(raw)
    rows = raw.split("\n")
    out = []
    at = 0  # the raw line (from 0) the next shown line stands for
    for line in content.split("\n"):
        gap = GAP_LINE.match(line)
        if gap:
            at = int(gap.group(2) or gap.group(1))
            out.append(line)
            continue
        if at < len(rows) and line and (line == rows[at] or rows[at].startswith(line.split("... (")[0])):
            number = numbers[at]
            if number is not None:
                line = f"{number:>{WIDTH - 1}} {line}"
            elif line[:1] == "-" and not line.startswith("--- "):
                line = " " * WIDTH + line
            at += 1
        out.append(line)
    return "\n".join(out)
