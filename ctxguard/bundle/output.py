"""Files ctxguard writes beside a bundle: atomically, never half a file, what a killed run left
removed by the next; the offloaded full texts (the newest kept) and the per-artifact split."""

from __future__ import annotations

import errno
import functools
import glob
import json
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from ctxguard.record import CONTRACT_FIELDS, Record

OFFLOAD_KEEP = 200  # offloaded raw texts kept; older ones are pruned


def write_atomic(path: Path, text: str, clean: bool = True) -> None:
    """Write via a temporary file and rename, so a reader never sees half a file. The temporary
    file's name holds the writer's process id: what a killed run left is removed by the next
    (`clean=False`: the caller removed those of the whole folder once, `remove_stale_in`)."""
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory; name a file inside it", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    if clean:
        remove_stale(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())  # (mkstemp's 0600 is for the temporary name, not the file)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@functools.cache
def _umask() -> int:
    """The process's umask (read by setting it, so once, and put back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_STALE = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.[^.]+\.tmp")


def remove_stale(path: Path) -> list[Path]:
    """Remove the temporary files a killed writer of path left beside it (their process is gone);
    those of live writers stay. Returns what was removed."""
    return _remove(path.parent.glob(f".{glob.escape(path.name)}.*.tmp"), path.name)


def remove_stale_in(directory: Path) -> list[Path]:
    """The same for every file of a folder, in one scan of it: a folder of many files written
    at once (offloads, a split) is not scanned again for each."""
    return _remove(directory.glob(".*.tmp"), None) if directory.is_dir() else []


def _remove(candidates: Iterable[Path], name: str | None) -> list[Path]:
    removed = []
    for candidate in candidates:
        match = _STALE.fullmatch(candidate.name)
        if match is None or (name is not None and match.group("name") != name) or _alive(int(match.group("pid"))):
            continue
        candidate.unlink(missing_ok=True)
        removed.append(candidate)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process (or a number no process has): leave it alone
    return True


def write_offloads(items: Sequence[tuple[Path, str]], directory: Path) -> None:
    """Write the full texts (each to its path in directory); prune the oldest files there,
    never one named now."""
    named = set()
    remove_stale_in(directory)
    for target, raw in items:
        if not target.exists():
            write_atomic(target, raw, clean=False)
        os.utime(target)
        named.add(target.name)
    if items:
        _prune(directory, named)


def _prune(directory: Path, keep: set[str]) -> None:
    files = sorted(directory.glob("*.*"), key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    old = [p for p in files if p.name not in keep][max(0, OFFLOAD_KEEP - len(keep)) :]
    for path in old:
        path.unlink(missing_ok=True)


def split_records(records: Sequence[Record], directory: Path) -> list[Path]:
    """One JSON file per artifact in the exact five-field shape."""
    written = []
    remove_stale_in(directory)
    for index, record in enumerate(records, 1):
        data = {key: record.to_dict()[key] for key in CONTRACT_FIELDS}
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in record.artifact_name)
        path = directory / f"{index:03d}-{safe[:80]}.json"
        write_atomic(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n", clean=False)
        written.append(path)
    return written
