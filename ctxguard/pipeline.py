"""collect -> count -> reserve the digest -> allocate -> compress: what a bundle is made of."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ctxguard import digest, preview, reference, stream
from ctxguard.budget import Request, allocate, capacity, too_small
from ctxguard.bundle import offload_for
from ctxguard.classify import classify
from ctxguard.collect import Artifact, Source, collect
from ctxguard.config import Config
from ctxguard.kinds import KINDS
from ctxguard.kinds.diff import DiffDoc, file_coverage
from ctxguard.kinds.diff.numbers import numbered
from ctxguard.options import Options
from ctxguard.read import BinaryData
from ctxguard.record import Listed, Offload, Record, error_record
from ctxguard.redact import note, redact
from ctxguard.sink import Sink
from ctxguard.tiers import compress, min_budget, overhead
from ctxguard.tokens import Encoded, Tokenizer


@dataclass(frozen=True)
class Result:
    """The records in config order, the artifacts they came from, the diff's source, the digest."""

    records: list[Record]
    artifacts: list[Artifact]
    source: Source
    capacity: int  # the budget the whole bundle may use
    digest: str = ""
    digest_tokens: int = 0
    offloads: tuple[tuple[Path, str], ...] = ()  # full texts to keep: (where, text)


# The token count of the bundle the command would write from a result, in its format.
Written = Callable[[Result], int]


