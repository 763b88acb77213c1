"""One artifact's record, from its kind's reading and its budget: compressed (or streamed, or
described when it is a reference), with what collection knew of it, and its full text named
when the cut left something out. (ctxguard.pipeline decides the budgets.)"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ctxguard import reference
from ctxguard.collect import Artifact
from ctxguard.engine import preview, stream
from ctxguard.engine.tiers import compress, min_budget
from ctxguard.kinds.registry import KINDS
from ctxguard.kinds.sink import Sink
from ctxguard.options import KindName
from ctxguard.read import read_artifact
from ctxguard.record import Listed, Offload, Record, error_record, offload_for
from ctxguard.secrets.redact import notes, redact
from ctxguard.tokens.base import Encoded, Tokenizer


def offloaded(
    record: Record, artifact: Artifact, directory: Path, relative_to: Path | None, kept: dict[str, tuple[Path, Offload]]
) -> Record:
    """The record naming where its full text is kept, when it left something out (tier 2 or 3)."""
    if record.tier < 2 or artifact.text is None:
        return record
    if record.artifact_name not in kept:
        suffix = KINDS[record.type].offload if record.type in KINDS else "txt"
        kept[record.artifact_name] = offload_for(artifact.text, suffix, directory, relative_to)
    return replace(record, offload=kept[record.artifact_name][1])


def streamed(
    artifact: Artifact,
    kind: KindName,
    budget: int,
    prepared: tuple[stream.Scan, Sink],
    tokenizer: Tokenizer,
) -> Record:
    assert artifact.stream is not None
    record = stream.finish(*prepared, artifact.stream, artifact.name, budget, tokenizer, kind, artifact.options)
    if record is None:  # it fits after all: read it whole
        loaded = read_artifact(artifact.stream)
        whole = redacted(replace(artifact, text=loaded.text, stream=None))
        encoded = tokenizer.encode(whole.text) if whole.text is not None else None
        doc = KINDS[kind].read(whole.text, whole.name) if whole.text is not None else None
        return compressed(whole, kind, budget, encoded, tokenizer, doc)
    record = attach(record, artifact)
    if record.files is None:
        return record
    files = listing(record.files, record.budget, tokenizer, KINDS[kind].row_rank)
    return replace(record, files=files, files_not_listed=record.files_not_listed + len(record.files) - len(files))


def referenced(
    artifact: Artifact, found: reference.Described, kind: KindName, budget: int, tokenizer: Tokenizer
) -> Record:
    return attach(reference.record(found, budget, tokenizer, kind), artifact)


def attach(record: Record, artifact: Artifact) -> Record:
    """The record with what collection knew of its artifact: its notes first, its diff mode and
    excluded files, the secrets redacted, its entry when the record is one of several, whether
    it is missing, or empty and why."""
    return replace(
        record,
        notes=artifact.notes + record.notes,
        entry=artifact.entry if artifact.entry != artifact.name else None,
        missing=artifact.missing,
        empty=artifact.empty,
        diff=artifact.diff,
        excluded_files=artifact.excluded_files,
        redacted=artifact.redacted or record.redacted,
    )


def redacted(artifact: Artifact) -> Artifact:
    if artifact.text is None:
        return artifact
    found = redact(artifact.text)
    if not found.counts and not found.allowed:
        return artifact
    return replace(
        artifact,
        text=found.text,
        redacted=tuple(found.counts.items()),
        notes=(*artifact.notes, *notes(found.counts, found.allowed)),
    )


def compressed(
    artifact: Artifact,
    kind: KindName,
    budget: int,
    tokens: Encoded | None,
    tokenizer: Tokenizer,
    doc: Any,
    listed: int | None = None,
) -> Record:
    """The artifact compressed from its kind's reading (`doc`); a record whose kind lists rows
    (a diff's files) lists them with how much of each the content shows."""
    reader = KINDS[kind]
    if artifact.text is None or tokens is None:
        record = error_record(
            artifact.name, artifact.error or "unreadable", artifact_type=kind, budget=budget, encoding=tokenizer.name
        )
        if artifact.reference is not None:
            record = replace(record, read="reference")
    else:
        # (a record that lists its files itself: its content need not start with them too)
        how = replace(artifact.options, listing=reader.rows is None)
        number = reader.numbered if artifact.line_numbers else None
        room = budget
        for _ in range(6):  # with line numbers, cut to a smaller room until the numbered content fits
            record = compress(
                artifact.text,
                room,
                tokenizer=tokenizer,
                name=artifact.name,
                artifact_type=kind,
                options=how,
                encoded=tokens,
                doc=doc,
            )
            if number is None:
                break
            content = number(record.content, artifact.text)
            cost = tokenizer.count(content)
            over = cost - budget
            if over <= 0:
                record = replace(record, content=content, compacted_tokens=cost, budget=budget)
                break
            if room - over - 8 < min_budget(tokenizer):
                record = replace(record, budget=budget, notes=(*record.notes, "line numbers left out: no room"))
                break
            room -= over + 8
        if preview.useless(record):
            record = preview.preview(record, artifact.text, tokenizer)
    if reader.rows is not None and artifact.text is not None:  # (a diff's record lists its files)
        rows = reader.rows(doc, record.content, record.tier)
        files = listing(rows, record.budget, tokenizer, reader.row_rank, listed)
        record = replace(record, files=files, files_not_listed=len(rows) - len(files))
    return attach(record, artifact)


SHOWN = ("whole", "cut")  # a listed file the content shows


def listing(
    rows: Sequence[Listed],
    budget: int,
    tokenizer: Tokenizer,
    rank: Callable[[str], float] = lambda path: 0,
    limit: int | None = None,
) -> tuple[Listed, ...]:
    """The files a record lists, in diff order: every file its content shows (whole or cut),
    then the files it omits (or may omit: a streamed cut), in its kind's order (`rank`: a
    diff's source before tests before docs and lockfiles) and the larger change first, while
    their rows fit in a quarter of the record's budget, so the list of what was left out never
    crowds out the content. At most `limit` rows (when the bundle's fixed part is over the
    total: the shown ones first). The rest are counted (`files_not_listed`)."""
    room = budget // 4
    order = sorted(
        range(len(rows)),
        key=lambda i: (rows[i].shown not in SHOWN, rank(rows[i].path), -rows[i].added - rows[i].removed, i),
    )
    chosen: list[int] = []
    for i in order[:limit]:
        if rows[i].shown not in SHOWN:
            room -= tokenizer.count(json.dumps(rows[i].row(), ensure_ascii=False, separators=(",", ":"))) + 1
            if room < 0:
                break
        chosen.append(i)
    return tuple(rows[i] for i in sorted(chosen))
