"""A JUnit XML report read once, safely: its suites and testcases as data.

Every runner writes its own dialect of the format: pytest (`--junitxml`, with `file` and `line`
under `junit_family=xunit1`), jest-junit and mocha-junit-reporter (the failure's text is the
stack, often without a `message`), Maven Surefire and Gradle (`TEST-*.xml`, `<properties>`,
`<rerunFailure>`/`<flakyFailure>` for flaky reruns), go-junit-report and gotestsum, cargo-nextest,
PHPUnit (nested `<testsuite>`s, `file`/`line`/`class`). All are read the same way: a
`<testcase>` with a `<failure>` or an `<error>` failed, one with `<skipped>` was skipped, any
other passed (a flaky one passed on a rerun, said).

The parser is expat with everything that reaches beyond the file turned off: a document type
declaration or an entity declaration ends the reading (a billion-laughs file or an external
entity is never expanded, never fetched), nesting is bounded, and each text kept is bounded. A
report that is refused or does not parse is read as text, with a note that says why.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Final, Literal
from xml.parsers import expat

from ctxguard.kinds.frames import raised

MAX_DEPTH: Final = 64  # elements open at once
MAX_TEXT: Final = 65_536  # characters of one failure's text (or output) kept; the rest counted

Outcome = Literal["failed", "error", "skipped", "passed"]


@dataclass
class Case:
    """One testcase as the report gives it."""

    suite: str
    classname: str
    name: str
    file: str | None = None
    line: str | None = None
    time: str | None = None
    outcome: Outcome = "passed"
    kind: str | None = None  # the failure's `type`
    message: str | None = None  # the failure's `message`
    text: str = ""  # the failure's (or error's, or skip's) text
    output: str = ""  # its <system-out> and <system-err>
    reruns: int = 0  # flaky reruns (<rerunFailure>, <flakyFailure>, …)
    more: list[str] = field(default_factory=list)  # what each further failure says (pytest's subtests)

    @property
    def identity(self) -> str:
        """How the report names the test: `classname.name` (or the name alone when the class is
        empty or already in it, as jest's is)."""
        if not self.classname or self.classname in self.name:
            return self.name
        return f"{self.classname}.{self.name}"

    @property
    def place(self) -> str | None:
        """`file:line` where the dialect gives one."""
        return f"{self.file}:{self.line}" if self.file and self.line else self.file

    @functools.cached_property
    def says(self) -> str:
        """What the failure says first: its type and message, else its text's first line. (Read
        once the report is read: the cut, the probes and the digest all ask for it.)"""
        return _says(self.kind, self.message, self.text)


_TRACEBACK = "Traceback (most recent call last):"


def _says(kind: str | None, message: str | None, text: str) -> str:
    """A failure's type and message, else its text's first line; of a Python traceback (green's
    `<error>` has no message), the exception it ends with (`ValueError: step must be >= 1`), not
    its `Traceback (most recent call last):`. A message that only says it failed (`Failed`: go-
    junit-report's for every failure; `test failure`: nose2's) is followed by what the text says
    first (`Failed: cart_test.go:31: Total() = 100, want 107`)."""
    said = " ".join((message or "").split())
    if not said or said.lower().strip(".!") in _ONLY_FAILED:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        if first == _TRACEBACK:
            first = raised(text) or first
        said = f"{said}: {first}" if said and first else said or first
    if kind and kind not in said:
        return f"{kind}: {said}" if said else kind
    return said


# A failure's message that says only that it failed (what its text says is the news).
_ONLY_FAILED = frozenset({"failed", "failure", "fail", "error", "errored", "test failed", "test failure", "test error"})


@dataclass
class Suite:
    """A `<testsuite>`: its name and its cases' counts (as counted from the cases)."""

    name: str
    tests: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    time: str | None = None


@dataclass
class Report:
    suites: list[Suite] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)

    @functools.cached_property
    def failing(self) -> list[Case]:
        """The failing and erroring testcases, in the report's order."""
        return [case for case in self.cases if case.outcome in ("failed", "error")]


@dataclass(frozen=True)
class JUnitDoc:
    """A JUnit XML text as its kind reads it: the report, or None with why it is read as text."""

    text: str
    report: Report | None
    refused: str | None = None


def read(text: str, name: str = "") -> JUnitDoc:
    """The report in the text, read once (see the module's notes on safety)."""
    try:
        return JUnitDoc(text, _parse(text))
    except _Refused as exc:
        return JUnitDoc(text, None, str(exc))
    except expat.ExpatError as exc:
        return JUnitDoc(text, None, f"not well-formed XML ({expat.ErrorString(exc.code)} at line {exc.lineno})")
    except UnicodeEncodeError:  # (a caller's str: the parser takes UTF-8)
        return JUnitDoc(text, None, "not well-formed XML (a lone surrogate, which no XML document holds)")


