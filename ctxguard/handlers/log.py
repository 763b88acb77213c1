"""Logs: errors, warnings and whole tracebacks kept; runs of other lines collapsed."""
from __future__ import annotations

import bisect
import itertools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ctxguard.handlers.base import RememberLast, clip, mentions
from ctxguard.plan import Plan, ended, ends, units
from ctxguard.tokens import Encoded, Tokenizer

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Z0-9]")
# Level words and failure phrases. Python's re skips ahead fast only through a pattern that
# starts with plain literals, so _LEVEL_HINT finds where one may start, the word boundary in
# front is checked by hand and _LEVEL_WORD confirms the rest (has_level).
_LEVEL_HINT = re.compile(
    r"ERROR|ERR|WARN|WARNING|FATAL|CRITICAL|CRIT|SEVERE|PANIC|EMERG|ALERT|FAILED|FAILURE|FAIL"
    r"|Error|error|Warning|warning|Fatal|fatal|Critical|critical|Panic|panic|Failed|failed"
    r"|panicked at|Segmentation fault|AssertionError|##\[error\]|##\[warning\]"
)
_LEVEL_WORD = re.compile(
    r"(?:ERROR|ERR|WARN|WARNING|FATAL|CRITICAL|CRIT|SEVERE|PANIC|EMERG|ALERT|FAILED|FAILURE|FAIL)\b"
    r"|(?:[Ee]rror|[Ww]arning|[Ff]atal|[Cc]ritical|[Pp]anic|[Ff]ailed)\b(?=[:\]!]|\s)"
    r"|(?:panicked at|Segmentation fault|AssertionError)\b"
    r"|##\[(?:error|warning)\]"
)
_LEVEL_AT_START = re.compile(r"::(?:error|warning)\b|E {2,}\S")
_WORD_CHAR = re.compile(r"\w")
# Single-letter levels at a line's start: Android logcat (threadtime `03-17 16:13:38.811  1702
# 2395 W Tag:` and brief `E/Tag( 123):`) and glog (`E1123 12:34:56.789012 …`); W, E, F(atal), A(ssert).
LETTER_LEVEL = re.compile(
    r"^(?:\d\d-\d\d \d\d:\d\d:\d\d\.\d+\s+\d+\s+\d+\s+[WEFA]\s|[WEF]\d{4} \d\d:\d\d:\d\d\.\d+\s"
    r"|[WEFA]/[^\s(:]+\s*\(\s*\d+\):)",
    re.M,
)


# A CI runner's timestamp before each line (GitHub Actions: `2024-05-14T09:12:31.1234567Z `).
CI_STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ")
# A passing test or a progress line: never an error line, whatever words its title holds
# (`✓ when unknown option then error`, `test_error_path PASSED [ 42%]`, `--- PASS:`, `... ok`).
PASSING = re.compile(r"^\s*(?:[✓✔√]\s|PASS\s|--- PASS:|ok\s+\S+\s+[\d.]+s|test \S+ \.\.\. ok$)"
                     r"|\sPASSED(?:\s+\[\s*\d+%\])?\s*$|\s(?:XFAIL|XPASS|SKIPPED)(?:\s+\[\s*\d+%\])?\s*$")
# A linter's finding without a level word: `app.py:10:5: F401 'os' imported but unused` (ruff);
# a test runner's failure header or count: jest's `● Suite › test`, mocha's `2 failing`;
# pytest's `path:line: TypeError` under a failure.
_LINT_CODE = re.compile(r"^\S+:\d+:\d+: [A-Z]{1,4}\d{2,4}\b")
_FAILING = re.compile(r"^\s*(?:● \S|\d+ failing\b)|^\S+:\d+: (?:\w+\.)*\w*(?:Error|Exception|Failure)\b")
_OTHER_HINT = re.compile(r":\d+:\d+: [A-Z]{1,4}\d{2,4}\b|● \S|\d failing\b|:\d+: (?:\w+\.)*\w*(?:Error|Exception|Failure)\b")
# Inside a failure: pytest's `>` line (the failing statement), jest's Expected/Received.
FAILURE_DETAIL = re.compile(r"^(?:>\s|\s*(?:Expected|Received)(?: [\w ]+)?: )")


def has_level(line: str) -> bool:
    """An error/warning level word (whole word), a failure phrase, a CI error annotation or a
    single-letter level (logcat, glog); never a passing test's line."""
    if line[:1].isdigit() and CI_STAMP.match(line):
        line = line[CI_STAMP.match(line).end():]  # type: ignore[union-attr]
    if PASSING.search(line):
        return False
    if line[:1].isalnum() and _LINT_CODE.match(line) or _FAILING.match(line):
        return True
    for hint in _LEVEL_HINT.finditer(line):
        start = hint.start()
        if line[start] == "#" or not start or not _WORD_CHAR.match(line, start - 1):
            if _LEVEL_WORD.match(line, start):
                return True
    if line[:1] in (":", "E") and _LEVEL_AT_START.match(line) is not None:
        return True
    return LETTER_LEVEL.match(line) is not None


_JSON_LEVEL = re.compile(r'"(?:level|severity|lvl|levelname|log\.level)"\s*:\s*"([^"]*)"', re.I)
_BAD_JSON_LEVELS = {"error", "err", "warn", "warning", "fatal", "critical", "crit", "panic",
                    "emerg", "alert", "severe"}
