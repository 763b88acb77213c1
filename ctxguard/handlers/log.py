"""Logs: errors, warnings and whole tracebacks kept; runs of other lines collapsed."""
from __future__ import annotations

import bisect
import itertools
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from ctxguard.handlers.base import Context, RememberLast, collapse, mentions, plural

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Z0-9]")
# Level words and failure phrases. Python's re skips ahead fast only through a pattern that
# starts with plain literals, so _LEVEL_HINT finds where one may start, the word boundary in
# front is checked by hand and _LEVEL_WORD confirms the rest (has_level).
_LEVEL_HINT = re.compile(
    r"ERROR|ERR|WARN|WARNING|FATAL|CRITICAL|CRIT|SEVERE|PANIC|EMERG|ALERT|FAILED|FAILURE"
    r"|Error|error|Warning|warning|Fatal|fatal|Critical|critical|Panic|panic|Failed|failed"
    r"|panicked at|Segmentation fault|AssertionError|##\[error\]|##\[warning\]"
)
_LEVEL_WORD = re.compile(
    r"(?:ERROR|ERR|WARN|WARNING|FATAL|CRITICAL|CRIT|SEVERE|PANIC|EMERG|ALERT|FAILED|FAILURE)\b"
    r"|(?:[Ee]rror|[Ww]arning|[Ff]atal|[Cc]ritical|[Pp]anic|[Ff]ailed)\b(?=[:\]!]|\s)"
    r"|(?:panicked at|Segmentation fault|AssertionError)\b"
    r"|##\[(?:error|warning)\]"
)
_LEVEL_AT_START = re.compile(r"::(?:error|warning)\b|E {2,}\S")
_WORD_CHAR = re.compile(r"\w")


def has_level(line: str) -> bool:
    """An error/warning level word (whole word), a failure phrase or a CI error annotation."""
    for hint in _LEVEL_HINT.finditer(line):
        start = hint.start()
        if line[start] == "#" or not start or not _WORD_CHAR.match(line, start - 1):
            if _LEVEL_WORD.match(line, start):
                return True
    return line[:1] in (":", "E") and _LEVEL_AT_START.match(line) is not None


_JSON_LEVEL = re.compile(r'"(?:level|severity|lvl|levelname|log\.level)"\s*:\s*"([^"]*)"', re.I)
_BAD_JSON_LEVELS = {"error", "err", "warn", "warning", "fatal", "critical", "crit", "panic",
                    "emerg", "alert", "severe"}
_SECTION = re.compile(r"^(?:={3,}|_{3,}|-{3,}) .* (?:={3,}|_{3,}|-{3,})$|^##\[group\]")
_PY_TB_START = re.compile(r"^\s*Traceback \(most recent call last\):")
_PY_TB_END = re.compile(r"^\s*[\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Fault|error)\b.*$")
_STACK_LINE = re.compile(r"^\s+(?:at |\.\.\. \d+ more|File \"|[\w./<>-]+:\d+)|^\s*Caused by:|^goroutine \d+")
EDGE = 10  # lines kept intact at each end of a log


@dataclass(frozen=True)
class _Level:
    min_run: int  # runs of ordinary lines shorter than this stay
    repeats: int | None  # identical important templates kept at most this many times
    max_line: int  # important lines longer than this are cut (with a count)


_LEVELS = (
    _Level(min_run=3, repeats=None, max_line=10**9),
    _Level(min_run=1, repeats=None, max_line=10**9),
    _Level(min_run=1, repeats=3, max_line=10**9),
    _Level(min_run=1, repeats=1, max_line=2000),
    _Level(min_run=1, repeats=1, max_line=400),
)
# Every branch starts with a digit or a-f: the lookahead lets the engine pass over other
# positions without trying each branch (~17 % faster on the corpus logs, same matches).
_TEMPLATE = re.compile(r"(?=[\da-f])(?:0x[0-9a-fA-F]+|\d+|[0-9a-f]{8,})")


def strip_ansi(text: str) -> str:
    """Remove colour and cursor escape codes."""
    return ANSI.sub("", text) if "\x1b" in text else text


