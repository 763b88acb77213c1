"""Files ctxguard writes beside a bundle: atomically, never half a file, what a killed run left
removed by the next; the offloaded full texts (the newest kept) and the per-artifact split."""

from __future__ import annotations

import errno
import glob
import json
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ctxguard.record import CONTRACT_FIELDS, Record

OFFLOAD_KEEP = 200  # offloaded raw texts kept; older ones are pruned


def write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file and rename, so a reader never sees half a file. The temporary
    file's name holds the writer's process id: what a killed run left is removed by the next."""
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory; name a file inside it", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_STALE = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.[^.]+\.tmp")


def remove_stale(path: Path) -> list[Path]:
    """Remove the temporary files a killed writer of path left beside it (their process is gone);
    those of live writers stay. Returns what was removed."""
    removed = []
    for candidate in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        match = _STALE.fullmatch(candidate.name)
        if match is None or match.group("name") != path.name or _alive(int(match.group("pid"))):
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
    for target, raw in items:
        if not target.exists():
            write_atomic(target, raw)
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
    for index, record in enumerate(records, 1):
        data = {key: record.to_dict()[key] for key in CONTRACT_FIELDS}
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in record.artifact_name)
        path = directory / f"{index:03d}-{safe[:80]}.json"
        write_atomic(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        written.append(path)
    return written
