"""Unified diffs: every file and hunk header kept, definitions and errors kept, bodies elided."""
from __future__ import annotations

import functools
import io
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from ctxguard.definitions import is_definition, language
from ctxguard.handlers.base import ESTIMATE_SLACK, Context, RememberLast, collapse, mentions, plural
from ctxguard.handlers.text import is_comment_or_blank

ERROR_LINE = re.compile(
    r"""\b(?:raise|throw|panic!?|abort|die|bail!|unreachable!|unimplemented!|todo!
    |errors\.New|fmt\.Errorf|Errorf|Err\(|new\s+\w*(?:Error|Exception)
    |(?:log|logger|logging|LOG|LOGGER|console|slog|klog|glog)\.(?:error|exception|critical|fatal|warn|warning|Error|Fatal|Fatalf|Errorf|Warn|Warning)
    |perror|fprintf\(\s*stderr|sys\.exit|process\.exit|os\.Exit)\b""",
    re.X,
)


# Every branch of ERROR_LINE holds one of these: a line with none of them skips the pattern,
# whose leading \b defeats the regex engine's quick scan for a first character.
_MAY_ERR = re.compile(r"raise|throw|panic|abort|die|bail!|unreachable!|unimplemented!|todo!|Err|rror"
                      r"|xception|stderr|exit|Exit|arn|atal|ritical")


@functools.lru_cache(maxsize=1 << 16)
def is_error_line(line: str) -> bool:
    """A line that raises, throws, panics or logs an error (remembered, like is_definition:
    the handler, the probes and the cut ask about the same lines)."""
    return _MAY_ERR.search(line) is not None and ERROR_LINE.search(line) is not None


_HASH = {".py", ".pyi", ".sh", ".bash", ".rb", ".pl", ".yaml", ".yml", ".toml", ".r", ".cfg",
         ".ini", ".conf", ".mk", ".cmake", ".ps1", ".tf", ".nix", ".jl", ".ex", ".exs"}
_DASH = {".sql", ".lua", ".hs", ".elm", ".ada"}
_MARKUP = {".md", ".markdown", ".html", ".htm", ".xml", ".svg", ".vue", ".rst"}


@dataclass(frozen=True)
class FileStat:
    """One changed file of a diff: its path, its +/- counts and what happened to it."""

    path: str
    added: int
    removed: int
    status: str  # added | deleted | renamed | modified | binary

    def to_dict(self) -> dict[str, str | int]:
        """The file as an entry of a record's `files` list."""
        return {"path": self.path, "added": self.added, "removed": self.removed, "status": self.status}


@dataclass(frozen=True)
class ParsedDiff:
    """A diff as unidiff reads it: its files with their headers and hunks (`files`, a PatchSet),
    and each hunk's body lines as they stand in the text (`bodies[file][hunk]`).

    unidiff parses in its metadata mode (headers, hunk ranges and +/- counts, checked for
    consistency, without an object per line: several times faster), and the body lines are
    then taken from the text with unidiff's own rules: after each hunk header (its pattern),
    lines until the hunk's ranges are used up, and the no-newline markers and blank lines that
    follow (unidiff gives those to the hunk before them).
    """

    files: Any
    bodies: list[list[list[str]]]


def line_type(line: str) -> str:
    """A hunk body line's type as unidiff gives it: "+", "-", " " or "\\" (blank is context)."""
    return " " if not line or line[0] in "\r\n" else line[0]


def _parse(text: str) -> ParsedDiff | None:
    """The parsed diff, or None when the text is not a diff unidiff understands."""
    from unidiff.errors import UnidiffParseError
    from unidiff.patch import PatchSet

    try:
        patch = PatchSet(text, metadata_only=True)
    except (UnidiffParseError, ValueError, IndexError):
        return None
    if not len(patch):
        return None
    try:
        return ParsedDiff(patch, _bodies(list(io.StringIO(text)), patch))
    except IndexError:  # the text ran out where unidiff did not: not read alike, so not read
        return None


