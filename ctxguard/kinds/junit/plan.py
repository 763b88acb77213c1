"""A JUnit report as its reader wants it: the failing and erroring testcases first, each with its
message and the first lines of its text, the counts, the skipped ones; passing testcases only
as counts. Tier 2 keeps every failing testcase's identity and message line and the totals; a
tier-3 cut takes failure texts after every failing testcase, and says how many it left out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

from ctxguard.kinds import rendered
from ctxguard.kinds import text as plain
from ctxguard.kinds.frames import where_it_failed
from ctxguard.kinds.junit.model import Case, JUnitDoc, Report
from ctxguard.kinds.rendered import Row, shorten
from ctxguard.plan import Plan
from ctxguard.tokens.base import Encoded, Tokenizer
from ctxguard.words import clipped, mentions, plural

# A failing testcase's line is two rows: its name, then where it is and what it says, so that a
# tight cut names every failing testcase before it gives any one's message.
ASKED: Final = 0.9  # the name of a failing testcase that names the task's words …
FAILING: Final = 1.0  # … of a failing or erroring testcase, in the report's order
SAYS: Final = 0.3  # where it is and what it says: this much after its name's level
# A testcase failing as one before it did, in another class (the same name and message: a test
# a mixin gives several classes): after every other failing testcase and its message.
AGAIN: Final = 1.35
MORE: Final = 1.4  # what each further failure of a testcase says (pytest's subtests)
TOTALS: Final = 1.5  # the run's counts
MESSAGE_TAIL: Final = 1.6  # the rest of a message on a testcase's row, past its first MESSAGE_HEAD characters
DETAILS: Final = 1.9  # the line that names a failure's text, with its text's first line …
FIRST_LINES: Final = 2.0  # … the lines that say where it failed (else the text's next ones)
SUITES: Final = 3.0  # each suite's counts
SKIPPED: Final = 4.0  # a skipped testcase, and why
REST_OF_TEXT: Final = 5.0  # the rest of a failure's text, up to TEXT_LINES
OUTPUT: Final = 6.0  # a failing testcase's <system-out>/<system-err>

TEXT_HEAD: Final = 3
TEXT_LINES: Final = 40
OUTPUT_LINES: Final = 20
LINE_CHARS: Final = 400
MESSAGE_CHARS: Final = 1000
SHORT_MESSAGE: Final = 320  # of a message on its testcase's row …
MESSAGE_HEAD: Final = 100  # … of which a tight cut shows this many first, for every failing testcase


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
    """The report's rows, in the order a reader reads them: every failing testcase, one line each
    (its message on it, once per distinct message: twenty tests failing of one cause are twenty
    names and one message; testcases of one class in a row under one line that names the class
    and its file, each with its line; what its further failures say under it), so that a tight
    cut keeps them as one run, those failing as one before them did in another class after the
    others (see again); the totals; each failure's text under its name; the suites' counts; the
    skipped testcases."""
    report = doc.report
    assert report is not None
    out: list[Row] = []
    failing, repeated = again(report.failing)
    said: set[str] = set()
    at: dict[int, int] = {}  # failing testcase -> its row
    group: tuple[str, str, str | None, bool] | None = None  # the class (outcome, file, repeats) rows run under
    header = -1
    for k, case in enumerate(failing):
        asked = bool(task_words) and mentions(f"{case.identity} {case.says}", task_words)
        head = "FAILED" if case.outcome == "failed" else "ERROR"
        level = ASKED if asked else AGAIN if k in repeated else FAILING
        line = f" ({case.line})" if case.line else ""
        reruns = f" [{plural(case.reruns, 'rerun')}]" if case.reruns else ""
        if group is None or group != (case.classname, head, case.file, k in repeated):
            group = None
            if (
                k + 1 < len(failing)
                and _same_class(case, failing[k + 1])
                and (k + 1 in repeated) == (k in repeated)
                and case.identity != case.name
            ):
                # Testcases of one class in a row: the class (and its file) once, the names under it.
                group, header = (case.classname, head, case.file, k in repeated), len(out)
                where = f" ({case.file})" if case.file else ""
                as_above = " as above" if k in repeated else ""
                out.append(Row(f"{head}{as_above} in {case.classname}{where}:\n", level, must=True))
        if group is not None:
            first, where = Row(f"  {case.name}", level, must=True, anchor=header, item=True), line
        else:
            first, where = (
                Row(f"{head} {case.identity}", level, must=True, item=True),
                f" ({case.place})" * bool(case.place),
            )
        at[k] = len(out)
        message = shorten(case.says, SHORT_MESSAGE) if case.says and case.says not in said else ""
        said.add(case.says)
        # Its name, then the rest of its line: where it is, its reruns, what it says.
        lead = f"{where}{reruns}".lstrip()
        rest = f"{lead}: {message}" if lead and message else lead or message
        if not rest:
            out.append(first._replace(text=first.text + "\n"))
        else:
            out.append(first._replace(text=first.text + (" " if lead else ": ")))
            head, tail = _head(rest)
            left = clipped(case.says, SHORT_MESSAGE) if message else 0  # (said at the end of the rest)
            text, here = (head, 0) if tail else (f"{rest}\n", left)
            out.append(Row(text, level + SAYS, must=True, anchor=at[k], clipped=here))
            if tail:  # (the rest of a long message: after every failing testcase's head of it)
                out.append(Row(f"{tail}\n", MESSAGE_TAIL, must=True, anchor=len(out) - 1, clipped=left))
        for more in dict.fromkeys(case.more):
            if more not in said:
                said.add(more)
                left = clipped(more, SHORT_MESSAGE)
                out.append(Row(f"  + {shorten(more, SHORT_MESSAGE)}\n", MORE, anchor=at[k], tier2=True, clipped=left))
    # The totals after the failing testcases: a tight cut keeps names first, and no gap line
    # stands between the ones it keeps.
    out.append(Row(totals(report), TOTALS, tier2=True))
    explained: set[str] = set()  # the messages whose text is shown first: one text a cause
    for k, case in enumerate(failing):
        out += _details(case, len(out), at[k], again=case.says in explained)
        explained.add(case.says)
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
            message = " ".join((case.message or "").split())
            why = f": {shorten(message, LINE_CHARS)}" if case.message else ""
            out.append(Row(f"SKIPPED {case.identity}{why}\n", SKIPPED, clipped=clipped(message, LINE_CHARS)))
    return out


def again(failing: Sequence[Case]) -> tuple[list[Case], set[int]]:
    """The failing testcases with those that fail as one before them did in another class (the
    same name and message: a test a mixin or a base class gives several classes, failing of one
    cause in each) after all the others, each part in the report's order; and where those are.
    A tight cut names each test that fails, and its cause, before it names it again."""
    seen: set[tuple[str, str]] = set()
    firsts: list[Case] = []
    repeats: list[Case] = []
    for case in failing:
        key = (case.name, case.says)
        (repeats if key in seen and case.identity != case.name else firsts).append(case)
        seen.add(key)
    return firsts + repeats, set(range(len(firsts), len(failing)))


def _head(rest: str) -> tuple[str, str]:
    """A row's place and message as its head (about MESSAGE_HEAD characters, ending with a space
    at a word's end) and the rest, or the whole and "" when it is short."""
    if len(rest) <= MESSAGE_HEAD + 20:
        return rest, ""
    cut = rest.rfind(" ", MESSAGE_HEAD // 2, MESSAGE_HEAD)
    cut = cut if cut > 0 else MESSAGE_HEAD
    return rest[:cut].rstrip() + " ", rest[cut:].lstrip()


def _same_class(case: Case, other: Case) -> bool:
    return (case.classname, case.outcome, case.file) == (other.classname, other.outcome, other.file)


def _details(case: Case, here: int, named: int, again: bool = False) -> list[Row]:
    """A failing testcase's text under a line that names it (with its message whole where its
    row clips it), that line and its text's first line one row (a name alone says nothing its
    row did not); then the text's next lines, then the rest of it and its output (each never
    without the testcase's row). A testcase that says what one before it said (`again`: twenty
    tests failing of one cause) has its text after every other's first lines."""
    says = case.says
    lines = [line.rstrip() for line in case.text.strip("\n").splitlines() if line.strip()]
    if lines and " ".join(lines[0].split()) in " ".join(says.split()):
        lines = lines[1:]  # (the message's own line: said already)
    output = [line.rstrip() for line in case.output.splitlines() if line.strip()]
    if not lines and not output and len(says) <= SHORT_MESSAGE:
        return []
    whole = len(says) > SHORT_MESSAGE
    head = f"--- {case.identity}{f': {shorten(says, MESSAGE_CHARS)}' if whole else ''}\n"
    left = clipped(says, MESSAGE_CHARS) if whole else 0
    if lines:
        head += f"  | {shorten(lines[0], LINE_CHARS)}\n"
        left += clipped(lines[0], LINE_CHARS)
    named_at, told_at = (REST_OF_TEXT, REST_OF_TEXT) if again else (DETAILS, FIRST_LINES)
    out = [Row(head, named_at, anchor=named, clipped=left)]
    told = [k for k in where_it_failed(lines) if k > 0] or range(1, TEXT_HEAD)
    before = 0  # the text's line shown last
    for k in [*_shown(len(lines), told), len(lines)]:  # (and past its end: what is left after the last)
        if k > before + 1:
            more = plural(k - before - 1, "more line")
            out.append(Row(f"  | ... ({more} of its text)\n", REST_OF_TEXT, anchor=here))
        if k < len(lines):
            level, line = told_at if k in told else REST_OF_TEXT, lines[k]
            out.append(Row(f"  | {shorten(line, LINE_CHARS)}\n", level, anchor=here, clipped=clipped(line, LINE_CHARS)))
        before = k
    for line in output[:OUTPUT_LINES]:
        out.append(Row(f"  > {shorten(line, LINE_CHARS)}\n", OUTPUT, anchor=here, clipped=clipped(line, LINE_CHARS)))
    if len(output) > OUTPUT_LINES:
        out.append(Row(f"  > ... ({len(output) - OUTPUT_LINES} more lines of its output)\n", OUTPUT, anchor=here))
    return out


def _shown(n: int, told: Sequence[int]) -> list[int]:
    """Which of a failure text's n lines after its first are shown, in order: all of them up to
    TEXT_LINES; of a longer text, its first TEXT_HEAD, its last ones (where a traceback ends)
    and those that say where it failed (`told`), TEXT_LINES or a few more in all."""
    if n <= TEXT_LINES:
        return list(range(1, n))
    return sorted({*range(1, TEXT_HEAD), *range(n - (TEXT_LINES - TEXT_HEAD), n), *told})


def plan(
    doc: JUnitDoc,
    encoded: Encoded,
    tokenizer: Tokenizer,
    task_words: frozenset[str] = frozenset(),
    focus: frozenset[int] = frozenset(),
) -> Plan:
    """The rendered report as a plan (ctxguard.kinds.rendered); a report that could not be read,
    as text, with a note."""
    if doc.report is None:
        found = plain.plan(plain.read(encoded.text, ""), encoded, tokenizer, task_words)
        return found.but(notes=(doc.refused,) if doc.refused else ())
    return rendered.plan(rows(doc, task_words), encoded, tokenizer, "failing testcase")
