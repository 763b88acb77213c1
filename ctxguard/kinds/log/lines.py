"""One log line at a time: its level, whether a reader must see it, its template.

A passing test's or a progress line is never an error line; a CI runner's timestamp prefix is
read past; a line's numbers, ids and timestamps are normalised to spot repeats (`template`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Final

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Z0-9]")
# Level words and failure phrases. Python's re skips ahead fast only through a pattern that
# starts with plain literals, so LEVEL_HINT finds where one may start, the word boundary in
# front is checked by hand and _LEVEL_WORD confirms the rest (has_level).
LEVEL_WORDS: Final = (
    *("ERROR", "ERR", "WARN", "WARNING", "FATAL", "CRITICAL", "CRIT", "SEVERE", "PANIC", "EMERG", "ALERT"),
    *("FAILED", "FAILURE", "FAIL", "Error", "error", "Warning", "warning", "Fatal", "fatal", "Critical"),
    *("critical", "Panic", "panic", "Failed", "failed", "panicked at", "Segmentation fault", "AssertionError"),
    *("##[error]", "##[warning]"),
)
LEVEL_HINT = re.compile("|".join(map(re.escape, LEVEL_WORDS)))
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


def unstamped(line: str) -> str:
    """The line without a CI runner's timestamp in front."""
    stamp = CI_STAMP.match(line) if line[:1].isdigit() else None
    return line[stamp.end() :] if stamp else line


# A passing test or a progress line: never an error line, whatever words its title holds
# (`✓ when unknown option then error`, `test_error_path PASSED [ 42%]`, `--- PASS:`, `... ok`).
PASSING = re.compile(
    r"^\s*(?:[✓✔√]\s|PASS\s|--- PASS:|ok\s+\S+\s+[\d.]+s|test \S+ \.\.\. ok$|\w+ \([\w.]+\) \.\.\. ok$)"
    r"|\sPASSED(?:\s+\[\s*\d+%\])?\s*$|\s(?:XFAIL|XPASS|SKIPPED)(?:\s+\[\s*\d+%\])?\s*$"
)
# A test runner's progress line: `tests/test_x.py ....F..s [ 42%]`, `........ [100%]` (pytest).
_PROGRESS = re.compile(r"^(?:\S+ )?[.sxXEFfp]+\s*\[\s*\d+%\]\s*$")


def passing(line: str) -> bool:
    """A passing test's line or a progress line: never what a reader came for, nor the context
    of a line that is."""
    hinted = _hinted(line)
    if not hinted and "ok" not in line:
        return False  # (most lines: no pattern tried)
    line = unstamped(line)
    # Only three forms hold `ok` and none of the hints: go's `ok  pkg 0.1s` at the line's start,
    # libtest's `test name ... ok` and unittest's `name (module.Class.name) ... ok`; `ok` inside
    # a word (`token`, `lookup`) is none of them.
    if not hinted and not (line.lstrip().startswith("ok") or "... ok" in line):
        return False
    return PASSING.search(line) is not None or _PROGRESS.match(line) is not None


def _hinted(line: str) -> bool:
    """A line holding a word every passing form but the two with `ok` holds. (Plain `in` tests:
    asked of every line of a log, where a generator over a tuple of hints costs four times as
    much.)"""
    return (
        "%]" in line
        or "PASS" in line
        or "XFAIL" in line
        or "SKIPPED" in line
        or "✓" in line
        or "✔" in line
        or "√" in line
    )


