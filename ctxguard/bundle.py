"""Records -> the bundle: schema-versioned, deterministic JSON, written atomically."""

from __future__ import annotations

import errno
import glob
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ctxguard import __version__
from ctxguard.collect import Source
from ctxguard.record import CONTRACT_FIELDS, Record
from ctxguard.report import LEVELS, usage
from ctxguard.tokens import Tokenizer

if TYPE_CHECKING:
    from ctxguard.pipeline import Result

SCHEMA = "ctxguard.bundle/v1"
OFFLOAD_KEEP = 200  # offloaded raw texts kept; older ones are pruned


def build(
    records: Sequence[Record],
    *,
    source: Source,
    encoding: str,
    total_budget: int | None,
    margin: float,
    tokenizer: Tokenizer,
    capacity: int | None = None,
    digest: str = "",
    digest_tokens: int = 0,
) -> dict[str, Any]:
    """The bundle as data. `bundle_tokens` is the count of the serialized bundle itself."""
    if capacity is None:
        capacity = sum(r.budget for r in records)
    bundle: dict[str, Any] = {
        "schema": SCHEMA,
        "ctxguard": __version__,
        "encoding": encoding,
        "total_budget": total_budget,
        "margin": margin,
        "budget_bounds": "written bundle",
        "totals": {
            "artifacts": len(records),
            "raw_tokens": sum(r.raw_tokens for r in records),
            "compacted_tokens": sum(r.compacted_tokens for r in records),
            "budget": sum(r.budget for r in records),
            "capacity": capacity,
            "truncated": sum(1 for r in records if r.truncated and r.read == "required"),
            "references": sum(1 for r in records if r.read == "reference"),
            "errors": sum(1 for r in records if r.error),
            "bundle_tokens": 0,
        },
        "usage": {},
        "source": {"repository": source.repository, "head": source.head, "base": source.base, "diff": source.diff},
        "digest": {"content": digest, "tokens": digest_tokens},
        "artifacts": [r.to_dict() for r in records],
    }
    used, _, level_name = usage(bundle)
    bundle["usage"] = {
        "tokens": used,
        "capacity": capacity,
        "share": round(used / capacity, 4) if capacity else 1.0,
        "level": level_name,
        "thresholds": {name: limit for limit, name in LEVELS} | {"CRITICAL": 1.0},
    }
    # The count is part of what it counts: settle it (two passes at most in practice).
    for _ in range(4):
        count = tokenizer.count(dumps(bundle))
        if count == bundle["totals"]["bundle_tokens"]:
            break
        bundle["totals"]["bundle_tokens"] = count
    return bundle


def dumps(bundle: dict[str, Any]) -> str:
    """Stable serialization: same bundle, same bytes."""
    return json.dumps(bundle, ensure_ascii=False, indent=2) + "\n"


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


@dataclass(frozen=True)
class Written:
    """A bundle as it is written: its data, its text in the chosen format and that text's token
    count, the full texts it names offloads for, and the records it was assembled from."""

    data: dict[str, Any]
    text: str
    tokens: int
    offloads: list[tuple[Record, str]]
    source_records: Sequence[Record]


def assemble(
    result: Result, *, fmt: str, offloads: Path | None, total_budget: int | None, margin: float, tokenizer: Tokenizer
) -> Written:
    """A pipeline result as the bundle file: offload references named (nothing written yet),
    the bundle built, rendered in `fmt` (json or markdown) and counted."""
    records = list(result.records)
    named = []
    for i, (record, artifact) in enumerate(zip(records, result.artifacts)):
        if record.truncated and artifact.text is not None and offloads is not None:
            records[i] = offload_reference(record, artifact.text, offloads)
            named.append((records[i], artifact.text))
    data = build(
        records,
        source=result.source,
        encoding=tokenizer.name,
        total_budget=total_budget,
        margin=margin,
        tokenizer=tokenizer,
        capacity=result.capacity,
        digest=result.digest,
        digest_tokens=result.digest_tokens,
    )
    if fmt == "markdown":
        text = to_markdown(data)
        return Written(data, text, tokenizer.count(text), named, result.records)
    # build() settled bundle_tokens to the count of exactly this text: no second count.
    return Written(data, dumps(data), data["totals"]["bundle_tokens"], named, result.records)


_SUFFIX = {"diff": "diff", "json": "json", "log": "log", "markdown": "md"}


def offload_reference(record: Record, raw: str, directory: Path) -> Record:
    """Name where a cut artifact's full text will be kept beside the bundle (nothing written)."""
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()
    target = directory / f"{digest}.{_SUFFIX.get(record.type, 'txt')}"
    return replace(record, extra=dict(record.extra, offload={"path": str(target), "sha256": digest}))


def write_offloads(items: Sequence[tuple[Record, str]], directory: Path) -> None:
    """Write the full texts the records name; prune the oldest files, never one named now."""
    named = set()
    for record, raw in items:
        target = Path(record.extra["offload"]["path"])
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


# `GREEN < 25 %, …, CRITICAL above`, from the thresholds the levels come from.
_LEVELS_TEXT = ", ".join(f"{name} < {round(limit * 100)} %" for limit, name in LEVELS) + ", CRITICAL above"


def _cut(record: dict[str, Any]) -> str:
    if record.get("read") == "reference":
        return "reference: not included"
    return "yes" if record["truncated"] else "no"


def to_markdown(bundle: dict[str, Any]) -> str:
    """The same bundle as one prompt-ready markdown document."""
    totals = bundle["totals"]
    source = bundle["source"]
    lines = [
        "# ctxguard bundle",
        "",
        f"Repository `{source['repository']}`, diff `{source['diff']}`, head `{source['head']}`"
        + (f", base `{source['base']}`" if source["base"] else "")
        + ".",
        f"{totals['artifacts']} artifacts, {totals['compacted_tokens']} of {totals['raw_tokens']} "
        f"raw tokens shown ({bundle['encoding']}); {totals['truncated']} truncated.",
        f"Budget usage: {bundle['usage']['tokens']} of {bundle['usage']['capacity']} tokens, "
        f"{bundle['usage']['level']} ({_LEVELS_TEXT}).",
        "",
        bundle["digest"]["content"].rstrip("\n"),
        "",
        "## Artifacts",
        "",
        "| artifact | type | tier | raw → shown / budget | truncated |",
        "|---|---|---|---|---|",
    ]
    for a in bundle["artifacts"]:
        lines.append(
            f"| {a['artifact_name']} | {a['type']} | {a['tier']} | {a['raw_tokens']} → "
            f"{a['compacted_tokens']} / {a['budget']} | {_cut(a)} |"
        )
    for a in bundle["artifacts"]:
        longest = max((len(run) for run in re.findall(r"`{3,}", a["content"])), default=2)
        fence = "`" * (longest + 1)
        lang = {"diff": "diff", "json": "json", "markdown": "markdown"}.get(a["type"], "text")
        lines += ["", f"### {a['artifact_name']}", ""]
        for note in a.get("notes", []):
            lines.append(f"> {note}")
        if "offload" in a:
            lines.append(f"> full text: `{a['offload']['path']}` (sha256 `{a['offload']['sha256']}`)")
        lines += [f"{fence}{lang}", a["content"].rstrip("\n"), fence]
    return "\n".join(lines) + "\n"
