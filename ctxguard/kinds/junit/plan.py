"""A JUnit report as its reader wants it: the failing and erroring testcases first, each with its
message and the first lines of its text, the counts, the skipped ones; passing testcases only
as counts. Tier 2 keeps every failing testcase's identity and message line and the totals; a
tier-3 cut takes failure texts after every failing testcase, and says how many it left out."""

from __future__ import annotations

from collections import Counter
from typing import Final

from ctxguard.kinds import rendered
from ctxguard.kinds.junit.model import Case, JUnitDoc, Report
from ctxguard.kinds.rendered import Row, shorten
from ctxguard.plan import Plan
from ctxguard.tokens.base import Encoded, Tokenizer
from ctxguard.words import mentions, plural

TOTALS: Final = 0.0  # the run's counts
FAILING: Final = 1.0  # a failing or erroring testcase, in the report's order …
MESSAGE: Final = 1.1  # … its message
ASKED: Final = 1.5  # a failure or a skipped test that names the task
FIRST_LINES: Final = 2.0  # the first TEXT_HEAD lines of a failure's text
SUITES: Final = 3.0  # each suite's counts
SKIPPED: Final = 4.0  # a skipped testcase, and why
REST_OF_TEXT: Final = 5.0  # the rest of a failure's text, up to TEXT_LINES
OUTPUT: Final = 6.0  # a failing testcase's <system-out>/<system-err>

TEXT_HEAD: Final = 3
TEXT_LINES: Final = 40
OUTPUT_LINES: Final = 20
LINE_CHARS: Final = 400
MESSAGE_CHARS: Final = 1000


def totals(report: Report) -> str:
    """The run in one line: `JUnit report: 302 tests in 1 suite: 2 failed, 1 skipped, 299 passed`."""
    count = Counter(case.outcome for case in report.cases)
    suites = [s for s in report.suites if s.tests] or report.suites
    said = [f"{count[o]} {word}" for o, word in (("failed", "failed"), ("error", "errors")) if count[o]]
    said += [f"{count['skipped']} skipped"] if count["skipped"] else []
    said.append(f"{count['passed']:,} passed")
    flaky = sum(1 for case in report.cases if case.reruns and case.outcome == "passed")
    said += [f"{flaky} flaky (passed on a rerun)"] if flaky else []
    return f"JUnit report: {plural(len(report.cases), 'test')} in {plural(len(suites), 'suite')}: {', '.join(said)}\n"


def rows(doc: JUnitDoc, task_words: frozenset[str] = frozenset()) -> list[Row]:
    """The report's rows, in the order a reader reads them."""
    report = doc.report
    assert report is not None
    out = [Row(totals(report), TOTALS, must=True)]
    failing = [case for case in report.cases if case.outcome in ("failed", "error")]
    for case in failing:
        asked = bool(task_words) and mentions(f"{case.identity} {case.says}", task_words)
        out += _failure(case, len(out), ASKED if asked else FAILING)
    for suite in report.suites:
        if suite.tests:
            said = [f"{suite.failed} failed"] * bool(suite.failed) + [f"{suite.errors} errors"] * bool(suite.errors)
            said += [f"{suite.skipped} skipped"] * bool(suite.skipped)
            said.append(f"{suite.tests - suite.failed - suite.errors - suite.skipped:,} passed")
            time = f" ({suite.time} s)" if suite.time else ""
            out.append(
                Row(
                    f"suite {suite.name or '(unnamed)'}: {plural(suite.tests, 'test')}, {', '.join(said)}{time}\n",
                    SUITES,
                )
            )
    for case in report.cases:
        if case.outcome == "skipped":
            why = f": {shorten(' '.join(case.message.split()), LINE_CHARS)}" if case.message else ""
            out.append(Row(f"SKIPPED {case.identity}{why}\n", SKIPPED))
    return out


def _failure(case: Case, at: int, level: float) -> list[Row]:
    """A failing testcase's rows: its identity (with its place and reruns), its message, its
    text's first lines, the rest of its text, its output."""
    where = f" ({case.place})" if case.place else ""
    reruns = f" [{plural(case.reruns, 'rerun')}]" if case.reruns else ""
    head = "FAILED" if case.outcome == "failed" else "ERROR"
    out = [Row(f"{head} {case.identity}{where}{reruns}\n", level, must=True, item=True)]
    says = case.says
    if says:
        out.append(Row(f"  {shorten(says, MESSAGE_CHARS)}\n", level + (MESSAGE - FAILING), must=True, anchor=at))
    lines = [line.rstrip() for line in case.text.strip("\n").splitlines() if line.strip()]
    if lines and " ".join(lines[0].split()) in " ".join(says.split()):
        lines = lines[1:]  # (the message's own line: said already)
    for k, line in enumerate(lines[:TEXT_LINES]):
        out.append(Row(f"  | {shorten(line, LINE_CHARS)}\n", FIRST_LINES if k < TEXT_HEAD else REST_OF_TEXT, anchor=at))
    if len(lines) > TEXT_LINES:
        out.append(Row(f"  | ... ({len(lines) - TEXT_LINES} more lines of its text)\n", REST_OF_TEXT, anchor=at))
    output = [line.rstrip() for line in case.output.splitlines() if line.strip()]
    for line in output[:OUTPUT_LINES]:
        out.append(Row(f"  > {shorten(line, LINE_CHARS)}\n", OUTPUT, anchor=at))
    if len(output) > OUTPUT_LINES:
        out.append(Row(f"  > ... ({len(output) - OUTPUT_LINES} more lines of its output)\n", OUTPUT, anchor=at))
    return out


def plan(doc: JUnitDoc, encoded: Encoded, tokenizer: Tokenizer, task_words: frozenset[str] = frozenset()) -> Plan:
    """The rendered report as a plan (ctxguard.kinds.rendered); a report that could not be read,
    as text, with a note."""
    if doc.report is None:
        from dataclasses import replace

        from ctxguard.kinds import text as plain

        found = plain.plan(plain.read(encoded.text, ""), encoded, tokenizer, task_words)
        return replace(found, notes=(f"{doc.refused}",))
    return rendered.plan(rows(doc, task_words), encoded, tokenizer, "failing testcase")
