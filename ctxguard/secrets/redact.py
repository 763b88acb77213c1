"""Secret redaction, before anything is counted, compressed, written or offloaded.

A match becomes `[REDACTED:<kind>]`; only the counts per kind are reported, never the values.
A replacement never changes a text's structure: every line keeps its place and its line ending,
so a redacted diff still parses and a redacted JSON string is still a JSON string (the
replacement holds no quote or backslash). Detectors come from the vendors' documented formats
(`ctxguard.secrets`), plus assignments to secret-looking names; random-looking values are
redacted only where a name says they are secret, so lockfile hashes, UUIDs, commit ids and
base64 test data pass untouched.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from ctxguard.literals import finder
from ctxguard.secrets import assign
from ctxguard.secrets.formats import (
    ANCHOR_WORDS,
    BY_ANCHOR,
    PEM_BEGIN,
    PEM_END,
    PROGRAMS,
    SHORT_SPELLINGS,
    Format,
    find_anchors,
    word_at,
)
from ctxguard.secrets.names import STEMS
from ctxguard.secrets.values import filler, placeholder


@dataclass(frozen=True)
class Redacted:
    """The text with secrets replaced, how many of each kind were found, and how many values
    were kept because their line carries an allow marker."""

    text: str
    counts: dict[str, int]
    allowed: int = 0


def note(counts: dict[str, int]) -> str:
    """One sentence for a record's notes: how many values of which kinds were redacted."""
    total = sum(counts.values())
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
    return f"redacted {total} secret value{'s' if total != 1 else ''} ({kinds})"


def notes(counts: dict[str, int], allowed: int) -> tuple[str, ...]:
    """The record's sentences on redaction: what was redacted, and what an allow marker kept."""
    said: tuple[str, ...] = (note(counts),) if counts else ()
    if allowed:
        said += (
            f"kept {allowed} secret-looking value{'s' if allowed != 1 else ''} on lines marked "
            "`ctxguard: allow` (or gitleaks:allow, pragma: allowlist secret, trufflehog:ignore)",
        )
    return said


# A line that says its values are not secrets: ours, and the markers gitleaks, detect-secrets and
# TruffleHog users already write.
# (Written in lower case, as their tools document them.)
ALLOW = re.compile(r"ctxguard:[ \t]*allow|gitleaks:allow|pragma:[ \t]*allowlist[ -]secret|trufflehog:ignore")


def marker(kind: str) -> str:
    """What a secret of this kind is replaced by."""
    return f"[REDACTED:{kind}]"


def redact(text: str) -> Redacted:
    """Replace every recognised secret with [REDACTED:<kind>], line structure unchanged."""
    counts: Counter[str] = Counter()
    allowed = 0
    if "PRIVATE KEY" in text:
        text, allowed = _private_keys(text, counts)
    found: list[tuple[int, int, str]] = []
    lines: dict[int, int] = {}  # start -> end of each line with a hint word or an anchor
    start = end = -1
    sent = looked = False
    for pos, anchor in find_anchors(text):
        if anchor in SHORT_SPELLINGS and not word_at(text, pos, anchor):
            continue
        if pos > end:  # anchors come in order: a line's bounds are found once
            start, end = _line(text, pos)
            sent = looked = False
        if not sent:  # (a vendor's anchor alone, a URL's `://`: readers only for a line naming a secret)
            if anchor in _NAMING:
                sent = True
            elif not looked:
                looked = True
                sent = _names_a_secret(text, start, end)
            if sent:
                lines[start] = end
        found.extend(_vendor(text, pos, end, BY_ANCHOR.get(anchor, ())))
    lines.update(_program_lines(text))
    for start, end in sorted(lines.items()):
        found.extend(_assignments(text, start, end))
    if found:
        found, kept = _allowed(text, found)
        allowed += kept
    return Redacted(_splice(text, found, counts), dict(sorted(counts.items())), allowed)


def _program_lines(text: str) -> Iterator[tuple[int, int]]:
    """The start and end of each line naming a program whose command line may hold a password
    (`mysql -pX`): found in one scan for them all (a search for each read a text of megabytes
    five times)."""
    end = -1
    for pos in finder(PROGRAMS)(text):  # (in order: a line's bounds are found once)
        if pos > end:
            start, end = _line(text, pos)
            yield start, end


_NAMING = frozenset(word for word in ANCHOR_WORDS if any(stem in word.lower() for stem in STEMS))


def _names_a_secret(text: str, start: int, end: int) -> bool:
    """Whether the line text[start:end] may hold a secret's name: the assignment readers find
    values only under a name classify accepts (or on a program's command line: found apart)."""
    line = text[start:end].lower()
    for stem in STEMS:
        if stem in line:
            return True
    return False


def _allowed(text: str, found: list[tuple[int, int, str]]) -> tuple[list[tuple[int, int, str]], int]:
    """The spans whose line carries no allow marker, and how many were kept for one. (Each
    line's bounds are found once, the spans visited in order: a search from each span to its
    line's ends read a long line once per secret on it.)"""
    marked: dict[int, bool] = {}  # a line's start: whether it carries the marker
    line_of: dict[int, int] = {}  # a span's start: its line's start
    start = end = -1
    for pos in sorted({span[0] for span in found}):
        if not start <= pos <= end:  # (a line's bounds hold no break: every place inside has them)
            start, end = _line(text, pos)
            if start not in marked:
                marked[start] = ALLOW.search(text, start, end) is not None
        line_of[pos] = start
    keep: list[tuple[int, int, str]] = []
    dropped: list[tuple[int, int, str]] = []
    for span in found:
        (dropped if marked[line_of[span[0]]] else keep).append(span)
    return keep, len(_disjoint(dropped))


