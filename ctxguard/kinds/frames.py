"""The places a failure's report goes through, as `path:line`: what the bundle's links
(ctxguard.links) match against a diff's hunks; and which lines of a failure's text say where it
failed. One reading for every kind that reads failures (a log's tracebacks, a JUnit failure's
text)."""

from __future__ import annotations

import re
from collections.abc import Sequence

_FRAMES = (
    re.compile(r'^\s*File "([^"]+)", line (\d+)'),  # Python's traceback
    re.compile(r"^(\S+?\.\w+):(\d+):(?: in \S+| \w[\w.]*)?\s*$"),  # pytest: an entry, its crash line
    re.compile(r"^\s*at (?:\S+ )?\(?([^()\s]+?\.\w+):(\d+)(?::\d+)?\)?\s*$"),  # JavaScript, Java
    re.compile(r"^\s*(?:-->\s*)?([\w./\\-]+\.\w+):(\d+)(?::\d+)?(?::|\s*$)"),  # compilers, rustc, go
)


def frame_of(line: str) -> str | None:
    """The `path:line` a line names as a place of a failure, or None."""
    for pattern in _FRAMES:
        if found := pattern.match(line):
            return f"{found.group(1)}:{found.group(2)}"
    return None


def frames_in(text: str) -> list[str]:
    """Every place a failure's text names, in order, each once."""
    return list(dict.fromkeys(place for line in text.splitlines() if (place := frame_of(line))))


# The line a Python traceback ends with, unindented: the exception (`ValueError: step must be >= 1`).
PYTHON_EXCEPTION = re.compile(r"^(?:[A-Za-z_][\w.]*(?:Error|Exception|Failure|Exit|Interrupt)|AssertionError)\b")


def raised(text: str) -> str | None:
    """The exception a Python traceback's text ends with (its last such line), or None."""
    found = [line for line in text.splitlines() if PYTHON_EXCEPTION.match(line)]
    return found[-1].strip() if found else None


_PYTEST_CRASH = re.compile(r"^\S+?\.\w+:\d+: \w[\w.]*\s*$")  # pytest's crash line: `tests/x.py:9: AssertionError`


def where_it_failed(lines: Sequence[str]) -> list[int]:
    """Of a failure's text (its lines), those that say where it failed, in order: a Python
    traceback's innermost frame (`File "x.py", line 9, in test_y`) with the line of code under
    it; pytest's failing statement (`>   assert x == 2`, the last) and its crash line
    (`tests/x.py:9: AssertionError`). A text with neither: none."""
    found: set[int] = set()
    frames = [k for k, line in enumerate(lines) if _FRAMES[0].match(line)]
    if frames:
        k = frames[-1]
        found.add(k)
        if k + 1 < len(lines) and lines[k + 1][:1].isspace() and not _FRAMES[0].match(lines[k + 1]):
            found.add(k + 1)  # (its code, indented under it)
    statements = [k for k, line in enumerate(lines) if line.startswith(">")]
    crashes = [k for k, line in enumerate(lines) if _PYTEST_CRASH.match(line)]
    found.update(statements[-1:])
    found.update(crashes[-1:])
    return sorted(found)
