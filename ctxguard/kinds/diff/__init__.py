"""Unified diffs: read once into a DiffDoc (unidiff's PatchSet), which serves the plan, the
probes, the digest's file list and a cut's per-file coverage."""

from __future__ import annotations

import re

from ctxguard.kinds.base import Facts, KindOf, missing_lines
from ctxguard.kinds.diff.changes import changes
from ctxguard.kinds.diff.coverage import file_coverage
from ctxguard.kinds.diff.lines import file_offset
from ctxguard.kinds.diff.model import DiffDoc, FileStat, read
from ctxguard.kinds.diff.numbers import numbered
from ctxguard.kinds.diff.plan import file_listing, plan
from ctxguard.kinds.diff.probes import probes
from ctxguard.kinds.diff.sink import DiffSink
from ctxguard.record import Listed
from ctxguard.words import task_words

_START = re.compile(r"^(diff --git |diff --cc |--- \S.*\n\+\+\+ \S|Index: )", re.M)


def sniff(head: str, text: str) -> bool:
    """A diff's file header near the start, and a hunk header."""
    return bool(_START.search(head) and "\n@@ " in text[:65536]) or head.lstrip().startswith("diff --git ")


def facts(doc: DiffDoc) -> Facts:
    """The digest's list of changed files, and the hunks (what the bundle's links match)."""
    return Facts(files=tuple(doc.files), changes=tuple(changes(doc.lines)))


def rows(doc: DiffDoc, content: str, tier: int) -> list[Listed]:
    """The record's files: each changed file, with how much of it a cut shows."""
    shown = file_coverage(doc, content) if tier > 1 else {}
    return [Listed(s.path, s.added, s.removed, s.status, shown.get(s.path, "whole")) for s in doc.files]


def left_out(doc: DiffDoc, content: str) -> tuple[str, int, int]:
    """The changed lines (`+` and `-`, not the file headers) a cut does not show. (The lines as
    str.splitlines cuts them: the document's own, unless a break it does not cut at is there.)"""
    if any(map(doc.text.__contains__, _OTHER_BREAKS)):
        lines = doc.text.splitlines()
        wanted = [line for line in lines if line[:1] in "+-" and not line.startswith(("+++ ", "--- "))]
    else:  # (a blank line, "" to splitlines, passes `in "+-"`: "\n" here, the same once stripped)
        wanted = [
            line for line in doc.lines if (line[:1] in "+-" or line == "\n") and not line.startswith(("+++ ", "--- "))
        ]
    return "changed lines", missing_lines(wanted, content), len(wanted)


_OTHER_BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # (where splitlines cuts too: a search for each is fast)


KIND = KindOf(
    "diff",
    read,
    plan,
    probes,
    sink=lambda tokenizer, budget, options: DiffSink(budget, task_words(options.task)),
    suffixes=(".diff", ".patch"),
    sniff=sniff,
    fence="diff",
    offload="diff",
    facts=facts,
    left_out=left_out,
    rows=rows,
    row_rank=file_offset,
    numbered=numbered,
    first=(
        "at tier 3 the list of changed files first (in `git log -p` once the room holds the first change and "
        "every commit's subject); a line of source code whose edit flips an operator, a "
        "number or a keyword of logic (`if n == 0` → `if n == 1`), or a quoted value the code compares "
        '(`if sign == "-"` → `"+"`, `case \'fill\':`), with the removed line (a line of a Python docstring '
        "is prose: `3.12` → `3.13` there flips nothing); in `git log -p` and "
        "`git format-patch` output, each commit's subject with its `commit <sha>` line (the id shown to 12 "
        "hex digits, as `git log --abbrev=12` writes it: the full id costs as much as a subject); with a task, "
        "the changed lines and definitions that name its words (first among their equals, with their "
        "file, hunk and definition; the other changed lines wait for them); added or "
        "removed definitions and error lines (none in a document or a changelog, whose `raise an error` "
        "is words), by turns across files (each file's first, then each file's "
        "second, …; one moved or re-indented after the edits); a line of source code edited in place "
        "otherwise, before one where only a quoted string changed (a version, a date, a message); each change under "
        "its file and hunk header and its unchanged enclosing `def`/`class`; source files' other changed "
        "code"
    ),
    last=(
        "tests, then docs and changelogs, then lockfiles and generated files; comments and blank lines "
        "(shown only while none of their file's code is left out, or where one costs no more than the "
        "gap line that would stand for it); "
        "`index` lines; a file's headers come after its changed definitions and edits (the tier-3 cut's "
        "file list names every file first)"
    ),
)

__all__ = ["KIND", "DiffDoc", "FileStat", "file_coverage", "file_listing", "read"]