def run(
    config: Config,
    repo: Any,
    tokenizer: Tokenizer,
    diff_override: str | None = None,
    missed: bool = False,
    written: Written | None = None,
    reason: str | None = None,
    offloads: Path | None = None,
    relative_to: Path | None = None,
) -> Result:
    """Collect every artifact, reserve the digest, allocate budgets, compress each one.

    With a total_budget and `written`, the bundle as written (fields, JSON escaping, file lists)
    is measured and, while it is over the total, that overhead is reserved and the budgets are
    allocated again, so the written file is what total_budget bounds.

    With `offloads` (a folder), every record that leaves something out names where its full text
    will be kept there (a path relative to `relative_to`, and its sha256); the result lists the
    texts to write. A streamed record's full text is its file.
    """
    artifacts, source = collect(config, repo, diff_override, reason)
    if config.redact:  # before anything is counted, compressed, summarised or offloaded
        artifacts = [_redacted(a) for a in artifacts]
    described = _described(artifacts, tokenizer, config.redact)
    refs = {i: d for i, d in described.items() if isinstance(d, reference.Described)}
    artifacts = [replace(a, error=d) if isinstance(d := described.get(i), str) else a for i, a in enumerate(artifacts)]
    # Encoded once: the counts drive allocation and the same token arrays drive the cuts.
    encoded = [tokenizer.encode(a.text) if a.text is not None else None for a in artifacts]
    kinds = [
        classify(a.name, "".join(refs[i].preview) if i in refs else a.text or "", a.type)
        for i, a in enumerate(artifacts)
    ]
    # Big files: one streaming pass each, which counts them and keeps what their cut may show.
    streams = {}
    for i, a in enumerate(artifacts):
        if a.stream is None:
            continue
        try:
            streams[i] = stream.prepare(
                a.stream, tokenizer, kinds[i], _options(config, a).tier3, config.redact, head_budget=a.budget
            )
        except BinaryData as exc:  # a NUL byte past the first block: not text after all
            artifacts[i] = replace(a, stream=None, text=None, error=str(exc))
    # Each artifact read once by its kind: the digest, every try of the budgets and the
    # coverage of a cut diff all ask that one reading.
    docs = {
        i: KINDS[kind].read(a.text, a.name)
        for i, (a, kind) in enumerate(zip(artifacts, kinds))
        if a.text is not None and i not in streams
    }
    found = digest.facts([(artifacts[i].name, kinds[i], doc) for i, doc in docs.items()])
    found = digest.merge(found, [(artifacts[i].name, sink) for i, (_, sink) in streams.items()])
    needs = _needs(artifacts, encoded, {i: state.tokens for i, (state, _) in streams.items()}, refs, docs, tokenizer)
    requests = [Request(a.budget, need, a.priority, a.entry, a.shares) for a, need in zip(artifacts, needs)]
    # The digest's widest possible status lines, to reserve its room before the budgets exist.
    placeholders = [
        replace(
            error_record(a.name, a.error or "", artifact_type="text", budget=0, encoding=""),
            retention={"probes": 999_999, "kept": 999_999},
        )
        for a in artifacts
    ]
    reserved = tokenizer.count(digest.render(found, placeholders, worst=True))
    floor = min_budget(tokenizer)
    kept: dict[str, tuple[Path, Offload]] = {}  # offloads named, by artifact
    bundle_part = 0  # reserved for the written bundle's own fields, escaping and lists
    listed: int | None = None  # files listed per diff record, once the lists must shrink to fit
    best: tuple[int, list[Record], str, int] | None = None  # the least reserve that fit, its records
    over_at: int | None = None  # the greatest reserve known to leave the bundle over the total
    for _ in range(16):
        budgets = allocate(requests, config.total_budget, config.margin, reserved + bundle_part, floor)
        records = [
            _streamed(config, a, kind, b, streams[i], tokenizer, missed)
            if i in streams
            else _referenced(a, refs[i], kind, b, tokenizer)
            if i in refs
            else _record(config, a, kind, b, e, tokenizer, missed, docs.get(i), listed)
            for i, (a, kind, b, e) in enumerate(zip(artifacts, kinds, budgets, encoded))
        ]
        if offloads is not None:
            records = [_offloaded(r, a, offloads, relative_to, kept) for r, a in zip(records, artifacts)]
        text = digest.render(found, records)
        used = tokenizer.count(text)
        if used > reserved:  # the real digest outgrew its reserve: again, with more room
            reserved = used + 16
            continue
        if written is None or config.total_budget is None:
            break
        draft = Result(
            records,
            artifacts,
            source,
            capacity(requests, config.total_budget, config.margin, reserved, floor),
            text,
            used,
            _kept_texts(records, artifacts, kept),
        )
        limit = math.floor(config.total_budget * config.margin)
        over = written(draft) - limit
        if over <= 0:
            best = (bundle_part, records, text, used)
            # Room left while an artifact is cut below its budget: reserve less, between this
            # reserve and the greatest one known to be over.
            starved = any(
                r.tier > 1 and b < min(a.budget, needs[i])
                for i, (r, a, b) in enumerate(zip(records, artifacts, budgets))
            )
            if not starved or -over <= max(16, limit // 100):
                break
            lower = bundle_part + over * 9 // 8 if over_at is None else (over_at + bundle_part) // 2
            if lower >= bundle_part or (over_at is not None and lower <= over_at) or lower < 0:
                break
            bundle_part = lower
            continue
        over_at = bundle_part
        if best is not None:  # between a reserve that fit and this one: halve the interval
            halfway = (over_at + best[0] + 1) // 2
            if halfway >= best[0]:
                break
            bundle_part = halfway
            continue
        # JSON escaping grows with the content, so reserve a little more than the excess.
        grown = bundle_part + over + max(16, over // 8)
        if too_small(len(requests), config.total_budget, config.margin, reserved + grown, floor):
            # The bundle's fixed part alone is over the total.
            longest = max((len(r.files or ()) for r in records), default=0)
            if longest == 0:
                break  # nothing left to shorten: `check` reports the written size
            listed = longest // 2  # list fewer files per record (the digest still lists 100)
            continue
        bundle_part = grown
    if best is not None and best[1] is not records:  # (the last try was over: the best fit stands)
        _, records, text, used = best
    return Result(
        records,
        artifacts,
        source,
        capacity(requests, config.total_budget, config.margin, reserved, floor),
        text,
        used,
        _kept_texts(records, artifacts, kept),
    )


def _needs(
    artifacts: list[Artifact],
    encoded: list[Encoded | None],
    streamed: dict[int, int],
    refs: dict[int, reference.Described],
    docs: dict[int, Any],
    tokenizer: Tokenizer,
) -> list[int]:
    """The tokens each artifact's record takes whole: its text (a streamed file's count), a
    reference's content with its whole preview, a numbered diff with its numbers."""
    extra = overhead(tokenizer)
    needs = [e.count + extra if e is not None else 0 for e in encoded]
    for i, tokens in streamed.items():
        needs[i] = tokens + extra
    for i, ref in refs.items():
        needs[i] = reference.need(ref, tokenizer)
    for i, a in enumerate(artifacts):
        if a.line_numbers and a.text is not None and isinstance(docs.get(i), DiffDoc):
            needs[i] = tokenizer.count(numbered(a.text, a.text)) + extra
    return needs


def _kept_texts(
    records: list[Record], artifacts: list[Artifact], kept: dict[str, tuple[Path, Offload]]
) -> tuple[tuple[Path, str], ...]:
    """The full texts the records name offloads for: (where, text)."""
    return tuple(
        (kept[r.artifact_name][0], a.text)
        for r, a in zip(records, artifacts)
        if r.offload is not None and a.text is not None
    )


def _offloaded(
    record: Record, artifact: Artifact, directory: Path, relative_to: Path | None, kept: dict[str, tuple[Path, Offload]]
) -> Record:
    """The record naming where its full text is kept, when it left something out (tier 2 or 3)."""
    if record.tier < 2 or artifact.text is None:
        return record
    if record.artifact_name not in kept:
        kept[record.artifact_name] = offload_for(artifact.text, record.type, directory, relative_to)
    return replace(record, offload=kept[record.artifact_name][1])


def _options(config: Config, artifact: Artifact, missed: bool = False) -> Options:
    """How the artifact is cut: its entry's task and tier-3 mode, else the config's."""
    spec = config.spec(artifact.entry)
    return Options(
        task=artifact.task,
        tier2_ratio=config.tier2_ratio,
        tier3=(spec.tier3 if spec else None) or config.tier3,
        missed=missed,
    )


def _streamed(
    config: Config,
    artifact: Artifact,
    kind: str,
    budget: int,
    prepared: tuple[stream.Scan, Sink],
    tokenizer: Tokenizer,
    missed: bool,
) -> Record:
    assert artifact.stream is not None
    record = stream.finish(
        *prepared, artifact.stream, artifact.name, budget, tokenizer, kind, _options(config, artifact, missed)
    )
    if record is None:  # it fits after all: read it whole
        from ctxguard.read import read_artifact

        loaded = read_artifact(artifact.stream)
        whole = _redacted(replace(artifact, text=loaded.text, stream=None))
        encoded = tokenizer.encode(whole.text) if whole.text is not None else None
        doc = KINDS[kind].read(whole.text, whole.name) if whole.text is not None else None
        return _record(config, whole, kind, budget, encoded, tokenizer, missed, doc)
    return _attach(record, artifact)


def _described(artifacts: list[Artifact], tokenizer: Tokenizer, secrets: bool) -> dict[int, reference.Described | str]:
    """The files of `reference: true` entries, by index: their facts or why they cannot be read."""
    return {
        i: reference.describe(a.reference, a.name, tokenizer, secrets)
        for i, a in enumerate(artifacts)
        if a.reference is not None
    }


def _referenced(artifact: Artifact, found: reference.Described, kind: str, budget: int, tokenizer: Tokenizer) -> Record:
    return _attach(reference.record(found, budget, tokenizer, kind), artifact)


def _attach(record: Record, artifact: Artifact) -> Record:
    """The record with what collection knew of its artifact: its notes first, its diff mode and
    excluded files, the secrets redacted, its entry when the record is one of several, whether
    it is missing."""
    return replace(
        record,
        notes=artifact.notes + record.notes,
        entry=artifact.entry if artifact.entry != artifact.name else None,
        missing=artifact.missing,
        diff=artifact.diff,
        excluded_files=artifact.excluded_files,
        redacted=artifact.redacted or record.redacted,
    )


def _redacted(artifact: Artifact) -> Artifact:
    if artifact.text is None:
        return artifact
    found = redact(artifact.text)
    if not found.counts:
        return artifact
    return replace(
        artifact, text=found.text, redacted=tuple(found.counts.items()), notes=(*artifact.notes, note(found.counts))
    )


def _record(
    config: Config,
    artifact: Artifact,
    kind: str,
    budget: int,
    tokens: Encoded | None,
    tokenizer: Tokenizer,
    missed: bool,
    doc: Any,
    listed: int | None = None,
) -> Record:
    """The artifact compressed from its kind's reading (`doc`); a diff's record lists its files
    with how much of each the content shows."""
    if artifact.text is None or tokens is None:
        record = error_record(
            artifact.name, artifact.error or "unreadable", artifact_type=kind, budget=budget, encoding=tokenizer.name
        )
        if artifact.reference is not None:
            record = replace(record, read="reference")
    else:
        options = _options(config, artifact, missed)
        # (a diff record lists its files itself: its content need not start with them too)
        options = replace(options, listing=not isinstance(doc, DiffDoc))
        numbers = artifact.line_numbers and isinstance(doc, DiffDoc)
        room = budget
        for _ in range(6):  # with line numbers, cut to a smaller room until the numbered content fits
            record = compress(
                artifact.text,
                room,
                tokenizer=tokenizer,
                name=artifact.name,
                artifact_type=kind,
                options=options,
                encoded=tokens,
                doc=doc,
            )
            if not numbers:
                break
            content = numbered(record.content, artifact.text)
            over = tokenizer.count(content) - budget
            if over <= 0:
                record = replace(record, content=content, compacted_tokens=tokenizer.count(content), budget=budget)
                break
            if room - over - 8 < min_budget(tokenizer):
                record = replace(record, budget=budget, notes=(*record.notes, "line numbers left out: no room"))
                break
            room -= over + 8
        if preview.useless(record):
            record = preview.preview(record, artifact.text, tokenizer)
    if isinstance(doc, DiffDoc) and kind == "diff" and artifact.text is not None:
        stats = doc.files
        shown = file_coverage(doc, record.content) if record.tier > 1 else {}
        record = replace(
            record,
            files=tuple(
                Listed(s.path, s.added, s.removed, s.status, shown.get(s.path, "whole")) for s in stats[:listed]
            ),
            files_not_listed=len(stats) - listed if listed is not None and len(stats) > listed else 0,
        )
    return _attach(record, artifact)
