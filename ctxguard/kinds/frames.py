"""The places a failure's report goes through, as `path:line`: what the bundle's links
(ctxguard.links) match against a diff's hunks; and which lines of a failure's text say where it
failed. One reading for every kind that reads failures (a log's tracebacks, a JUnit failure's
text)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

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


# pytest's crash line under a failure: where it was raised (`tests/x.py:9: AssertionError`).
PYTEST_AT = re.compile(r"^(\S+?:\d+): \w[\w.]*$")


def where_it_failed(lines: Sequence[str]) -> list[int]:
    """Of a failure's text (its lines), those that say where it failed, in order: a Python
    traceback's innermost frame (`File "x.py", line 9, in test_y`) with the line of code under
    it; pytest's failing statement (`>   assert x == 2`, the last) and its crash line
    (`tests/x.py:9: AssertionError`). A text with neither: none."""
    frame = _last(lines, _FRAMES[0].match)
    found = [frame, _last(lines, lambda line: line.startswith(">")), _last(lines, PYTEST_AT.match)]
    if frame is not None and frame + 1 < len(lines):
        code = lines[frame + 1]
        if code[:1].isspace() and not _FRAMES[0].match(code):
            found.append(frame + 1)  # (its code, indented under it)
    return sorted({k for k in found if k is not None})


def _last(lines: Sequence[str], says: Callable[[str], object]) -> int | None:
    """The last of the lines that `says` holds for, or None."""
    return next((k for k in range(len(lines) - 1, -1, -1) if says(lines[k])), None)
