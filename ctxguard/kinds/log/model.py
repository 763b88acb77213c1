"""A log read once: its lines, the kind of each line that has one, its error lines and templates."""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ctxguard.kinds.log.lines import (
    ARROW,
    FAILURE_DETAIL,
    GO_TEST_SAYS,
    JSON_LEVEL,
    LETTER_LEVEL,
    LEVEL_WORDS,
    OTHER_HINTS,
    PY_TB_START,
    SECTION,
    STACK_LINE,
    Lines,
    is_important,
    strip_ansi,
    templates,
)
from ctxguard.literals import finder
from ctxguard.words import mentions

# Where a line that matters may be: text searched once at C speed, so only these lines and
# the tracebacks are read one by one in Python.
_TB_TEXT = re.compile(r"Traceback \(most recent call last\):")
_AT_LINE_START = re.compile(
    rf"^(?:::|E  |={{3}}|_{{3}}|-{{3}}|##\[group\]|>\s|\s*(?:Expected|Received)|{GO_TEST_SAYS})", re.M
)
# Line breaks other than \n and \r\n: where ^ (re.M) and str.splitlines disagree.
_ODD_BREAKS = re.compile(r"[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029](?<!\r(?=\n))")


def lines_at(pattern: re.Pattern[str], text: str, starts: list[int], after: int = 0, first: bool = False) -> set[int]:
    """The lines (by their starts in text, and last its length) that hold a match of pattern:
    one hit is enough, the search goes on from the next line. With `after` (1: a pattern of a
    line's start as after_break writes it), each match's line is the one `after` characters on,
    and the search goes on that many characters before the next line; `first`: the first line
    is one too (where no line feed comes before it)."""
    found: set[int] = {0} if first and len(starts) > 1 else set()
    search, pos, lines = pattern.search, starts[1] - after if found else 0, len(starts) - 1
    while (match := search(text, pos)) is not None:
        line = bisect.bisect_right(starts, match.start() + after) - 1
        if line >= lines:  # (a match at the text's very end: no line)
            break
        found.add(line)
        pos = starts[line + 1] - after  # (the next line, or the line feed before it)
    return found


@functools.cache
def after_break(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """A pattern of a line's start (`^…`, re.M, one `^` in front) as a line feed and the rest."""
    assert pattern.pattern.startswith("^") and pattern.flags & re.M
    return re.compile("\n" + pattern.pattern[1:], pattern.flags)


EDGE = 10  # lines kept intact at each end of a log


@dataclass(frozen=True)
class Scan:
    """A whole log text read once: its lines (ends kept, ANSI codes removed), the kind of every
    line that has one (as Lines.kind says, in order), and which lines are important."""

    lines: list[str]
    kinds: dict[int, str]
    important: frozenset[int]
    marked: frozenset[int]  # lines that may be sections or CI annotations (checked later)


def scan(text: str) -> Scan:
    clean = strip_ansi(text)
    lines = clean.splitlines(keepends=True)
    if _ODD_BREAKS.search(clean):  # rare: read every line
        return _scan_lines(lines, range(len(lines)), range(len(lines)))
    starts = list(itertools.accumulate(map(len, lines), initial=0))

    def at(pattern: re.Pattern[str]) -> set[int]:
        return lines_at(pattern, clean, starts)

    def at_start(pattern: re.Pattern[str]) -> set[int]:
        return lines_at(after_break(pattern), clean, starts, after=1, first=pattern.match(clean) is not None)

    maybe = {bisect.bisect_right(starts, start) - 1 for start in finder(LEVEL_WORDS)(clean)}  # (one scan, compiled)
    maybe |= at(JSON_LEVEL) | at(_TB_TEXT) | at_start(LETTER_LEVEL) | set().union(*map(at, OTHER_HINTS))
    marked = at_start(_AT_LINE_START)
    located = {i - 1 for i in at_start(ARROW) if i and lines[i - 1].strip()}
    return _scan_lines(lines, sorted(maybe | marked | located), sorted(marked), located)


def _scan_lines(lines: list[str], maybe: Sequence[int], marked: Sequence[int], located: set[int] | None = None) -> Scan:
    """`located`: lines that sit above a diagnostic's ` --> place` line: diagnostics too."""
    if located is None:
        located = {i - 1 for i, line in enumerate(lines) if i and ARROW.match(line) and lines[i - 1].strip()}
    important = frozenset(i for i in maybe if i in located or is_important(lines[i]))
    # Every important line is among `maybe`, so the reader need not ask is_important again.
    reader = Lines({lines[i] for i in important}.__contains__)
    kinds: dict[int, str] = {}
    resume = 0
    for i in maybe:
        if i < resume:
            continue  # read inside a traceback already
        j = i
        while j < len(lines):  # this line, and on to the end of a traceback it opens
            kind = reader.kind(lines[j])
            if kind is not None:
                kinds[j] = kind
            j += 1
            if not reader.in_trace:
                break
        resume = j
    return Scan(lines, kinds, important, frozenset(marked))


def reports_of(read: Scan) -> tuple[list[str], dict[str, str]]:
    """The error and warning lines of a log in order (every traceback's last line included),
    and the template of each distinct one."""
    reported = [read.lines[i].splitlines()[0] for i in sorted(read.kinds) if read.kinds[i] in ("end", "error")]
    distinct = list(dict.fromkeys(reported))  # none holds a "\n"
    keys = dict(zip(distinct, templates("\n".join([line.strip() for line in distinct])).split("\n")))
    return reported, keys


def summary_of(found: tuple[list[str], dict[str, str]]) -> list[tuple[str, int]]:
    """Each distinct error/warning template: its first line and how often it occurs.

    Includes the final `ExceptionType: message` line of every Python traceback.
    """
    first: dict[str, str] = {}
    counts: dict[str, int] = {}
    reported, keys = found
    for line in reported:
        key = keys[line]
        if key not in first:
            first[key] = line
        counts[key] = counts.get(key, 0) + 1
    return [(first[key], counts[key]) for key in first]


def important_lines(text: str, task_words: frozenset[str] = frozenset()) -> list[bool]:
    """Which lines of scan(text) a reader must see: errors, warnings, stack traces, sections."""
    return marks(scan(text), task_words)


def marks(read: Scan, task_words: frozenset[str] = frozenset()) -> list[bool]:
    """Which lines of a read log a reader must see (see important_lines)."""
    lines = read.lines
    found = [False] * len(lines)
    for i in read.important:
        found[i] = True
    for i in read.marked:
        if SECTION.match(lines[i]) or FAILURE_DETAIL.match(lines[i]):
            found[i] = True
    if task_words:
        for i, line in enumerate(lines):
            if mentions(line, task_words):
                found[i] = True
    resume = 0
    for start in sorted(i for i, kind in read.kinds.items() if kind == "start"):
        if start >= resume:
            resume = _mark_traceback(lines, start, found)
    for i in [i for i, mark in enumerate(found) if mark]:
        j = i + 1  # Java/Go/JS stack frames under a marked line
        while j < len(lines) and not found[j] and STACK_LINE.match(lines[j]):
            found[j] = True
            j += 1
    return found


def _mark_traceback(lines: list[str], start: int, marks: list[bool]) -> int:
    """Mark a Python traceback through its `Type: message` line, the first line in column 0
    after it (as Lines.kind reads it); return the index after it."""
    i = start
    while i < len(lines):
        line = lines[i]
        marks[i] = True
        if not line.startswith((" ", "\t")) and not PY_TB_START.match(line):
            return i + 1
        i += 1
    return i


LogDoc = Scan  # a log as its kind reads it
