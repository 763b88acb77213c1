"""Reading one artifact file into text, or into a clear reason why not."""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

_SNIFF = 8192
STDIN_LIMIT = 1 << 30  # standard input is spooled to a temporary file up to this many bytes
STREAM_BYTES = 32 * 1024 * 1024  # a file larger than this is read in one pass, not whole (ctxguard.engine.stream)
BINARY = "binary data (NUL bytes); not a text artifact"


class BinaryData(ValueError):
    """A NUL byte in what was taken for text (past the first block that was sniffed)."""

    def __init__(self, offset: int) -> None:
        super().__init__(f"binary data (a NUL byte at byte {offset:,}); not a text artifact")


@dataclass(frozen=True)
class Loaded:
    """An artifact's text, with notes on what reading it changed; or the reason it failed."""

    text: str | None
    error: str | None = None
    notes: tuple[str, ...] = ()


def decode(data: bytes) -> Loaded:
    """Bytes to text: BOMs honoured, NUL-bearing data refused, bad UTF-8 replaced and noted."""
    for bom, codec in (
        (codecs.BOM_UTF32_LE, "utf-32"),
        (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            return Loaded(data.decode(codec, "replace"), notes=(f"decoded from {codec.upper()}",))
    nul = data.find(b"\x00")
    if 0 <= nul < _SNIFF:
        return Loaded(None, error=BINARY)
    if nul >= 0:
        return Loaded(None, error=str(BinaryData(nul)))
    if (share := not_text_share(data)) > NOT_TEXT_LIMIT:
        return Loaded(None, error=not_text(share))
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return Loaded(data.decode("utf-8"))
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        bad = text.count("\ufffd")
        return Loaded(text, notes=(f"{bad} invalid UTF-8 sequences replaced with U+FFFD",))


NOT_TEXT_LIMIT = 0.1  # (a Latin-1 file has a few bad bytes in a thousand; random bytes, most)


def not_text_share(data: bytes) -> float:
    """The share of the first block's characters that are not UTF-8 (random bytes without a
    NUL: an image, a compressed file, with a .log name)."""
    head = data[:_SNIFF]
    if not head or head.startswith(codecs.BOM_UTF8):
        return 0.0
    text = head.decode("utf-8", "replace")
    end = len(text.rstrip("\ufffd")) if len(data) > _SNIFF else len(text)  # (a sequence cut at the block's end)
    return text.count("\ufffd", 0, end) / max(1, end)


def not_text(share: float) -> str:
    """The reason data with that share of bad UTF-8 is not read as text."""
    return f"binary data ({share:.0%} of its first {_SNIFF // 1024} KiB is not UTF-8 text); not a text artifact"


def read_artifact(path: str | Path) -> Loaded:
    """Read a file as an artifact; every failure becomes a reason, never an exception."""
    problem = not_regular(path)
    if problem is not None:
        return Loaded(None, error=problem)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return Loaded(None, error=_failure(path, exc))
    return decode(data)


def not_regular(path: str | Path) -> str | None:
    """Why path cannot be read as an artifact without reading it (missing, a FIFO, ...), or None."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return _failure(path, exc)
    if stat.S_ISREG(mode):
        return None
    # Reading a FIFO, socket or device could block forever or never end: refuse at once.
    return f"{path} is {_what(mode)}, not a regular file" + (
        "; to compress piped output, pipe it to `ctxguard compress -`" if stat.S_ISFIFO(mode) else ""
    )


def _failure(path: str | Path, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"artifact not found at {path}"
    if isinstance(exc, PermissionError):
        return f"cannot read {path}: permission denied"
    return f"cannot read {path}: {exc.strerror or exc}"


def _what(mode: int) -> str:
    """What kind of file system entry a stat mode describes."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a file"


@contextlib.contextmanager
def spooled_stdin() -> Iterator[Path | str]:
    """Standard input as a temporary file while the block runs (see spool), or why not."""
    with tempfile.TemporaryDirectory(prefix="ctxguard-stdin-") as folder:
        yield spool(sys.stdin.buffer, Path(folder))


def spool(stream: BinaryIO, folder: Path, limit: int = STDIN_LIMIT) -> Path | str:
    """Standard input copied to a file in folder, a block at a time (bounded memory), so it is
    read like any file (big ones streamed); or why not: binary data (told from the first block,
    so `/dev/zero` stops at once) or more than `limit` bytes."""
    path = folder / "stdin"
    total = 0
    with path.open("wb") as out:
        while block := stream.read(1 << 20):
            if total == 0 and not block.startswith(_BOMS) and b"\x00" in block[:_SNIFF]:
                return BINARY
            if total == 0 and not block.startswith(_BOMS) and (share := not_text_share(block)) > NOT_TEXT_LIMIT:
                return not_text(share)
            total += len(block)
            if total > limit:
                return (
                    f"standard input is over {limit // (1 << 20):,} MiB; write it to a file and pass "
                    "the file's path instead of -"
                )
            out.write(block)
    return path


_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def big(path: Path) -> bool:
    """A regular file over STREAM_BYTES: its kind decides whether it is read in one pass or
    whole (ctxguard.pipeline); False when it cannot be asked (reading it says why)."""
    try:
        return path.is_file() and path.stat().st_size > STREAM_BYTES
    except OSError:
        return False
