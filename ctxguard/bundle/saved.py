"""A bundle as saved, read back: what `ctxguard show` and the MCP server (ctxguard.agents) answer
from without recomputing anything.

An artifact's full text is its offload (the file a record names, checked against the sha256
digits it gives), or its content when nothing was left out. Lines are numbered from 1, as the
gap lines `... (lines A-B omitted)` of a cut number them. With `within` (folders), a bundle or
an offload that resolves outside them is refused: a saved bundle is input, and its paths are
not trusted to stay where they should. An offload is read only as ctxguard writes one (in an
`offload/` folder, named by its own sha256 digits, a regular file and not a link), so an edited
bundle cannot turn a reader on `.git/config` or an untracked `.env`; a bundle or an offload that
is not a regular file (a FIFO, a device) is refused at once.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path

from ctxguard.bundle.model import Bundle
from ctxguard.collect import inside
from ctxguard.errors import UsageError
from ctxguard.plan import GAP_LINE
from ctxguard.record import Record


def _inside(path: Path, within: Sequence[Path]) -> bool:
    return any(inside(root.resolve(), path) for root in within)


def load(path: Path, within: Sequence[Path] | None = None) -> Bundle:
    """The bundle at path (its JSON form), or UsageError saying why it cannot be read."""
    if within is not None and not _inside(path, within):
        raise UsageError(f"{path} is outside the repository and its .git/ctxguard/: refused")
    try:
        return Bundle.from_dict(json.loads(read_regular(path).decode("utf-8")))
    except FileNotFoundError:
        raise UsageError(f"no bundle at {path}") from None
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{path} is not a JSON bundle ctxguard can read ({exc}); show reads the json form") from None


def find(bundle: Bundle, name: str, path: Path | str = "the bundle") -> Record:
    """The record named `name`, or UsageError naming the ones there are."""
    record = next((r for r in bundle.records if r.artifact_name == name), None)
    if record is None:
        names = ", ".join(r.artifact_name for r in bundle.records[:20])
        raise UsageError(f"no artifact {name!r} in {path}; it has: {names}")
    return record


def searchable(records: Sequence[Record]) -> list[Record]:
    """The records whose full text a search reads: not a reference, not an error."""
    return [r for r in records if r.read == "required" and not r.error]


def full_text(record: Record, folder: Path, within: Sequence[Path] | None = None) -> str:
    """An artifact's whole text: its offload (checked against the sha256 digits the record
    gives), or its content when nothing was left out."""
    if record.offload is None:
        if record.tier == 1:
            return record.content
        raise UsageError(f"{record.artifact_name} left something out but names no full text (no offload)")
    target = folder / record.offload.path
    if within is not None and not _inside(target, within):
        raise UsageError(f"{record.artifact_name}'s full text ({target}) is outside the bundle's folders: refused")
    given = record.offload.sha256
    if not (
        _OFFLOAD_NAME.fullmatch(target.name)
        and (len(given) < 16 or given[:16] == target.name[:16])
        and target.parent.name == OFFLOAD_FOLDER
    ):
        raise UsageError(
            f"{record.artifact_name}'s full text ({record.offload.path}) is not a file ctxguard wrote "
            f"(those are {OFFLOAD_FOLDER}/<its sha256 digits>.<ext>): refused"
        )
    try:
        data = read_regular(target, links=False)
    except OSError as exc:
        raise UsageError(f"cannot read {record.artifact_name}'s full text at {target}: {exc.strerror}") from None
    if len(given) < 16 or not hashlib.sha256(data).hexdigest().startswith(given):
        raise UsageError(f"{target} is not {record.artifact_name}'s full text any more (its sha256 differs)")
    return data.decode("utf-8", "surrogateescape")


OFFLOAD_FOLDER = "offload"  # (as ctxguard.commands.runs writes them)
_OFFLOAD_NAME = re.compile(r"[0-9a-f]{16}\.[a-z0-9]{1,8}")


def read_regular(path: Path, links: bool = True) -> bytes:
    """A regular file's bytes; OSError (with a sentence as its strerror) for anything else, at
    once: opening a FIFO does not wait for a writer. `links=False` refuses a symbolic link."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | (0 if links else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if not links and path.is_symlink():
            raise OSError(exc.errno, "it is a symbolic link, not a file ctxguard wrote", str(path)) from None
        raise
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(0, "it is not a regular file (a FIFO, a device or a folder): refused", str(path))
        return handle.read()


def split_lines(text: str) -> list[str]:
    """The text's lines, numbered from 1 by their index + 1 (a final newline ends the last)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def line_range(wanted: str, count: int) -> tuple[int, int]:
    """`A-B` (or `A`) as (first, last) from 1, with last clipped to the text's `count` lines;
    UsageError when it is not a range of this text."""
    first_s, dash, last_s = wanted.strip().partition("-")
    if not first_s.isdigit() or (dash and not last_s.isdigit()):
        raise UsageError(f"lines {wanted!r}: give A-B (or A), line numbers from 1")
    first, last = int(first_s), int(last_s or first_s)
    if not 1 <= first <= last or first > count:
        raise UsageError(f"lines {wanted}: the full text has {count} lines")
    return first, min(last, count)


def gaps(content: str) -> list[tuple[int, int]]:
    """The raw line ranges (first, last) a cut's gap lines say it left out, in order."""
    return [(int(m.group(1)), int(m.group(2) or m.group(1))) for m in GAP_LINE.finditer(content)]