def _vendor(text: str, pos: int, end: int, formats: tuple[Format, ...]) -> list[tuple[int, int, str]]:
    """The first of formats that matches at the anchor found at pos, as a span."""
    for fmt in formats:
        if fmt.back:
            match = fmt.pattern.search(text, max(0, pos - fmt.back), end)
            if match is None or match.start() > pos:
                continue
        else:
            match = fmt.pattern.match(text, pos, end)
            if match is None:
                continue
        value = match.group(fmt.group)
        if filler(value) or (fmt.group and placeholder(value)) or (fmt.check is not None and not fmt.check(value)):
            continue
        return [(match.start(fmt.group), match.end(fmt.group), fmt.kind)]
    return []


def _assignments(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """Values assigned to secret names on the line text[start:end], and on the lines after a
    secret name that stands alone (an env list's `value:`, an XML element's body)."""
    body = text[start:end]
    found = [(start + s, start + e, kind) for s, e, kind in assign.spans(body)]
    secret = assign.pending(body)
    if secret is not None:
        at = end
        for _ in range(3):
            following = _next_line(text, at)
            if following is None:
                break
            at = following
            line_end = _line(text, at)[1]
            span = assign.pending_value(text[at:line_end], secret)
            if span is not None:
                found.append((at + span[0], at + span[1], span[2]))
                break
            at = line_end
    return found


_RARE_BREAKS = re.compile(r"[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def _line(text: str, pos: int) -> tuple[int, int]:
    """The start and end (before its ending) of the line holding pos."""
    start = text.rfind("\n", 0, pos) + 1
    start = text.rfind("\r", start, pos) + 1 or start
    found = _BREAK.search(text, pos)
    end = found.start() if found else len(text)
    if _RARE_BREAKS.search(text, start, end):  # a line break that splitlines also honours
        breaks = [m.start() for m in _RARE_BREAKS.finditer(text, start, end)]
        start = max([start] + [b + 1 for b in breaks if b < pos])
        end = min([end] + [b for b in breaks if b >= pos])
    return start, end


_BREAK = re.compile(r"[\n\r]")


def _next_line(text: str, end: int) -> int | None:
    """Where the line after the one ending at `end` starts, or None at the text's end."""
    if end >= len(text):
        return None
    return end + 2 if text.startswith("\r\n", end) else end + 1


def _disjoint(found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The spans earliest first (the longest of those that start together), overlaps dropped:
    two readers may find the same value."""
    out: list[tuple[int, int, str]] = []
    at = 0
    for span in sorted(found, key=lambda span: (span[0], -span[1])):
        if span[0] >= at:
            out.append(span)
            at = span[1]
    return out


def _splice(text: str, found: list[tuple[int, int, str]], counts: Counter[str]) -> str:
    """The text with each span replaced by its marker (see _disjoint)."""
    if not found:
        return text
    out: list[str] = []
    at = 0
    for start, end, kind in _disjoint(found):
        out.append(text[at:start])
        out.append(marker(kind))
        counts[kind] += 1
        at = end
    out.append(text[at:])
    return "".join(out)


_ENDING = re.compile(r"(?:\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029])\Z")


def _split(line: str) -> tuple[str, str]:
    """A line (as splitlines keeps it) as its body and its line ending."""
    found = _ENDING.search(line)
    return (line[: found.start()], found.group(0)) if found else (line, "")


def _private_keys(text: str, counts: Counter[str]) -> tuple[str, int]:
    """PEM private-key blocks: the BEGIN line's tag becomes the marker, the base64 runs of the
    lines after it are removed up to the END tag (or, without one, while lines hold base64), and
    everything else on those lines (a diff mark, a log prefix, a closing quote) and every line
    ending stays. A block whose BEGIN line carries an allow marker is kept (counted)."""
    lines = text.splitlines(keepends=True)
    i = allowed = 0
    while i < len(lines):
        body, ending = _split(lines[i])
        begin = PEM_BEGIN.search(body)
        if begin is None:
            i += 1
            continue
        if ALLOW.search(body):
            allowed += 1
            i += 1
            continue
        end = PEM_END.search(body, begin.end())
        after = body[begin.end() : end.start() if end else len(body)]
        if not _BASE64_RUN.search(after) and (
            end is not None or i + 1 >= len(lines) or not _BASE64_RUN.search(lines[i + 1])
        ):
            i += 1  # `the '-----BEGIN RSA PRIVATE KEY-----' marker` names a key; it holds none
            continue
        counts["private_key"] += 1
        if end is not None:  # the whole block on one line (a JSON string, an env value)
            lines[i] = body[: begin.start()] + marker("private_key") + body[end.end() :] + ending
            continue  # the same line may hold another block
        lines[i] = body[: begin.start()] + marker("private_key") + ending
        closing = next((j for j in range(i + 1, min(len(lines), i + 400)) if PEM_END.search(lines[j])), None)
        mark = body[0] if body[:1] in ("+", "-", " ") and begin.start() > 0 else ""  # in a diff
        j = i + 1
        while j < len(lines) and (closing is None or j <= closing):
            inner, inner_ending = _split(lines[j])
            if j == closing:
                found = PEM_END.search(inner)
                assert found is not None
                inner = inner[: found.start()] + inner[found.end() :]
            elif closing is None and not (_BASE64_RUN.search(inner) or not inner.strip()):
                break  # no END line: the block ends with its last base64-looking line
            kept = mark if mark and inner.startswith(mark) else ""
            emptied = kept + _BASE64_RUN.sub("", inner[len(kept) :])
            if not emptied and (not inner_ending or (lines[j - 1].endswith("\r") and inner_ending.startswith("\n"))):
                emptied = " "  # an empty last line would vanish; after a bare \r, join the \n
            lines[j] = emptied + inner_ending
            j += 1
        i = j
    return "".join(lines), allowed


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