def is_important(line: str) -> bool:
    """Error, warning or failure lines (whole words), including JSON-lines levels."""
    if has_level(line):
        return True
    if line.startswith("{") and '"' in line:
        match = _JSON_LEVEL.search(line)
        if match and match.group(1).lower() in _BAD_JSON_LEVELS:
            try:
                json.loads(line)
            except ValueError:
                return False
            return True
    return False


def template(line: str) -> str:
    """The line with numbers, hex ids and timestamps normalised, to spot repeats."""
    return _TEMPLATE.sub("#", line.strip())


def templates(text: str) -> str:
    """template() of every line of an already stripped text at once (no match spans lines)."""
    return _TEMPLATE.sub("#", text)


# The line that ends a Python traceback: `package.ExceptionType: message` (or the bare name).
TB_FINAL = re.compile(r"^[A-Za-z_][\w.]*(?::\s.*|:)?$")


class Lines:
    """Reads log lines in order and says what each one is, for the probes, the salient cut,
    the streaming pass and the digest alike:

    "start" opens a Python traceback, "inside" is within one, "end" is the `Type: message` line
    that closes it, "error" is an error or warning line elsewhere, None is anything else.
    """

    def __init__(self, important: Callable[[str], bool] = is_important) -> None:
        self.in_trace = False
        self.important = important

    def kind(self, line: str) -> str | None:
        if _PY_TB_START.match(line):
            self.in_trace = True
            return "start"
        if self.in_trace:
            if not line[:1].strip():
                return "inside"
            self.in_trace = False  # the first line starting in column 0 closes it
            if TB_FINAL.match(line):
                return "end"
        return "error" if self.important(line) else None


# Where a line that matters may be: text searched once at C speed, so only these lines and
# the tracebacks are read one by one in Python.
_TB_TEXT = re.compile(r"Traceback \(most recent call last\):")
_AT_LINE_START = re.compile(r"^(?:::|E  |={3}|_{3}|-{3}|##\[group\])", re.M)
# Line breaks other than \n and \r\n: where ^ (re.M) and str.splitlines disagree.
_ODD_BREAKS = re.compile(r"[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029](?<!\r(?=\n))")


@dataclass(frozen=True)
class Scan:
    """A whole log text read once: its lines (ends kept, ANSI codes removed), the kind of every
    line that has one (as Lines.kind says, in order), and which lines are important."""

    lines: list[str]
    kinds: dict[int, str]
    important: frozenset[int]
    marked: frozenset[int]  # lines that may be sections or CI annotations (checked later)


def _scan(text: str) -> Scan:
    clean = strip_ansi(text)
    lines = clean.splitlines(keepends=True)
    if _ODD_BREAKS.search(clean):  # rare: read every line
        return _scan_lines(lines, range(len(lines)), range(len(lines)))
    starts = list(itertools.accumulate(map(len, lines), initial=0))

    def at(pattern: re.Pattern[str]) -> set[int]:
        found, search, pos = set(), pattern.search, 0
        while (match := search(clean, pos)) is not None:
            line = bisect.bisect_right(starts, match.start()) - 1
            found.add(line)
            pos = starts[line + 1]  # one hit is enough: go on from the next line
        return found

    maybe = at(_LEVEL_HINT) | at(_JSON_LEVEL) | at(_TB_TEXT)
    marked = at(_AT_LINE_START)
    return _scan_lines(lines, sorted(maybe | marked), sorted(marked))


def _scan_lines(lines: list[str], maybe: Sequence[int], marked: Sequence[int]) -> Scan:
    important = frozenset(i for i in maybe if is_important(lines[i]))
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


scan = RememberLast(_scan)  # one read of a log for the probes, the digest, the handler and the cut


def _reports(text: str) -> tuple[list[str], dict[str, str]]:
    """The error and warning lines of a log in order (every traceback's last line included),
    and the template of each distinct one."""
    read = scan(text)
    reported = [read.lines[i].splitlines()[0] for i in sorted(read.kinds) if read.kinds[i] in ("end", "error")]
    distinct = list(dict.fromkeys(reported))  # none holds a "\n"
    keys = dict(zip(distinct, templates("\n".join([line.strip() for line in distinct])).split("\n")))
    return reported, keys


