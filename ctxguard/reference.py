"""Reference artifacts (`reference: true`): a file listed, not included.

An agent gets the file's path, size in bytes, token count, line count and sha256, with a short
preview of its first lines, and reads the file itself when it needs it. Such a record says
`read: "reference"` (every other record is `read: "required"`); its content is marked
`[REFERENCE: …]` and it is `truncated: true`, because the content is not the file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ctxguard import read
from ctxguard.engine import stream
from ctxguard.kinds.sink import Taker
from ctxguard.options import KindName
from ctxguard.read import decode, not_regular
from ctxguard.record import Record, Referenced
from ctxguard.secrets.redact import notes as redaction_notes
from ctxguard.secrets.redact import redact
from ctxguard.tokens.base import Tokenizer, warning_line
from ctxguard.words import clip

PREVIEW_LINES = 10  # first lines shown at most
PREVIEW_TOKENS = 200  # tokens of preview at most
PREVIEW_CHARS = 200  # characters of one preview line at most
_LAST_RESORT = "[REFERENCE: not included; the record's `reference` field says where it is]"


@dataclass(frozen=True)
class Described:
    """What a reference record says about its file."""

    path: str
    size: int
    sha256: str
    tokens: int | None  # None for binary data
    lines: int | None
    preview: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def fields(self) -> Referenced:
        """The record's `reference` field."""
        return Referenced(self.path, self.size, self.tokens, self.lines, self.sha256)


def describe(path: Path, name: str, tokenizer: Tokenizer, secrets: bool = True) -> Described | str:
    """The facts of a file to reference, or the reason it cannot be referenced."""
    problem = not_regular(path)
    if problem is not None:
        return problem.replace(str(path), name)

    try:
        with path.open("rb") as handle:
            sha256 = hashlib.file_digest(handle, "sha256").hexdigest()
        size = path.stat().st_size
        if size > read.STREAM_BYTES:  # counted in one pass, never read whole
            first = _First()
            scan = stream.scan(path, tokenizer, first, secrets=secrets)
            notes = [f"{scan.replaced} invalid UTF-8 sequences replaced with U+FFFD"] if scan.replaced else []
            notes += redaction_notes(scan.redacted, scan.allowed)
            return Described(name, size, sha256, scan.tokens, scan.lines, tuple(first.lines), tuple(notes))
        loaded = decode(path.read_bytes())
    except OSError as exc:
        return f"cannot read {name}: {exc.strerror or exc}"
    if loaded.text is None:  # binary: what it is and where, without tokens or a preview
        return Described(name, size, sha256, None, None, notes=(f"{loaded.error}: listed by size and sha256",))
    text, notes = loaded.text, list(loaded.notes)  # (decode notes replaced UTF-8 itself)
    if secrets:
        found = redact(text)
        text = found.text
        notes += redaction_notes(found.counts, found.allowed)
    lines = text.splitlines(keepends=True)
    return Described(
        name,
        size,
        sha256,
        tokenizer.count(text),
        len(lines),
        tuple(clip(line, PREVIEW_CHARS) for line in lines[:PREVIEW_LINES]),
        tuple(notes),
    )


class _First(Taker):
    """A stream sink that keeps a file's first lines."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def take(self, number: int, line: str) -> None:
        if len(self.lines) < PREVIEW_LINES:
            self.lines.append(clip(line, PREVIEW_CHARS))


def header(found: Described, tokenizer: Tokenizer) -> str:
    """The line that says what the file is and that it is not included."""
    if found.tokens is None:
        size = f"{found.size:,} bytes of binary data"
    else:
        estimated = "" if tokenizer.exact else ", estimated"
        size = f"{found.size:,} bytes, {found.tokens:,} tokens ({tokenizer.name}{estimated}), {found.lines:,} lines"
    return f"[REFERENCE: {found.path} is not included; read it when you need it: {size}, sha256 {found.sha256}]\n"


def content(found: Described, budget: int, tokenizer: Tokenizer) -> str:
    """The header and as much preview as fits in budget (at most PREVIEW_TOKENS of it)."""
    warning = warning_line(tokenizer)
    top = warning + header(found, tokenizer)
    room = budget - tokenizer.count(top)
    if room < 0:
        short = f"{warning}[REFERENCE: {found.path} is not included; see the record's `reference` field]\n"
        return short if tokenizer.count(short) <= budget else warning + _LAST_RESORT
    if not found.preview or found.lines is None:
        return top
    text = top
    # The most lines that fit (10 at most, so counting each try is cheap). Every try is counted:
    # "All 3 lines:" is shorter than "First 2 of 3 lines:", so fewer lines can cost more.
    for n in range(1, len(found.preview) + 1):
        title = f"All {n} lines:\n" if n == found.lines else f"First {n} of {found.lines:,} lines:\n"
        preview = title + "".join(found.preview[:n])
        if tokenizer.count(preview) <= PREVIEW_TOKENS and tokenizer.count(top + preview) <= budget:
            text = top + preview
    return text


def need(found: Described, tokenizer: Tokenizer) -> int:
    """Tokens the record's content takes with its whole preview."""
    return tokenizer.count(content(found, 1 << 30, tokenizer))


def record(found: Described, budget: int, tokenizer: Tokenizer, artifact_type: KindName) -> Record:
    """The reference record: the file described, its content within budget."""
    text = content(found, budget, tokenizer)
    return Record(
        artifact_name=found.path,
        raw_tokens=found.tokens or 0,
        compacted_tokens=tokenizer.count(text),
        truncated=True,
        content=text,
        type=artifact_type,
        tier=0,
        budget=budget,
        encoding=tokenizer.name,
        notes=found.notes,
        read="reference",
        reference=found.fields(),
    )
