"""A log's probes: its first and last line, and every distinct error or warning template."""

from __future__ import annotations

from collections.abc import Iterator

from ctxguard.kinds.base import Probe, edges
from ctxguard.kinds.log.lines import says, template, unstamped
from ctxguard.kinds.log.model import LogDoc, reports_of, summary_of


def probes(doc: LogDoc) -> Iterator[Probe]:
    """(A CI runner's timestamps left out, as a cut shows the lines.)"""
    yield from edges([unstamped(line) for line in doc.lines], says)
    for line, _ in summary_of(reports_of(doc)):
        yield Probe("template", template(line))