def _bodies(lines: list[str], patch: Any) -> list[list[list[str]]]:
    from unidiff.constants import RE_HUNK_HEADER, RE_NO_NEWLINE_MARKER

    out: list[list[list[str]]] = []
    i = 0
    for patched in patch:
        hunks: list[list[str]] = []
        for hunk in patched:
            while not RE_HUNK_HEADER.match(lines[i]):
                i += 1
            i += 1
            source, target = hunk.source_length, hunk.target_length
            start = i
            while True:  # as unidiff: take a line, then stop when both ranges are used up
                kind = line_type(lines[i])
                i += 1
                if kind in "- ":
                    source -= 1
                if kind in "+ ":
                    target -= 1
                if source <= 0 and target <= 0:
                    break
            while i < len(lines) and (lines[i] == "\n" or RE_NO_NEWLINE_MARKER.match(lines[i])):
                i += 1
            hunks.append(lines[start:i])
        out.append(hunks)
    return out


parse = RememberLast(_parse)  # one diff is parsed once for the handler, the probes and the cut


def _file_stats(text: str) -> list[FileStat]:
    """Per-file +/- counts, in diff order; empty when the text is not a parseable diff."""
    parsed = parse(text)
    return [] if parsed is None else [_stat(f) for f in parsed.files]


file_stats = RememberLast(_file_stats)  # the cut and its file list ask more than once


def _stat(patched: Any) -> FileStat:
    if patched.is_binary_file:
        status = "binary"
    elif patched.is_added_file:
        status = "added"
    elif patched.is_removed_file:
        status = "deleted"
    elif patched.is_rename:
        status = "renamed"
    else:
        status = "modified"
    path = patched.path
    return FileStat(path=path, added=patched.added, removed=patched.removed, status=status)


def comment_marker(path: str, n: int) -> str:
    """An omission marker in the comment style of the file's language."""
    start, end = _comment_style(path)
    return f"{start}... ({plural(n, 'line')} omitted){end}"


@functools.lru_cache(maxsize=1024)
def _comment_style(path: str) -> tuple[str, str]:
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in _HASH or PurePosixPath(path).name in ("Makefile", "Dockerfile"):
        return "# ", ""
    if suffix in _DASH:
        return "-- ", ""
    if suffix in _MARKUP:
        return "<!-- ", " -->"
    return "// ", ""


@dataclass(frozen=True)
class _Level:
    context: bool  # keep context lines that declare something
    body_run: int  # longest run of plain changed lines kept whole
    body_keep: int  # lines kept at the start of a longer run


_LEVELS = (
    _Level(context=True, body_run=10**9, body_keep=0),
    _Level(context=True, body_run=12, body_keep=4),
    _Level(context=True, body_run=6, body_keep=2),
    _Level(context=False, body_run=2, body_keep=1),
    _Level(context=False, body_run=0, body_keep=0),
)


# What a hunk body line is, as bits: read once per diff, for the handler and the probes alike.
FOLLOW = 1  # "\\ No newline at end of file": belongs to the line before it
CONTEXT = 2  # a context line (else a changed one)
DEFINES = 4  # declares something (a function, class, struct …)
COMMENT = 8  # a changed line holding only a comment (asked only when it does not declare)
ERROR = 16  # raises, throws, panics or logs an error (asked of changed lines that are neither
#             a definition nor a comment, and of every added line: the probes want those)


@dataclass(frozen=True)
class ClassifiedHunk:
    header: str  # the hunk header as unidiff prints it
    lines: list[str]  # the body lines that are not blank, each ending in a line break
    bits: list[int]  # what each of them is


@dataclass(frozen=True)
class ClassifiedFile:
    header: str
    path: str
    hunks: list[ClassifiedHunk]


def _classified(text: str) -> list[ClassifiedFile] | None:
    """Every hunk line of a diff read once, or None when the text is not a parseable diff."""
    parsed = parse(text)
    if parsed is None:
        return None
    return [ClassifiedFile(_header(f), f.path, [_classify(_hunk_header(h), body, language(f.path))
                                                for h, body in zip(f, bodies)])
            for f, bodies in zip(parsed.files, parsed.bodies)]


classified = RememberLast(_classified)


