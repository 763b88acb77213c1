"""A markdown document's probes: every heading, table header row, code block's first line and
open task item."""

from __future__ import annotations

from collections.abc import Iterator

from ctxguard.kinds.base import Probe
from ctxguard.kinds.markdown.model import FENCE, OPEN_TASK, MarkdownDoc


def probes(doc: MarkdownDoc) -> Iterator[Probe]:
    for block in doc.blocks:
        first = block.lines[0].strip()
        if block.kind == "heading":
            yield Probe("heading", first)
        elif block.kind == "table":
            yield Probe("table", first)
        elif block.kind == "code":
            inner = [line.strip() for line in block.lines[1:] if line.strip() and not FENCE.match(line)]
            yield Probe("code", inner[0] if inner else first)
        for line in block.lines:
            if block.kind in ("task", "item", "prose") and OPEN_TASK.match(line):
                yield Probe("task", line.strip())
