"""A diff read once (unidiff's PatchSet): its files, their hunks' body lines, what each line is.

`read` parses the text once; the plan, the probes, the digest's file list and the coverage of a
cut all come from the one DiffDoc it returns."""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ctxguard.git.paths import file_path
from ctxguard.kinds.base import FileStat as FileStat  # (the digest's words for a changed file)
from ctxguard.kinds.definitions import hint_words, is_definition, language
from ctxguard.kinds.diff.lines import DEFINES, ERROR, MAY_ERR_WORDS, PROSE, is_error_line, said_key
from ctxguard.literals import lines_holding


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


def _parse(text: str, lines: list[str]) -> ParsedDiff | None:
    """The parsed diff (text, and its lines), or None when the text is not a diff unidiff
    understands."""
    from unidiff.errors import UnidiffParseError
    from unidiff.patch import PatchSet

    try:
        patch = PatchSet(text, metadata_only=True)
    except (UnidiffParseError, ValueError, IndexError):
        # unidiff splits `diff --git a/a b/c.py b/a b/c.py` at its last " b/" (python-unidiff
        # #93): without such headers it reads the files from their ---/+++ lines instead.
        plain = _AMBIGUOUS.sub("", text)
        if plain == text:
            return None
        try:
            patch = PatchSet(plain, metadata_only=True)
        except (UnidiffParseError, ValueError, IndexError):
            return None
    if not len(patch):
        return None
    try:
        return ParsedDiff(patch, _bodies(lines, patch))
    except IndexError:  # the text ran out where unidiff did not: not read alike, so not read
        return None


# A `diff --git` line whose unquoted path holds " b/": unidiff takes the wrong half for the target.
_AMBIGUOUS = re.compile(r"^diff --git a/(?P<path>[^\n\"]* b/[^\n\"]*) b/(?P=path)\n", re.M)


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


@dataclass(frozen=True)
class ClassifiedHunk:
    header: str  # the hunk header as unidiff prints it
    lines: list[str]  # its changed lines that are not blank, each ending in a line break
    bits: list[int]  # what each of them is


@dataclass(frozen=True)
class ClassifiedFile:
    header: str
    path: str
    language: str | None  # its path's (see ctxguard.kinds.definitions.language)
    hunks: list[ClassifiedHunk]


def _changed(header: str, body: list[str], values: list[str]) -> ClassifiedHunk:
    """A hunk's changed lines, not read yet (no bits set), their text after the sign appended
    to `values`. (Context lines, `\\ No newline` markers and blank lines say nothing the probes
    count: they are passed over unread.)"""
    signed = [line for line in body if line[:1] in _SIGNS and line[1:].strip()]
    values += [line[1:] for line in signed]
    if signed and not signed[-1].endswith("\n"):  # (only the text's last line may have no break)
        signed[-1] += "\n"
    return ClassifiedHunk(header, signed, [0] * len(signed))


_SIGNS = ("+", "-")


def _read_bits(hunks: list[ClassifiedHunk], values: list[str], key: str | None) -> None:
    """What the changed lines of hunks in one language (or of prose files: `key`, see said_key)
    say (their values in order): only the lines that hold a definition's or an error's hint are
    read further, and the hints are searched in all of the lines at once. (A line of prose
    declares nothing and raises nothing.)"""
    if key == PROSE:
        return  # (its hunks' bits stay 0)
    bits = [0] * len(values)
    for i in lines_holding(values, hint_words(key)):
        if is_definition(values[i], key):
            bits[i] = DEFINES
    errors = lines_holding(values, MAY_ERR_WORDS)
    if errors:
        lines = [line for hunk in hunks for line in hunk.lines]
        for i in errors:
            if lines[i][0] == "+" and is_error_line(values[i]):
                bits[i] |= ERROR
    at = 0
    for hunk in hunks:
        hunk.bits[:] = bits[at : at + len(hunk.bits)]
        at += len(hunk.bits)


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


@dataclass(frozen=True)
class DiffDoc:
    """A diff as its kind reads it: the text, its lines (split at line feeds only, as git
    writes them: a form feed or a lone carriage return inside a line of code stays in it),
    unidiff's parse (None when the text is not a diff unidiff understands), each file's +/-
    counts, and (read when first asked) every changed line classified and how often each
    occurs."""

    text: str
    lines: list[str]  # (the hunks' bodies are runs of these)
    parsed: ParsedDiff | None
    files: tuple[FileStat, ...] = field(default=())

    @cached_property
    def classified(self) -> list[ClassifiedFile] | None:
        """Every changed line of the diff read once, or None when it is not a parseable diff."""
        if self.parsed is None:
            return None
        files: list[ClassifiedFile] = []
        by_language: dict[str | None, tuple[list[ClassifiedHunk], list[str]]] = {}  # to read at once
        for f, bodies in zip(self.parsed.files, self.parsed.bodies):
            hunks, values = by_language.setdefault(said_key(f.path), ([], []))
            read = [_changed(_hunk_header(h), body, values) for h, body in zip(f, bodies)]
            hunks += read
            files.append(ClassifiedFile(_header(f), file_path(f), language(f.path), read))
        for key, (hunks, values) in by_language.items():
            _read_bits(hunks, values, key)
        return files

    def said(self) -> dict[str | None, dict[str, int]]:
        """Per language, what each changed line the probes read says (its bits): the plan asks
        the same of the same lines. (Keyed by the classified lines themselves: no text more;
        made for each plan and let go with it, not held by the document.)"""
        found: dict[str | None, dict[str, int]] = {}
        for f in self.classified or ():
            said = found.setdefault(said_key(f.path), {})
            for hunk in f.hunks:
                said.update(zip(hunk.lines, hunk.bits))
        return found

    @cached_property
    def changed_lines(self) -> Counter[str]:
        """How often each changed (+/-) line occurs in the diff, line endings left out."""
        bodies = self.parsed.bodies if self.parsed is not None else []
        return Counter(
            line.rstrip("\r\n") for hunks in bodies for body in hunks for line in body if line[:1] in ("+", "-")
        )


def read(text: str, name: str = "") -> DiffDoc:
    """The diff split into lines and parsed once (see ParsedDiff), with its files' +/- counts."""
    lines = list(io.StringIO(text))
    parsed = _parse(text, lines)
    return DiffDoc(text, lines, parsed, () if parsed is None else tuple(_stat(f) for f in parsed.files))