def _classify(header: str, body: list[str], lang: str | None) -> ClassifiedHunk:
    lines: list[str] = []
    bits: list[int] = []
    for line in body:
        first, value = line[:1], line[1:]
        if first == "\\":
            bit = FOLLOW
        elif not value.strip():
            continue  # blank lines carry nothing a reviewer needs; they go without a marker
        elif first == " ":
            bit = CONTEXT | DEFINES if is_definition(value, lang) else CONTEXT
        elif is_definition(value, lang):
            bit = DEFINES | ERROR if first == "+" and is_error_line(value) else DEFINES
        elif is_comment_or_blank(value):
            bit = COMMENT | ERROR if first == "+" and is_error_line(value) else COMMENT
        else:
            bit = ERROR if is_error_line(value) else 0
        lines.append(line if line.endswith("\n") else line + "\n")
        bits.append(bit)
    return ClassifiedHunk(header, lines, bits)


def _kinds(hunk: ClassifiedHunk, task_words: frozenset[str]) -> list[str]:
    """What the levels do with each line: key (always kept), decl (a context line that
    declares: kept while levels keep context), plain (a changed body line), drop (context,
    comments), follow (as the line before it)."""
    kinds = [_KIND[bit] for bit in hunk.bits]
    if task_words:  # lines that name the task's words count as declaring
        for i, line in enumerate(hunk.lines):
            if kinds[i] != "follow" and mentions(line[1:], task_words):
                kinds[i] = "decl" if hunk.bits[i] & CONTEXT else "key"
    return kinds


def _kind(bit: int) -> str:
    if bit & FOLLOW:
        return "follow"
    if bit & CONTEXT:
        return "decl" if bit & DEFINES else "drop"
    if bit & DEFINES:
        return "key"
    if bit & COMMENT:
        return "drop"
    return "key" if bit & ERROR else "plain"


_KIND = {bit: _kind(bit) for bit in range(32)}


class DiffHandler:
    """Keeps headers exactly; within hunks keeps what a reviewer needs to see first."""

    name = "diff"

    def candidates(self, text: str, ctx: Context) -> Iterator[str]:
        files = classified(text)
        if files is None:
            return
        # Each hunk's lines are classified once; the levels only decide what to keep.
        hunks = [[(h.header, (h.lines, _kinds(h, ctx.task_words))) for h in f.hunks] for f in files]

        def render(level: _Level) -> str:
            return "".join(_render_file(f.header, kept, f.path, level) for f, kept in zip(files, hunks))

        if ctx.density is None:
            yield from map(render, _LEVELS)
            return
        rendered = functools.cache(lambda i: render(_LEVELS[i]))
        density, budget = ctx.density, ctx.budget

        def too_long(i: int) -> bool:
            return len(rendered(i)) * density > budget * ESTIMATE_SLACK

        # Levels shrink from mild to strong; those sure not to fit (as the tiers judge length)
        # are passed over, and when the mildest is, the strongest is looked at next: when it
        # is too, none can fit and the others are not written at all.
        if too_long(0) and too_long(len(_LEVELS) - 1):
            yield rendered(len(_LEVELS) - 1)  # only the strongest, to be turned down
            return
        for i in range(len(_LEVELS)):
            if i == len(_LEVELS) - 1 or not too_long(i):
                yield rendered(i)

    def validate(self, raw: str, compressed: str) -> str | None:
        parsed = parse(raw)
        if parsed is None:
            return "not a parseable diff"
        at = 0  # headers come in order: each is looked for after the last one first
        for patched in parsed.files:
            parts = [(_header(patched), "the header"), *((_hunk_header(h), "a hunk header") for h in patched)]
            for part, what in parts:
                found = compressed.find(part, at)
                if found < 0:
                    found = compressed.find(part)
                if found < 0:
                    return f"{what} of {patched.path} is missing"
                at = found
        return None