def is_junit(head: str) -> bool:
    """Markup with a report's root element near the start: `<testsuites` or `<testsuite` (after
    a declaration, comments or a document type declaration, which the reading then refuses)."""
    return head.lstrip("\ufeff \t\r\n").startswith("<") and _ROOT.search(head) is not None


_ROOT = re.compile(r"<testsuites?[\s>/]")


class _Refused(Exception):
    pass


_FAILED: dict[str, Outcome] = {"failure": "failed", "error": "error"}
_RERUNS = {"rerunFailure", "rerunError", "flakyFailure", "flakyError"}


def _parse(text: str) -> Report:  # noqa: C901 (one handler per element of the format)
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    report = Report()
    suites: list[Suite] = []
    case: Case | None = None
    texts: list[list[str]] = []  # the text of each element open, where it is kept
    kept: list[int] = []  # characters of each such text so far
    depth = 0
    into = ""  # what the text being read belongs to: "failure", "more", "output", ""
    further: tuple[str | None, str | None] = (None, None)  # a further failure's type and message

    def refuse_doctype(*_: object) -> None:
        raise _Refused("an XML document type declaration (DTD) is not read: kept as text, nothing expanded")

    def refuse_entity(*_: object) -> int:
        raise _Refused("an XML entity declaration is not read: kept as text, nothing expanded or fetched")

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal case, depth, into, further
        depth += 1
        if depth > MAX_DEPTH:
            raise _Refused(f"XML nested deeper than {MAX_DEPTH} elements: read as text")
        tag = tag.rsplit(":", 1)[-1]
        if tag == "testsuite":
            suites.append(Suite(attrs.get("name", ""), time=attrs.get("time")))
            report.suites.append(suites[-1])
        elif tag == "testcase":
            suite = suites[-1].name if suites else ""
            case = Case(
                suite,
                attrs.get("classname", attrs.get("class", "")),
                attrs.get("name", ""),
                attrs.get("file") or attrs.get("filepath"),
                attrs.get("line") or attrs.get("lineno"),
                attrs.get("time"),
            )
        elif case is not None and tag in _FAILED and case.outcome not in ("failed", "error"):
            case.outcome = _FAILED[tag]
            case.kind, case.message = attrs.get("type") or None, attrs.get("message")
            into = "failure"
            texts.append([])
            kept.append(0)
        elif case is not None and tag in _FAILED and not into:  # (one more of a testcase's failures)
            further, into = (attrs.get("type") or None, attrs.get("message")), "more"
            texts.append([])
            kept.append(0)
        elif case is not None and tag == "skipped" and case.outcome == "passed":
            case.outcome = "skipped"
            case.message = attrs.get("message")
            into = "failure"
            texts.append([])
            kept.append(0)
        elif case is not None and tag in _RERUNS:
            case.reruns += 1
        elif case is not None and tag in ("system-out", "system-err"):
            into = "output"
            texts.append([])
            kept.append(0)

    def end(tag: str) -> None:
        nonlocal case, depth, into
        depth -= 1
        tag = tag.rsplit(":", 1)[-1]
        if tag == "testsuite" and suites:
            suites.pop()
        elif tag == "testcase" and case is not None:
            report.cases.append(case)
            for suite in suites:  # (nested suites: each counts the cases inside it)
                suite.tests += 1
                suite.failed += case.outcome == "failed"
                suite.errors += case.outcome == "error"
                suite.skipped += case.outcome == "skipped"
            case = None
        elif into and texts and tag in (*_FAILED, "skipped", "system-out", "system-err"):
            body = "".join(texts.pop())
            kept.pop()
            if case is not None and into == "failure" and not case.text:
                case.text = body
            elif case is not None and into == "more" and tag in _FAILED:
                case.more.append(_says(*further, body))
            elif case is not None and into == "output" and body.strip():
                case.output += body if not case.output else "\n" + body
            into = ""

    def data(chunk: str) -> None:
        if into and texts and kept[-1] < MAX_TEXT:
            texts[-1].append(chunk)
            kept[-1] += len(chunk)

    parser.StartDoctypeDeclHandler = refuse_doctype
    parser.EntityDeclHandler = refuse_entity
    parser.UnparsedEntityDeclHandler = refuse_entity
    parser.ExternalEntityRefHandler = refuse_entity
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    parser.Parse(text, True)
    if not report.suites and not report.cases:
        raise _Refused("no <testsuite> or <testcase> in it: read as text")
    return report