_SECTION = re.compile(r"^(?:={3,}|_{3,}|-{3,}) .* (?:={3,}|_{3,}|-{3,})$|^##\[group\]")
_PY_TB_START = re.compile(r"^\s*Traceback \(most recent call last\):")
_STACK_LINE = re.compile(r"^\s+(?:at |\.\.\. \d+ more|File \"|[\w./<>-]+:\d+)|^\s*Caused by:|^goroutine \d+")
EDGE = 10  # lines kept intact at each end of a log


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
_AT_LINE_START = re.compile(r"^(?:::|E  |={3}|_{3}|-{3}|##\[group\]|>\s|\s*(?:Expected|Received))", re.M)
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

    maybe = at(_LEVEL_HINT) | at(_JSON_LEVEL) | at(_TB_TEXT) | at(LETTER_LEVEL) | at(_OTHER_HINT)
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
        if _SECTION.match(lines[i]) or FAILURE_DETAIL.match(lines[i]):
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
    """Mark a Python traceback through its `Type: message` line, the first line in column 0
    after it (as Lines.kind reads it); return the index after it."""
    i = start
    while i < len(lines):
        line = lines[i]
        marks[i] = True
        if not line.startswith((" ", "\t")) and not _PY_TB_START.match(line):
            return i + 1
        i += 1
    return i


MAX_LINE = 2000  # characters of one line shown at most once a log is cut
CONTEXT = 2  # lines shown before the first occurrence of each error template
# How early a log's cut takes a line (lowest first), for the plan and the streaming pass alike.
ENDS = 0.0  # the first and the last line
ERROR = 1.0  # the first occurrence of an error template …
WARNING = 1.5  # … or of a warning template
TRACE = 2.0  # a traceback's start and last frames
MARKED = 2.5  # stack frames, sections, lines naming the task
BEFORE = 2.8  # the lines before the first occurrence of a template
EDGES = 3.0  # the first and last EDGE lines
LATER = 4.0  # repeats of a template, the rest of a traceback
REST = 6.0  # everything else, from the end backwards


def template_level(line: str) -> float:
    """WARNING for a warning line, else ERROR."""
    lowered = line.lower()
    return WARNING if "warn" in lowered and "error" not in lowered else ERROR


def occurrences(line: str, count: int) -> str:
    """The first line of a repeated template, with how often it occurs."""
    return line.rstrip("\r\n") + f"  ({count} occurrences)\n" if count > 1 else line


def plan(encoded: Encoded, tokenizer: Tokenizer, name: str = "", task_words: frozenset[str] = frozenset()) -> Plan:
    """A log as lines to pack. First taken, and kept by tier 2 whatever the room: the first and
    last line, the first occurrence of every error or warning template (with its count), and the
    last EDGE lines. Tier 2 also keeps every other error and warning line, or is not tier 2.
    Then each traceback's start and last frames (never without its `Type: message` end), stack
    frames, sections, the failing statement (pytest's `>`, jest's Expected/Received) and lines
    naming the task, a few lines before each first error; then the first EDGE lines (a run's
    banner); then repeats and the rest of the tracebacks; then everything else, from the end
    backwards. A passing test's line is never an error line, whatever its title says."""
    read = scan(encoded.text)
    lines = ended(list(read.lines))
    n = len(lines)
    shown = [line if len(line) <= MAX_LINE + 64 else clip(line, MAX_LINE) for line in lines]
    rank: list[tuple[float, int]] = [(REST, n - i) for i in range(n)]
    must = [False] * n
    every = [False] * n
    anchors: dict[int, tuple[int, ...]] = {}

    def lift(i: int, level: float, to: int | None = None) -> None:
        if (level, i) < rank[i]:
            rank[i] = (level, i)
        if to is not None and to != i and i not in anchors:
            anchors[i] = (to,)

    firsts: dict[str, int] = {}
    counts: dict[str, int] = {}
    trace: list[int] = []
    for i in sorted(read.kinds):
        kind = read.kinds[i]
        if kind in ("start", "inside"):
            trace.append(i)
            continue
        if kind == "end":
            for depth, j in enumerate(reversed(trace)):  # never shown without their end
                lift(j, TRACE if depth < 3 or j == trace[0] else LATER, i)
            trace = []
        key = template(lines[i])
        counts[key] = counts.get(key, 0) + 1
        every[i] = True  # tier 2 keeps every error and warning line, or it is not tier 2
        if key in firsts:
            lift(i, LATER)
            continue
        firsts[key] = i
        lift(i, template_level(lines[i]))
        must[i] = True
        for j in range(max(0, i - CONTEXT), i):
            lift(j, BEFORE, i)
    for key, i in firsts.items():
        shown[i] = occurrences(shown[i], counts[key])
    head = None  # stack frames, sections and task lines: each run shown with its first line
    for i, marked in enumerate(important_lines(encoded.text, task_words)):
        head = (i if head is None else head) if marked else None
        if marked and rank[i][0] > MARKED and read.kinds.get(i) not in ("start", "inside"):
            lift(i, MARKED, head)
    for i in range(min(EDGE, n)):  # a run's banner: after the failures' details
        lift(i, EDGES + 0.5)
    for i in range(max(0, n - EDGE), n):  # its end: the summary, the short test summary
        lift(i, EDGES)
        must[i] = True
    for order, i in enumerate(ends(lines)):
        rank[i], must[i] = (ENDS, order), True
    tier2 = [m or e for m, e in zip(must, every)]
    return Plan(units(lines, shown, rank, must, lambda i: anchors.get(i, ()), encoded, tokenizer),
                encoded.count, tier2_must=tier2)