def _header(patched: Any) -> str:
    """A file's header as unidiff prints it: str(patched) up to its first hunk, built from
    its parts (printing the whole file to cut the hunks off again cost more than the parse)."""
    if patched.is_binary_file or not len(patched):
        return str(patched)  # no hunks: nothing to cut off
    info = "" if patched.patch_info is None else str(patched.patch_info)
    source = f"--- {patched.source_file}{_stamp(patched.source_timestamp)}\n"
    target = f"+++ {patched.target_file}{_stamp(patched.target_timestamp)}\n"
    return info + source + target


def _stamp(timestamp: str | None) -> str:
    return "\t" + timestamp if timestamp else ""


def _hunk_header(hunk: Any) -> str:
    """A hunk's first line as unidiff prints it, without printing its lines."""
    section = " " + hunk.section_header if hunk.section_header else ""
    return f"@@ -{hunk.source_start},{hunk.source_length} +{hunk.target_start},{hunk.target_length} @@{section}\n"


_Hunk = tuple[list[str], list[str]]  # (rendered lines, their kinds)


def _render_file(header: str, hunks: list[tuple[str, _Hunk]], path: str, level: _Level) -> str:
    out = [header]
    for hunk_header, (lines, kinds) in hunks:
        out.append(hunk_header)
        marks: list[bool | None] = []
        for kind in kinds:
            if kind == "follow":
                marks.append(bool(marks and marks[-1]))
            elif kind == "plain":
                marks.append(None)  # decided by the length of its run
            else:
                marks.append(kind == "key" or (kind == "decl" and level.context))
        keep = _keep_short_runs(marks, level)
        out.extend(collapse(lines, keep, lambda run: f" {comment_marker(path, len(run))}\n"))
    return "".join(out)


def _keep_short_runs(marks: list[bool | None], level: _Level) -> list[bool]:
    """Plain changed lines: short runs stay whole, long runs keep their first few lines."""
    keep: list[bool] = []
    run = length = 0  # position in the current run of plain lines, and the run's length
    for i, mark in enumerate(marks):
        if mark is not None:
            keep.append(mark)
            run = 0
            continue
        if not run:
            length = 1
            while i + length < len(marks) and marks[i + length] is None:
                length += 1
        run += 1
        keep.append(length <= level.body_run or run <= level.body_keep)
    return keep


def _changed_line_counts(raw: str) -> Counter[str]:
    """How often each changed (+/-) line occurs in a diff, line endings left out."""
    parsed = parse(raw)
    bodies = parsed.bodies if parsed is not None else []
    return Counter(line.rstrip("\r\n") for hunks in bodies for body in hunks for line in body
                   if line[:1] in ("+", "-"))


# Asked once per bundle attempt about the same raw diff: counted once.
changed_line_counts = RememberLast(_changed_line_counts)


def file_coverage(raw: str, content: str) -> dict[str, str]:
    """How much of each changed file a cut diff shows: "whole" (every hunk line, in order),
    "cut" (its header, or one of its changed lines found nowhere else in the diff) or
    "omitted". A file whose lines all occur in other files too, with no header shown, counts
    as omitted: the claim is never more than the content proves."""
    parsed = parse(raw)
    if parsed is None:
        return {}
    shown = set(content.splitlines())
    segments = set(content.split("\n"))
    headers = [line for line in shown if "diff --git a/" in line]
    seen = changed_line_counts(raw)
    coverage = {}
    for patched, hunks in zip(parsed.files, parsed.bodies):
        path = patched.path
        if all(_may_hold(segments, body) and "".join(body) in content for body in hunks):
            coverage[path] = "whole"
            continue
        lines = [line.rstrip("\r\n") for body in hunks for line in body if line[:1] in ("+", "-")]
        header = f"+++ b/{path}" in shown or any(f"diff --git a/{path} " in line for line in headers)
        unique = any(seen[line] == 1 and line in shown for line in lines)
        coverage[path] = "cut" if header or unique else "omitted"
    return coverage


def _may_hold(segments: set[str], body: list[str]) -> bool:
    """A cheap necessary condition for "".join(body) to be in the content: a body line between
    two line feeds must be one of the content's line-feed-separated segments."""
    return all(line[:-1] in segments for before, line in zip(body, body[1:])
               if before.endswith("\n") and line.endswith("\n"))