# Asked by the summary and by the probes' check of a compressed content: computed once.
reports = RememberLast(_reports)


def line_templates(text: str) -> dict[str, str]:
    """The template of each distinct error or warning line of a log."""
    return reports(text)[1]


def _error_summary(text: str) -> list[tuple[str, int]]:
    """Each distinct error/warning template: its first line and how often it occurs.

    Includes the final `ExceptionType: message` line of every Python traceback.
    """
    first: dict[str, str] = {}
    counts: dict[str, int] = {}
    reported, keys = reports(text)
    for line in reported:
        key = keys[line]
        if key not in first:
            first[key] = line
        counts[key] = counts.get(key, 0) + 1
    return [(first[key], counts[key]) for key in first]


# Asked by the digest and by the probes about the same log text: computed once.
error_summary = RememberLast(_error_summary)


def important_lines(text: str, task_words: frozenset[str] = frozenset()) -> list[bool]:
    """Which lines of scan(text) a reader must see: errors, warnings, stack traces, sections."""
    read = scan(text)
    lines = read.lines
    marks = [False] * len(lines)
    for i in read.important:
        marks[i] = True
    for i in read.marked:
        if _SECTION.match(lines[i]):
            marks[i] = True
    if task_words:
        for i, line in enumerate(lines):
            if mentions(line, task_words):
                marks[i] = True
    resume = 0
    for start in sorted(i for i, kind in read.kinds.items() if kind == "start"):
        if start >= resume:
            resume = _mark_traceback(lines, start, marks)
    for i in [i for i, mark in enumerate(marks) if mark]:
        j = i + 1  # Java/Go/JS stack frames under a marked line
        while j < len(lines) and not marks[j] and _STACK_LINE.match(lines[j]):
            marks[j] = True
            j += 1
    return marks


def _mark_traceback(lines: list[str], start: int, marks: list[bool]) -> int:
    """Mark a Python traceback through its `Type: message` line (and chained ones after
    "During handling ..."); return the index after it."""
    i = start
    while i < len(lines):
        line = lines[i]
        marks[i] = True
        if not line.startswith((" ", "\t")) and not _PY_TB_START.match(line):
            go_on = not _PY_TB_END.match(line) and bool(line.strip()) and i + 1 < len(lines)
            if not go_on and not line.startswith(("During handling", "The above exception")):
                return i + 1
        i += 1
    return i


class LogHandler:
    """Head and tail intact; in between, only what went wrong."""

    name = "log"

    def candidates(self, text: str, ctx: Context) -> Iterator[str]:
        lines = scan(text).lines
        if len(lines) <= 2 * EDGE:
            return
        important = important_lines(text, ctx.task_words)
        for level in _LEVELS:
            yield "".join(_render(lines, important, level))

    def validate(self, raw: str, compressed: str) -> str | None:
        return None


def _render(lines: list[str], important: list[bool], level: _Level) -> list[str]:
    keep = list(important)
    shown = list(lines)
    seen: dict[str, int] = {}
    for i in range(EDGE, len(lines) - EDGE):
        if not keep[i]:
            continue
        if level.repeats is not None:
            key = template(lines[i])
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > level.repeats and not _PY_TB_END.match(lines[i]):
                keep[i] = False
                continue
        if len(lines[i]) > level.max_line:
            cut = len(lines[i]) - level.max_line
            shown[i] = f"{lines[i][: level.max_line]}... ({cut} chars omitted)\n"
    for i in list(range(EDGE)) + list(range(len(lines) - EDGE, len(lines))):
        keep[i] = True
    def marker(run: range) -> str:
        repeats = sum(1 for i in run if important[i])
        if not repeats:
            return f"... ({plural(len(run), 'info line')} omitted)\n"
        return f"... ({plural(len(run), 'line')} omitted, {repeats} of them repeated warnings/errors)\n"

    return collapse(shown, keep, marker, level.min_run)
