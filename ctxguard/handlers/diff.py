"""Unified diffs: parsed once (unidiff), read line by line, and planned: every file and hunk
header, definition and error line first, bodies by their distance from a definition."""
from __future__ import annotations

import bisect
import functools
import io
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ctxguard.definitions import is_comment_or_blank, is_definition, language
from ctxguard.diffpath import file_path, header_path
from ctxguard.generated import GENERATED, is_excluded
from ctxguard.handlers.base import RememberLast, mentions
from ctxguard.plan import Plan, ended, units
from ctxguard.tokens import Encoded, Tokenizer

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
    return FileStat(path=file_path(patched), added=patched.added, removed=patched.removed, status=status)


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
    return [ClassifiedFile(_header(f), file_path(f), [_classify(_hunk_header(h), body, language(f.path))
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
        path, raw = file_path(patched), patched.path  # (raw: as the headers in the content write it)
        if all(_may_hold(segments, body) and "".join(body) in content for body in hunks):
            coverage[path] = "whole"
            continue
        lines = [line.rstrip("\r\n") for body in hunks for line in body if line[:1] in ("+", "-")]
        header = f"+++ b/{raw}" in shown or any(f"diff --git a/{raw} " in line or header_path(line) == path
                                               for line in headers)
        unique = any(seen[line] == 1 and line in shown for line in lines)
        coverage[path] = "cut" if header or unique else "omitted"
    return coverage


def _may_hold(segments: set[str], body: list[str]) -> bool:
    """A cheap necessary condition for "".join(body) to be in the content: a body line between
    two line feeds must be one of the content's line-feed-separated segments."""
    return all(line[:-1] in segments for before, line in zip(body, body[1:])
               if before.endswith("\n") and line.endswith("\n"))


DOCS = re.compile(r"(?:^|/)docs?/|\.(?:md|rst|txt|adoc)$|(?:^|/)(?:CHANGE|HISTORY|NEWS|RELEASE)[^/]*$", re.I)
TESTS_DOCS = re.compile(r"(?:^|/)(?:tests?|spec|__tests__|docs?)/|(?:^|/)test_[^/]*$|_test\.\w+$|\.(?:md|rst|txt)$")


def file_listing(stats: Sequence[FileStat], tokenizer: Tokenizer, limit: int) -> str:
    """`Changed files (N):` and one line per file with its +/- counts, for a cut diff.

    At most `limit` tokens: when every file does not fit, as many as do, and a count of the rest.
    """
    if not stats:
        return ""
    rows = [f"  {s.path} (+{s.added} -{s.removed}, {s.status})\n" for s in stats]

    def listing(n: int) -> str:
        more = f"  ... and {len(rows) - n} more files\n" if n < len(rows) else ""
        return f"Changed files ({len(stats)}):\n" + "".join(rows[:n]) + more + "\n"

    if tokenizer.count(listing(len(rows))) <= limit:
        return listing(len(rows))
    low, high = 0, len(rows)  # the most rows that fit: binary search, one count per step
    while low < high:
        mid = (low + high + 1) // 2
        if tokenizer.count(listing(mid)) <= limit:
            low = mid
        else:
            high = mid - 1
    return listing(low) if low else ""



class DiffReader:
    """Reads a diff's lines in order and says what each is and how early a cut should take it,
    for the plan and the streaming pass alike.

    Kinds and levels (lower is taken first; each is raised by file_offset of the file):
    "definition" and "error" (added or removed lines that declare something or raise/log an
    error) 1; "file" (`diff --git`) 1.6; "header" (renames, modes, new/deleted, binary) 1.7,
    `---`/`+++` 2.8, `index` 6; "hunk" 2.6; "change" (other changed lines) 4; "context" 4.5 if
    it declares something, else 7. Lines before the first file (a commit message) are "header"
    at 5. `index` is the line's position within its file, the rank within a level.
    """

    def __init__(self, context_definitions: bool = True) -> None:
        self.context_definitions = context_definitions  # a stream skips the regex on context
        self.path = ""
        self.language: str | None = None
        self.offset = 0.0
        self.in_hunk = False
        self.index = 0

    def read(self, line: str) -> tuple[str, float]:
        self.index += 1
        if line.startswith(("diff --git ", "diff --cc ")):
            self.path = header_path(line) or line.rstrip("\r\n").split()[-1]
            self.offset = file_offset(self.path)
            self.language = language(self.path)
            self.in_hunk, self.index = False, 0
            return "file", 1.6 + self.offset
        if line.startswith("@@"):
            self.in_hunk = True
            return "hunk", 2.6 + self.offset
        if not self.in_hunk:
            if not self.path:
                return "header", 5.0
            if line.startswith("index "):
                return "header", 6.0 + self.offset
            if line.startswith(("--- ", "+++ ")):  # they repeat the path
                return "header", 2.8 + self.offset
            return "header", 1.7 + self.offset
        body = line[1:]
        if line[:1] in ("+", "-"):
            if is_definition(body, self.language):
                return "definition", 1 + self.offset
            if is_error_line(body):
                return "error", 1 + self.offset
            return "change", 4 + self.offset
        if self.context_definitions and is_definition(body, self.language):
            return "context", 4.5 + self.offset
        return "context", 7.0


def file_offset(path: str) -> float:
    """How far a diff file's lines sink in a cut: lockfiles and generated files 3, docs and
    changelogs 1.5, tests 1, code 0."""
    if is_excluded(path, GENERATED):
        return 3.0
    if DOCS.search(path):
        return 1.5
    return 1.0 if TESTS_DOCS.search(path) else 0.0


REACH = 40  # lines: beyond this distance from a definition or error, body lines rank alike


def plan(encoded: Encoded, tokenizer: Tokenizer, name: str = "", task_words: frozenset[str] = frozenset()) -> Plan:
    """A diff as lines. Kept by tier 2 whatever the room: every file header (`diff --git`,
    renames, modes, binary) and hunk header, every changed definition and error line, and every
    line of code in a source file edited in place (see small_edits: a flipped condition); a
    tier-3 cut takes those first as far as they fit (definitions and errors, then the edits, each
    with its file and hunk header and the unchanged definition that encloses it, then the other
    file headers, then the other hunk headers) after the file list. Then the source files' other
    changed code, nearest a definition first, before any other body line.
    Then the `---`/`+++` lines, and the hunk bodies by their distance from a definition or an
    error (or from the hunk's start, in a hunk with none), changed lines before context at the
    same distance, changed comments and blank lines later; `index` lines last. A file's lines
    sink behind other files' when it holds tests or docs, and further when it is a lockfile or
    generated. No line is shown without its file header and its hunk header."""
    lines = ended(encoded.text.splitlines(keepends=True))
    reader = DiffReader()
    rank: list[tuple[float, int]] = []
    must: list[bool] = []
    anchors: list[tuple[int, ...]] = []
    file: tuple[int, ...] = ()  # the current file's header line, which every line of it needs
    hunk: tuple[int, ...] = ()  # … and the current hunk's
    enclosing: tuple[int, ...] = ()  # … and the unchanged definition above a change in its hunk
    body: dict[int, float] = {}  # hunk lines ranked by distance: their level at distance 0
    hunks: list[tuple[int, ...]] = []  # each line's hunk (file and hunk header)
    reader_kind: list[str] = []
    edited = small_edits(lines)
    quoted = {j for i, pair in edited.items() if pair and _in_quotes(lines[i][1:], lines[pair[0]][1:]) for j in (i, *pair)}
    keys: dict[tuple[int, ...], list[int]] = {}  # per hunk, where distances are measured from:
    for i, line in enumerate(lines):  # its header, its definitions and errors
        kind, level = reader.read(line)
        offset = reader.offset
        keep, needs = kind in ("file", "hunk", "definition", "error"), hunk
        task = task_words and not keep and kind != "file" and mentions(line[1:], task_words)
        if kind == "file":
            file, hunk, needs = (i,), (), ()
        elif kind == "header":  # renames, modes, binary are the file header; ---/+++ and index repeat it
            keep = bool(file) and not line.startswith(("index ", "--- ", "+++ "))
            needs = file
        elif kind == "hunk":
            hunk, needs, enclosing = (*file, i), file, ()
            keys[hunk] = [i]
        elif kind in ("definition", "error"):
            keys[hunk].append(i)
            needs = (*hunk, *enclosing)
        elif line.startswith("\\"):  # "\ No newline at end of file": with the line before it
            level, needs = 7.0, (*hunk, i - 1)
        elif task:
            pass  # ranked by the task, not by distance
        elif kind == "change":
            code = not is_comment_or_blank(line[1:])
            source = code and offset == 0 and reader.language is not None
            keep = source and i in edited  # a line of code edited in place: the behaviour changed there
            body[i] = (EDITED if keep else 1.2 if source else 3.5 if not code else 3.0 + offset)
            if keep and i in quoted:
                body[i] = EDITED_QUOTED
            needs = (*hunk, *enclosing, *(edited.get(i, ())))
        elif kind == "context":
            body[i] = 3.3 + offset
            if level < 7:  # an unchanged definition: the changes below it in the hunk are in it
                enclosing = (i,)
        if task:
            level = min(level, 1.15 + offset)  # before a source file's other changed code
        rank.append((level, i))
        must.append(keep)
        anchors.append(needs)
        hunks.append(hunk)
        reader_kind.append(kind)
    for i, base in body.items():
        span = 0.0 if base in (EDITED, EDITED_QUOTED) else 0.3 if base < 1.5 else 2.0  # a source's changed code stays ahead
        late = 0.001 if base in (EDITED, EDITED_QUOTED) and edited.get(i) == () else 0.0  # the added line brings its removed one
        rank[i] = (base + late + min(_distance(i, keys.get(hunks[i], [])), REACH) / REACH * span, i)
    stats = file_stats(encoded.text)
    notes = () if stats else ("content is not a parseable diff; its lines are kept in order",)
    # A tier-3 cut lists the files first: there a file or hunk header is shown only with a line
    # it heads (a header alone says what the list says), and tier 2 keeps every one.
    headers = [i for i, (level, _) in enumerate(rank)
               if stats and must[i] and reader_kind[i] in ("file", "header", "hunk")]
    tier3 = list(must)
    for i in headers:
        tier3[i] = False
        rank[i] = (HEADER_ALONE + rank[i][0] / 100, i)
    return Plan(units(lines, lines, rank, tier3, anchors.__getitem__, encoded, tokenizer), encoded.count,
                listing=lambda room: file_listing(stats, tokenizer, room), notes=notes,
                tier2_must=must if stats else None)


# A line edited in place (`if n == 0` -> `if n == 1`): the behaviour changed there. After the
# definitions and the source files' headers (what the probes count: paths and names), before
# the other headers and every body line.
EDITED = 1.65
EDITED_QUOTED = 1.7  # … where only a quoted string changed (a version, a date, a message): after those
HEADER_ALONE = 8.0  # a header no kept line needs, in a tier-3 cut that lists the files


def small_edits(lines: Sequence[str]) -> dict[int, tuple[int, ...]]:
    """The removed and added lines that are the same line edited a little: a run of `-` lines
    then a run of `+` lines, paired in order, each pair alike (see _alike) but not equal. A flipped condition or a changed constant reads like this; new code does not. Each
    added line maps to its removed line (shown with it), each removed line to nothing."""
    found: dict[int, tuple[int, ...]] = {}
    i, n = 0, len(lines)
    while i < n:
        if not lines[i].startswith("-") or lines[i].startswith("---"):
            i += 1
            continue
        minus_end = i
        while minus_end < n and lines[minus_end].startswith("-") and not lines[minus_end].startswith("---"):
            minus_end += 1
        plus_end = minus_end
        while plus_end < n and lines[plus_end].startswith("+") and not lines[plus_end].startswith("+++"):
            plus_end += 1
        if plus_end - minus_end == minus_end - i and minus_end - i <= 8:
            for a, b in zip(range(i, minus_end), range(minus_end, plus_end)):
                old, new = lines[a][1:].strip(), lines[b][1:].strip()
                if old != new and old and _alike(old, new):
                    found[a], found[b] = (), (a,)
        i = max(plus_end, i + 1)
    return found


def _alike(old: str, new: str) -> bool:
    """Two lines that share most of their text at both ends (over 60 % of their length): one
    edited in the middle (`if n == 0:` / `if n == 1:`), not one rewritten."""
    n = min(len(old), len(new))
    head = 0
    while head < n and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < n - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return (head + tail) * 2 > 0.6 * (len(old) + len(new))


def _in_quotes(line: str, other: str) -> bool:
    """Whether the text where two lines differ lies inside a quoted string of `line` (a
    version or a date bumped, a message reworded), not in its code."""
    head = 0
    while head < min(len(line), len(other)) and line[head] == other[head]:
        head += 1
    before = line[:head]
    return any(before.count(q) % 2 == 1 for q in ("'", '"', "`"))


def _distance(i: int, keys: list[int]) -> int:
    """How many lines from line i the nearest of its hunk's key lines (in order) is."""
    at = bisect.bisect_left(keys, i)
    return min((abs(i - keys[j]) for j in (at - 1, at) if 0 <= j < len(keys)), default=REACH)
