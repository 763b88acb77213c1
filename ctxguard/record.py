"""The artifact record: the five contract fields first, then what helps an agent."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ctxguard.options import KindName

CONTRACT_FIELDS = ("artifact_name", "raw_tokens", "compacted_tokens", "truncated", "content")


Read = Literal["required", "reference"]  # read as it is, or a description of a file to read on demand
FILE_COLUMNS = ("path", "added", "removed", "status", "shown")  # a record's `files` rows

# Why an artifact has nothing to show: a git entry with no changed file (under its paths, or at
# all), a range with nothing in it, a files entry whose paths matched nothing. Its content says
# so in words (`[NO CHANGES]` …); the field is what the digest and the report ask.
Empty = Literal["no changes", "empty range", "no files matched"]
_EMPTY_CONTENTS: dict[str, Empty] = {
    "[NO CHANGES": "no changes",
    "[EMPTY RANGE": "empty range",
    "[NO FILES MATCHED": "no files matched",
}


def empty_of(content: str) -> Empty | None:
    """Why a record read back from a bundle is empty, from the words its content starts with."""
    return next((why for start, why in _EMPTY_CONTENTS.items() if content.startswith(start)), None)


@dataclass(frozen=True)
class Listed:
    """A changed file as a diff record lists it: its +/- counts, its status, and how much of it
    the content shows (`whole`, `cut` or `omitted`; None when not known: a streamed cut)."""

    path: str
    added: int
    removed: int
    status: str  # added | deleted | renamed | modified | binary
    shown: str | None = None

    def row(self) -> list[str | int | None]:
        """The file as a row of a record's `files` (columns: FILE_COLUMNS)."""
        return [self.path, self.added, self.removed, self.status, self.shown]


@dataclass(frozen=True)
class Offload:
    """Where a record's full text is kept: a path relative to the bundle's folder, and its
    sha256's first 16 hex digits (or more: a check compares the digits given)."""

    path: str
    sha256: str

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "sha256": self.sha256}


@dataclass(frozen=True)
class Referenced:
    """A reference record's file (`reference: true`): what the agent needs to open it."""

    path: str
    bytes: int
    tokens: int | None  # None for binary data
    lines: int | None
    sha256: str

    def to_dict(self) -> dict[str, str | int | None]:
        return {
            "path": self.path,
            "bytes": self.bytes,
            "tokens": self.tokens,
            "lines": self.lines,
            "sha256": self.sha256,
        }


# 1, 2 or 3 (the three-tier contract); 0 for an artifact whose content is not shown (unreadable, a reference)
Tier = Literal[0, 1, 2, 3]


