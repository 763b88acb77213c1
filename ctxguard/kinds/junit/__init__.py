"""JUnit XML test reports (pytest `--junitxml`, jest-junit, Maven Surefire, go-junit-report,
cargo-nextest, PHPUnit …): read once, safely, into a report; rendered for a reader, failing
testcases first; passing ones only counted."""

from __future__ import annotations

from collections.abc import Iterator

from ctxguard.kinds.base import Facts, Failure, KindOf, Probe, not_shown
from ctxguard.kinds.frames import frames_in
from ctxguard.kinds.junit.model import Case, JUnitDoc, is_junit, read
from ctxguard.kinds.junit.plan import MESSAGE_CHARS, plan, totals
from ctxguard.kinds.rendered import bare, shorten

PROBED_CHARS = 200  # of a failure's message: what a cut must still show of it


def _failing(doc: JUnitDoc) -> list[Case]:
    return doc.report.failing if doc.report is not None else []


def probes(doc: JUnitDoc) -> Iterator[Probe]:
    """The run's totals; each failing testcase's name and the start of its message."""
    if doc.report is None:
        return
    yield Probe("summary", totals(doc.report).strip())
    for case in _failing(doc):
        yield Probe("test", case.name)
        if case.says:
            yield Probe("message", shorten(case.says, min(PROBED_CHARS, MESSAGE_CHARS)))


def notes(doc: JUnitDoc) -> tuple[str, ...]:
    return (doc.refused,) if doc.refused is not None else ()


def sniff(head: str, text: str) -> bool:
    return is_junit(head)


def facts(doc: JUnitDoc) -> Facts:
    """The digest's failure causes: the failing testcases grouped by what they say."""
    causes: dict[str, Failure] = {}
    for case in _failing(doc):
        cause = causes.setdefault(case.says or case.identity, Failure(case.says or case.identity, case.place))
        cause.tests.append(case.identity)
        for place in [*([case.place] if case.place and ":" in case.place else []), *frames_in(case.text)]:
            if place not in cause.frames:  # (where its text's tracebacks go: the bundle's links read them)
                cause.frames.append(place)
    return Facts(failures=tuple(causes.values()))


def left_out(doc: JUnitDoc, content: str) -> tuple[str, int, int]:
    """The failing testcases a cut does not name."""
    failing = _failing(doc)
    return "failing testcases", not_shown([case.name for case in failing], content), len(failing)


KIND = KindOf(
    "junit",
    read,
    plan,
    probes,
    notes,
    within=(".xml",),
    sniff=sniff,
    offload="xml",
    head_cut=False,
    bare=bare("failing testcase"),
    facts=facts,
    left_out=left_out,
    first=(
        "each failing or erroring testcase on a line of its own (`classname.name`, its `file:line` where "
        "the dialect gives one, its reruns) with its type and message, one class's in a row under one "
        "line, every name before any message, every message's first 100 characters before the rest of "
        "any, a testcase failing as one before it did in another class (its name and message the same: a "
        "test a mixin gives several classes) after all of those, under `FAILED as above in <class>:`; "
        "the run's totals (`302 tests in 1 suite: 2 failed, "
        "299 passed`); then each cause's failure text by its first line and where it failed (a "
        "traceback's innermost frame; a message the row cut, whole), each suite's counts"
    ),
    last=(
        "skipped testcases and why; the rest of the failures' texts; failing testcases' output; passing "
        "testcases only as counts"
    ),
)

__all__ = ["KIND", "JUnitDoc", "read"]
