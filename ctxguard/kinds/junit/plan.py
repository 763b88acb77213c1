"""A JUnit report as its reader wants it: the failing and erroring testcases first, each with its
message and the first lines of its text, the counts, the skipped ones; passing testcases only
as counts. Tier 2 keeps every failing testcase's identity and message line and the totals; a
tier-3 cut takes failure texts after every failing testcase, and says how many it left out."""

from __future__ import annotations

from collections import Counter
from typing import Final

from ctxguard.kinds import rendered
from ctxguard.kinds import text as plain
from ctxguard.kinds.junit.model import Case, JUnitDoc, Report
from ctxguard.kinds.rendered import Row, shorten
from ctxguard.plan import Plan
from ctxguard.tokens.base import Encoded, Tokenizer
from ctxguard.words import mentions, plural

ASKED: Final = 0.9  # a failing testcase that names the task's words
FAILING: Final = 1.0  # a failing or erroring testcase, with its message, in the report's order
TOTALS: Final = 1.5  # the run's counts
DETAILS: Final = 1.9  # the line that names a failure's text, with its whole message …
FIRST_LINES: Final = 2.0  # … the first TEXT_HEAD lines of the text
SUITES: Final = 3.0  # each suite's counts
SKIPPED: Final = 4.0  # a skipped testcase, and why
REST_OF_TEXT: Final = 5.0  # the rest of a failure's text, up to TEXT_LINES
OUTPUT: Final = 6.0  # a failing testcase's <system-out>/<system-err>

TEXT_HEAD: Final = 3
TEXT_LINES: Final = 40
OUTPUT_LINES: Final = 20
LINE_CHARS: Final = 400
MESSAGE_CHARS: Final = 1000
SHORT_MESSAGE: Final = 320  # of a message on its testcase's row


def totals(report: Report) -> str:
    """The run in one line: `JUnit report: 302 tests in 1 suite: 2 failed, 1 skipped, 299 passed`."""
    count = Counter(case.outcome for case in report.cases)
    suites = [s for s in report.suites if s.tests] or report.suites
    said = [f"{count['failed']} failed"] if count["failed"] else []
    said += [f"{count['error']} errors"] if count["error"] else []
    said += [f"{count['skipped']} skipped"] if count["skipped"] else []
    said.append(f"{count['passed']:,} passed")
    flaky = sum(1 for case in report.cases if case.reruns and case.outcome == "passed")
    said += [f"{flaky} flaky (passed on a rerun)"] if flaky else []
    return f"JUnit report: {plural(len(report.cases), 'test')} in {plural(len(suites), 'suite')}: {', '.join(said)}\n"