@dataclass(frozen=True)
class Record:
    """One compressed artifact, exactly as it goes into a bundle."""

    artifact_name: str
    raw_tokens: int
    compacted_tokens: int
    truncated: bool
    content: str
    type: KindName
    tier: Tier
    budget: int
    encoding: str
    task: str | None = None
    notes: tuple[str, ...] = ()
    error: str | None = None
    read: Read = "required"  # or "reference": the content only describes a file to read on demand
    retention: dict[str, Any] | None = None  # {"probes": N, "kept": K[, "missed": [...]]}
    entry: str | None = None  # the config entry, when the record is one of its several
    missing: bool = False  # a configured file that does not exist, or a glob that matched nothing
    empty: Empty | None = None  # why it has nothing to show (not in the bundle: its content says it)
    diff: str | None = None  # a git entry's diff mode
    excluded_files: tuple[str, ...] = ()  # left out of the diff (generated or lock files)
    redacted: tuple[tuple[str, int], ...] = ()  # secrets replaced, by kind
    files: tuple[Listed, ...] | None = None  # a diff's changed files
    files_not_listed: int = 0
    reference: Referenced | None = None
    offload: Offload | None = None
    # What a tier-2 cut left out, counted as it was written (not in the bundle: its gap lines say it)
    omitted: tuple[tuple[str, int], ...] = ()

    def to_dict(self, in_bundle: bool = False) -> dict[str, Any]:
        """The record as JSON-ready data, contract fields first, stable key order. In a bundle
        the encoding is the bundle's, and `read` is said only when it is not "required"."""
        data: dict[str, Any] = {
            "artifact_name": self.artifact_name,
            "raw_tokens": self.raw_tokens,
            "compacted_tokens": self.compacted_tokens,
            "truncated": self.truncated,
            "content": self.content,
            "type": self.type,
            "tier": self.tier,
            "budget": self.budget,
        }
        if not in_bundle:
            data["encoding"] = self.encoding
        if not in_bundle or self.read != "required":
            data["read"] = self.read
        optional: dict[str, Any] = {
            "task": self.task,
            "notes": list(self.notes) or None,
            "retention": self.retention,
            "error": self.error,
            "entry": self.entry,
            "missing": self.missing or None,
            "diff": self.diff,
            "excluded_files": list(self.excluded_files) or None,
            "redacted": dict(self.redacted) or None,
            # (rows under their column names: a file costs half the tokens of an object per file)
            "files": None
            if self.files is None
            else {"columns": list(FILE_COLUMNS), "rows": [f.row() for f in self.files]},
            "files_not_listed": self.files_not_listed or None,
            "reference": self.reference.to_dict() if self.reference else None,
            "offload": self.offload.to_dict() if self.offload else None,
        }
        data.update((key, value) for key, value in optional.items() if value is not None)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], encoding: str) -> Record:
        """A record read back from a bundle (whose encoding it has)."""
        files = data.get("files")
        reference = data.get("reference")
        offload = data.get("offload")
        return cls(
            artifact_name=data["artifact_name"],
            raw_tokens=data["raw_tokens"],
            compacted_tokens=data["compacted_tokens"],
            truncated=data["truncated"],
            content=data["content"],
            type=data["type"],
            tier=data["tier"],
            budget=data["budget"],
            encoding=data.get("encoding", encoding),
            task=data.get("task"),
            notes=tuple(data.get("notes", ())),
            error=data.get("error"),
            read=data.get("read", "required"),
            retention=data.get("retention"),
            entry=data.get("entry"),
            missing=bool(data.get("missing")),
            empty=empty_of(data["content"]),
            diff=data.get("diff"),
            excluded_files=tuple(data.get("excluded_files", ())),
            redacted=tuple(data.get("redacted", {}).items()),
            files=None if files is None else tuple(Listed(*row) for row in files["rows"]),
            files_not_listed=data.get("files_not_listed", 0),
            reference=Referenced(**reference) if reference else None,
            offload=Offload(**offload) if offload else None,
        )

    @property
    def entry_name(self) -> str:
        """The config entry this record came from."""
        return self.entry or self.artifact_name


def error_record(name: str, reason: str, *, artifact_type: KindName, budget: int, encoding: str) -> Record:
    """A record for an artifact that could not be read: same shape, clearly marked."""
    return Record(
        artifact_name=name,
        raw_tokens=0,
        compacted_tokens=0,
        truncated=True,
        content=f"[ERROR: {reason}]",
        type=artifact_type,
        tier=0,
        budget=budget,
        encoding=encoding,
        error=reason,
    )


def omissions(record: Record) -> str:
    """What a tier-2 record left out, as its cut counted it: `compressed: 120 lines, 3 keys
    omitted` (never "nothing cut": tier 2 keeps what must be seen, not everything)."""
    counted = sorted(record.omitted, key=lambda item: item[0] != "line")  # (lines first, the rest as met)
    if not counted:
        return "compressed: rewritten shorter, nothing omitted"
    said = ", ".join(f"{n:,} {unit}{'s' if n != 1 else ''}" for unit, n in counted)
    return f"compressed: {said} omitted"


Status = Literal["OK", "COMPRESSED", "TRUNCATED", "MISSING", "ERROR", "REFERENCE"]


def status(record: Record) -> Status:
    """What happened to one artifact: MISSING (a configured file that does not exist), ERROR
    (could not be read), REFERENCE (listed, not included), TRUNCATED (cut), COMPRESSED (tier 2:
    rewritten shorter, every must-keep unit in) or OK."""
    if record.missing:
        return "MISSING"
    if record.error:
        return "ERROR"
    if record.read == "reference":
        return "REFERENCE"
    if record.truncated:
        return "TRUNCATED"
    return "COMPRESSED" if record.tier == 2 else "OK"


def offload_for(raw: str, suffix: str, directory: Path, relative_to: Path | None) -> tuple[Path, Offload]:
    """Where a cut artifact's full text will be kept (nothing written), and how a record names
    it: a path relative to `relative_to` (the bundle's folder) and the first 16 hex digits of the
    text's sha256 (64 bits: the file's name too; 14 tokens where the whole digest takes 43).
    `suffix`: its kind's (ctxguard.kinds: `log`, `md`, …)."""
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()
    target = directory / f"{digest[:16]}.{suffix}"
    shown = os.path.relpath(target, relative_to) if relative_to is not None else str(target)
    return target, Offload(Path(shown).as_posix(), digest[:16])