# A linter's finding without a level word: `app.py:10:5: F401 'os' imported but unused` (ruff);
# a test runner's failure header or count: jest's `● Suite › test`, mocha's `2 failing`;
# pytest's `path:line: TypeError` under a failure.
_LINT_CODE = re.compile(r"^\S+:\d+:\d+: [A-Z]{1,4}\d{2,4}\b")
_FAILING = re.compile(r"^\s*(?:● \S|\d+ failing\b)|^\S+:\d+: (?:\w+\.)*\w*(?:Error|Exception|Failure)\b")
# Where such a line may be, each form searched on its own (ctxguard.kinds.log.model): in one
# alternation Python's re tries every form at every position of the text; alone, each is found
# from its first literal (`2 failing`: from ` failing`, the digit checked behind it).
OTHER_HINTS = (
    re.compile(r":\d+:\d+: [A-Z]{1,4}\d{2,4}\b"),
    re.compile(r"● \S"),
    re.compile(r" failing\b(?<=\d failing)"),
    re.compile(r":\d+: (?:\w+\.)*\w*(?:Error|Exception|Failure)\b"),
)
# A run's summary: `5 failed, 623 passed` (pytest), `2 failing` (mocha), `Found 3 errors` (mypy,
# tsc, ruff), `3 problems` (eslint), `2 errors generated.` (clang), `FAILED (failures=2)`
# (unittest), `Failures: 2` (maven surefire), `test result: FAILED.` (cargo), `Tests: 1 failed` (jest).
SUMMARY = re.compile(
    r"\b\d+ (?:failed|failing|passed|passing|errors?|problems?)\b|\bfailures=\d|\bFailures: \d"
    r"|^\s*(?:test result: |Tests?:\s+\d)"
)
# pytest's error lines under a failure (`E   …`): the first of a run says what failed, the rest
# go on (a diff of two values, a long message).
PYTEST_E = re.compile(r"^E\s")
# What Go's testing package reports of a failing test, above its `--- FAIL:` line (`    cart_test.go:31:
# Total() = 100, want 107`): at a line's start (the log's line-start scan looks for it too).
GO_TEST_SAYS = r"\s+[\w.-]+_test\.go:\d+: "
# Inside a failure: pytest's `>` line (the failing statement), jest's Expected/Received, Go's.
FAILURE_DETAIL = re.compile(rf"^(?:>\s|\s*(?:Expected|Received)(?: [\w ]+)?: |{GO_TEST_SAYS})")


# A diagnostic at a place: `x.c:132:56: error: …` (gcc, clang), `fatal error:`, `x.py:56: error: …`
# (mypy, without its columns): one finding among others, not how the run ended.
DIAGNOSTIC = re.compile(r"^\S+:\d+(?::\d+)?: (?:fatal )?error\b")
# A compiler's source gutter under a diagnostic: ` 1069 |     code` and `      |   ^~~~~` (gcc,
# clang, rustc): the code it quotes, not what happened.
_GUTTER = re.compile(r"^\s*\d*\s*\|")
# … and a note or help that goes with the diagnostic before it (`x.c:3:1: note: …`, `= note:`).
_ATTACHED = re.compile(r"^\S+:\d+(?::\d+)?: note: |^\s*= (?:note|help): ")
# A CI runner's word that the step's command exited non-zero (GitHub Actions' `##[error]Process
# completed with exit code 1.`, GitLab's `ERROR: Job failed: exit code 1`, Jenkins' `script
# returned exit code 1`): every failed job ends with it, so it is not how this run ended.
EXIT_STATUS = re.compile(r"(?:Process completed with|Job failed:|script returned) exit code \d+")


# Where a diagnostic is, on the line under its message: ` --> src/main.rs:2:5` (rustc, ruff's
# full form, miette): the line above it is the diagnostic (`F821 Undefined name `x``, which
# holds no level word).
ARROW = re.compile(r"^[ \t]*--> \S+:\d+", re.M)

# The rule a diagnostic reports, where its tool names one: a linter's code after the place
# (`x.py:3:1: F821 …`: ruff, flake8) or first (`F821 Undefined name`: ruff's full form), a
# bracketed code at the end (`[name-defined]`: mypy; `[-Wshadow]`: gcc), a rule id after eslint's
# level (`  3:5  error  'x' is not defined  no-undef`), TypeScript's code after its level
# (`a.ts(3,7): error TS2322: …`, `a.ts:3:7 - error TS2322: …`), pyright's rule in parentheses
# at the end (`(reportUndefinedVariable)`). (Not rustc's `error[E0308]`: a compiler's errors are
# read in order, the first the likeliest cause of the rest.)
_RULES = (
    re.compile(r"^\S+:\d+:\d+: ([A-Z]{1,4}\d{2,4})\b"),
    re.compile(r"^([A-Z]{1,4}\d{2,4})(?: \[\*\])? \S"),
    re.compile(r"\[([\w-]+)\]\s*$"),
    re.compile(r"^\s+\d+:\d+\s+(?:error|warning)\s+.*\s([a-z@][\w/@-]*)\s*$"),
    re.compile(r"^\S+(?:\(\d+,\d+\):|:\d+:\d+ -) (?:error|warning) (TS\d+):"),
    re.compile(r"\((report[A-Z]\w+)\)\s*$"),
)


