"""Logs (CI, test runners, compilers, services): failures and errors first, every error line
kept by tier 2, passing tests and progress last."""

from __future__ import annotations

import re

from ctxguard.kinds.base import Facts, KindOf, missing_lines
from ctxguard.kinds.log.failures import covered, failures
from ctxguard.kinds.log.lines import strip_ansi, templates, unstamped, unstamped_text
from ctxguard.kinds.log.model import LogDoc, reports_of, scan, summary_of
from ctxguard.kinds.log.plan import plan
from ctxguard.kinds.log.probes import probes
from ctxguard.kinds.log.sink import LogSink
from ctxguard.options import Options
from ctxguard.tokens.base import Tokenizer


def read(text: str, name: str = "") -> LogDoc:
    """The log read once (ANSI codes removed, the kind of every line that has one)."""
    return scan(text)


def sink(tokenizer: Tokenizer, budget: int, options: Options) -> LogSink:
    """A big log's streaming sink (its first and last lines are lines that say something)."""
    return LogSink(tokenizer, budget, options, log=True)


_LOG_LINE = re.compile(
    r"^(\S*\d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}|\[?(INFO|DEBUG|WARN|WARNING|ERROR|TRACE)\b"
    r"|##\[|={5,} .* ={5,}$)",
    re.M,
)


def sniff(head: str, text: str) -> bool:
    """A third of the first 200 lines (at least 3) start with a time, a date, a level or a
    runner's banner."""
    lines = head.splitlines()[:200]
    return bool(lines) and sum(1 for line in lines if _LOG_LINE.match(line)) >= max(3, len(lines) // 3)


def known(doc: LogDoc) -> dict[str, str]:
    """The template of each raw error line, by line: a cut that shows the line shows its template."""
    return reports_of(doc)[1]


def facts(doc: LogDoc) -> Facts:
    """The failing tests' causes, and the other error lines with their counts."""
    found = failures(doc.lines)
    errors = tuple((line, count) for line, count in summary_of(reports_of(doc)) if not covered(line, found))
    return Facts(failures=tuple(found), errors=errors)


_OCCURRENCES = re.compile(r"  \(\d+ occurrences\)$", re.M)  # (a line shown once for its repeats)


def left_out(doc: LogDoc, content: str) -> tuple[str, int, int]:
    """The error and warning lines (every one tier 2 keeps) a cut does not show."""
    wanted = [unstamped(doc.lines[i]) for i in sorted(doc.important)]  # (as a cut shows them)
    shown = _OCCURRENCES.sub("", unstamped_text(strip_ansi(content)))
    return "error and warning lines", missing_lines(wanted, shown), len(wanted)


KIND = KindOf(
    "log",
    read,
    plan,
    probes,
    sink=sink,
    suffixes=(".log", ".out"),
    sniff=sniff,
    offload="log",
    clean=strip_ansi,
    known=known,
    facts=facts,
    left_out=left_out,
    templates=templates,
    first=(
        "the run's summary line (`5 failed, 623 passed`, `Tests: 1 failed`, `Found 3 errors`, `FAILED "
        "(failures=2)`, `test result:`), and the last line when it is an error line (not a compiler's "
        "last diagnostic: a compiler's errors go in order, the first the likeliest cause); the lines "
        "naming a failed test (`FAILED id - message`, `● Suite › test`, `--- FAIL: TestX`, `FAIL: test "
        "(module.Class)`), those nearest the run's summary first (one block with it, no gap line "
        "between), a test named twice (a `-v` line and the summary) once, by the line that says why (the "
        "summary's when neither does); then "
        'an error that marks a fresh mistake (a typo: `did you mean ‘delta’?`, `maybe "join"?`; a name '
        "that does not resolve: `F821 Undefined name`, `is not defined`; among a compiler's errors, read "
        "in order, only one that names a rule); then "
        "every error line (pytest's `E` lines that go on from the one before them after the others), then "
        "the last line otherwise, warnings, failing statements, the first line (a line that says "
        "something on its own: never a compiler's source gutter `  12 |   ^~~` or an attached `note:`); "
        "every error and warning line (each template's first at tier 3, with its count); tracebacks' "
        "ends, pytest's `>` and `E` lines, jest's `●` blocks with Expected/Received, `--- FAIL` with "
        "what Go's tests said above it (`    x_test.go:31: got 1, want 2`), "
        "`panicked at`, compiler and linter errors, a diagnostic of a rule the report names often (a "
        "project's standing `Q000` quotes, mypy's `[no-untyped-def]`, TypeScript's `TS7006`) after one "
        "of a rare rule (`F821`, `[name-defined]`, `TS2322`, pyright's `(reportArgumentType)`; a rule "
        "named on the line a wrapped message goes on to, mypy's `--pretty`, counts), a line above "
        "` --> place` (ruff's full form, rustc) as a diagnostic with its place right after it; a "
        "compiler's source gutter (` 112 |   code`, `    |   ^~~~`) only with the diagnostic above it"
    ),
    last=(
        "passing tests and progress lines (`✓ …`, `PASSED [ 42%]`, `--- PASS`), whatever words they hold; "
        "the run's banner; repeats"
    ),
)

__all__ = ["KIND", "LogDoc"]