def rows(doc: JUnitDoc, task_words: frozenset[str] = frozenset()) -> list[Row]:
    """The report's rows, in the order a reader reads them: every failing testcase, one row each
    (its message on it, once per distinct message: twenty tests failing of one cause are twenty
    names and one message; testcases of one class in a row under one line that names the class
    and its file, each with its line), so that a tight cut keeps them as one run; the totals;
    each failure's text under its name; the suites' counts; the skipped testcases."""
    report = doc.report
    assert report is not None
    out: list[Row] = []
    failing = report.failing
    said: set[str] = set()
    at: dict[int, int] = {}  # failing testcase -> its row
    group: tuple[str, str, str | None] | None = None  # the class (and outcome, file) rows run under
    header = -1
    for k, case in enumerate(failing):
        asked = bool(task_words) and mentions(f"{case.identity} {case.says}", task_words)
        head = "FAILED" if case.outcome == "failed" else "ERROR"
        reruns = f" [{plural(case.reruns, 'rerun')}]" if case.reruns else ""
        message = f": {shorten(case.says, SHORT_MESSAGE)}" if case.says and case.says not in said else ""
        said.add(case.says)
        level = ASKED if asked else FAILING
        joined = k + 1 < len(failing) and _same_class(case, failing[k + 1])
        line = f" ({case.line})" if case.line else ""
        if group is not None and group == (case.classname, head, case.file):
            at[k] = len(out)
            out.append(Row(f"  {case.name}{line}{reruns}{message}\n", level, must=True, anchor=header, item=True))
            continue
        group = None
        if joined and case.classname and case.identity != case.name:
            # Testcases of one class in a row: the class (and its file) once, the names under it.
            group, header = (case.classname, head, case.file), len(out)
            where = f" ({case.file})" if case.file else ""
            out.append(Row(f"{head} in {case.classname}{where}:\n", level, must=True))
            at[k] = len(out)
            out.append(Row(f"  {case.name}{line}{reruns}{message}\n", level, must=True, anchor=header, item=True))
            continue
        where = f" ({case.place})" if case.place else ""
        at[k] = len(out)
        out.append(Row(f"{head} {case.identity}{where}{reruns}{message}\n", level, must=True, item=True))
    # The totals after the failing testcases: a tight cut keeps names first, and no gap line
    # stands between the ones it keeps.
    out.append(Row(totals(report), TOTALS, tier2=True))
    for k, case in enumerate(failing):
        out += _details(case, len(out), at[k])
    for suite in report.suites:
        if suite.tests:
            counts = [f"{suite.failed} failed"] * bool(suite.failed) + [f"{suite.errors} errors"] * bool(suite.errors)
            counts += [f"{suite.skipped} skipped"] * bool(suite.skipped)
            counts.append(f"{suite.tests - suite.failed - suite.errors - suite.skipped:,} passed")
            time = f" ({suite.time} s)" if suite.time else ""
            name = suite.name or "(unnamed)"
            out.append(Row(f"suite {name}: {plural(suite.tests, 'test')}, {', '.join(counts)}{time}\n", SUITES))
    for case in report.cases:
        if case.outcome == "skipped":
            why = f": {shorten(' '.join(case.message.split()), LINE_CHARS)}" if case.message else ""
            out.append(Row(f"SKIPPED {case.identity}{why}\n", SKIPPED))
    return out


def _same_class(case: Case, other: Case) -> bool:
    return (case.classname, case.outcome, case.file) == (other.classname, other.outcome, other.file)


def _details(case: Case, here: int, named: int) -> list[Row]:
    """A failing testcase's message whole and its text's first lines, then the rest of its text
    and its output, under a line that names it (itself never without the testcase's row)."""
    says = case.says
    lines = [line.rstrip() for line in case.text.strip("\n").splitlines() if line.strip()]
    if lines and " ".join(lines[0].split()) in " ".join(says.split()):
        lines = lines[1:]  # (the message's own line: said already)
    output = [line.rstrip() for line in case.output.splitlines() if line.strip()]
    if not lines and not output and len(says) <= SHORT_MESSAGE:
        return []
    full = f": {shorten(says, MESSAGE_CHARS)}" if says else ""
    out = [Row(f"--- {case.identity}{full}\n", DETAILS, anchor=named)]
    for k, line in enumerate(lines[:TEXT_LINES]):
        out.append(
            Row(f"  | {shorten(line, LINE_CHARS)}\n", FIRST_LINES if k < TEXT_HEAD else REST_OF_TEXT, anchor=here)
        )
    if len(lines) > TEXT_LINES:
        out.append(Row(f"  | ... ({len(lines) - TEXT_LINES} more lines of its text)\n", REST_OF_TEXT, anchor=here))
    for line in output[:OUTPUT_LINES]:
        out.append(Row(f"  > {shorten(line, LINE_CHARS)}\n", OUTPUT, anchor=here))
    if len(output) > OUTPUT_LINES:
        out.append(Row(f"  > ... ({len(output) - OUTPUT_LINES} more lines of its output)\n", OUTPUT, anchor=here))
    return out


def plan(doc: JUnitDoc, encoded: Encoded, tokenizer: Tokenizer, task_words: frozenset[str] = frozenset()) -> Plan:
    """The rendered report as a plan (ctxguard.kinds.rendered); a report that could not be read,
    as text, with a note."""
    if doc.report is None:
        found = plain.plan(plain.read(encoded.text, ""), encoded, tokenizer, task_words)
        return found.but(notes=(doc.refused,) if doc.refused else ())
    return rendered.plan(rows(doc, task_words), encoded, tokenizer, "failing testcase")