def rule_of(line: str) -> str | None:
    """The rule a diagnostic line reports (its code), or None when it names none."""
    for pattern in _RULES:
        found = pattern.search(line)
        if found is not None:
            return found.group(1)
    return None


# A line of its own that starts a diagnostic or a note (`x.py:3:1: …`, `x.py:3: note: …`).
_AT_PLACE = re.compile(r"^\S+:\d+:")


def wrapped_rule(line: str, after: str) -> str | None:
    """The rule of a diagnostic whose message wraps onto the next line, `after` (mypy's --pretty
    at the terminal's width: `x.py:18:9: error: Incompatible types in assignment (expression
    has type "type[int]",` then `variable has type "…")  [assignment]`): the bracketed code that
    ends that line, which is not indented as the source quoted under a diagnostic is, nor a
    diagnostic or note of its own. None for a line that names its rule, or is no diagnostic."""
    if DIAGNOSTIC.match(line) is None or after.startswith(("  ", "\t")) or _AT_PLACE.match(after):
        return None
    if rule_of(line) is not None:
        return None
    found = _RULES[2].search(after)
    return found.group(1) if found is not None else None


def gutter(line: str) -> bool:
    """A compiler's source gutter line (` 1069 |     code`, `      |   ^~~~~`)."""
    return _GUTTER.match(line) is not None


def says(line: str) -> bool:
    """A line that says something on its own: it has a word, and it is not a compiler's source
    gutter, a note attached to a diagnostic or a CI runner's exit status (what a log's first
    and last line are, for its cut and its probes)."""
    return (
        _WORD_CHAR.search(line) is not None
        and not _GUTTER.match(line)
        and not _ATTACHED.match(line)
        and not ("exit code" in line and EXIT_STATUS.search(line))
    )


def has_level(line: str) -> bool:
    """An error/warning level word (whole word), a failure phrase, a CI error annotation or a
    single-letter level (logcat, glog); never a passing test's line."""
    line = unstamped(line)
    if PASSING.search(line):
        return False
    if line[:1].isalnum() and _LINT_CODE.match(line) or _FAILING.match(line):
        return True
    for hint in LEVEL_HINT.finditer(line):
        start = hint.start()
        if line[start] == "#" or not start or not _WORD_CHAR.match(line, start - 1):
            if _LEVEL_WORD.match(line, start):
                return True
    if line[:1] in (":", "E") and _LEVEL_AT_START.match(line) is not None:
        return True
    return LETTER_LEVEL.match(line) is not None


JSON_LEVEL = re.compile(r'"(?:level|severity|lvl|levelname|log\.level)"\s*:\s*"([^"]*)"', re.I)
_BAD_JSON_LEVELS = {"error", "err", "warn", "warning", "fatal", "critical", "crit", "panic", "emerg", "alert", "severe"}
SECTION = re.compile(r"^(?:={3,}|_{3,}|-{3,}) .* (?:={3,}|_{3,}|-{3,})$|^##\[group\]")
PY_TB_START = re.compile(r"^\s*Traceback \(most recent call last\):")
STACK_LINE = re.compile(r"^\s+(?:at |\.\.\. \d+ more|File \"|[\w./<>-]+:\d+)|^\s*Caused by:|^goroutine \d+")


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
        match = JSON_LEVEL.search(line)
        if match and match.group(1).lower() in _BAD_JSON_LEVELS:
            try:
                json.loads(line)
            except ValueError:
                return False
            return True
    return False


def template(line: str) -> str:
    """The line with numbers, hex ids and timestamps normalised, to spot repeats (a CI
    runner's timestamp in front left out: a cut shows the line without it)."""
    return _TEMPLATE.sub("#", unstamped(line.strip()))


_STAMPS = re.compile(CI_STAMP.pattern, re.M)


def unstamped_text(text: str) -> str:
    """unstamped() of every line of a text at once."""
    return _STAMPS.sub("", text)


def templates(text: str) -> str:
    """template() of every line of an already stripped text at once (no match spans lines)."""
    return _TEMPLATE.sub("#", unstamped_text(text))


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
        if PY_TB_START.match(line):
            self.in_trace = True
            return "start"
        if self.in_trace:
            if not line[:1].strip():
                return "inside"
            self.in_trace = False  # the first line starting in column 0 closes it
            if TB_FINAL.match(line):
                return "end"
        return "error" if self.important(line) else None
