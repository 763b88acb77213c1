"""collect -> count -> reserve the digest -> allocate -> compress: what a bundle is made of."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ctxguard import digest, reference
from ctxguard import records as make
from ctxguard.budget import Request, allocate, capacity, too_small
from ctxguard.collect import Artifact, Source, collect
from ctxguard.config.model import Config
from ctxguard.engine import stream
from ctxguard.engine.tiers import min_budget, overhead
from ctxguard.kinds.classify import classify
from ctxguard.kinds.diff import DiffDoc
from ctxguard.kinds.diff.numbers import numbered
from ctxguard.kinds.registry import KINDS
from ctxguard.read import BinaryData
from ctxguard.record import Offload, Record, error_record
from ctxguard.tokens.base import Encoded, Tokenizer


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
    collected: tuple[list[Artifact], Source] | None = None,
) -> Result:
    """Collect every artifact, reserve the digest, allocate budgets, compress each one.

    With a total_budget and `written`, the bundle as written (fields, JSON escaping, file lists)
    is measured and, while it is over the total, that overhead is reserved and the budgets are
    allocated again, so the written file is what total_budget bounds.

    With `offloads` (a folder), every record that leaves something out names where its full text
    will be kept there (a path relative to `relative_to`, and its sha256); the result lists the
    texts to write. A streamed record's full text is its file. `collected`: the artifacts (and
    source) to use instead of collecting them (one chunk of a split change, ctxguard.chunks).
    """
    artifacts, source = collected if collected is not None else collect(config, repo, diff_override, reason, missed)
    if config.redact:  # before anything is counted, compressed, summarised or offloaded
        artifacts = [make.redacted(a) for a in artifacts]
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
                a.stream, tokenizer, kinds[i], a.options.tier3, config.redact, head_budget=a.budget
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
    # A digest of at most a third of the total: fewer rows (the rest counted) when it would be more.
    rows = digest.MAX_ERRORS
    reserved = tokenizer.count(digest.render(found, placeholders, worst=True, rows=rows))
    third = math.floor(config.total_budget * config.margin) // 3 if config.total_budget is not None else None
    while third is not None and reserved > third and rows > 1:
        rows //= 2
        reserved = tokenizer.count(digest.render(found, placeholders, worst=True, rows=rows))
    floor = min_budget(tokenizer)
    kept: dict[str, tuple[Path, Offload]] = {}  # offloads named, by artifact

    def result_of(records: list[Record], text: str, used: int) -> Result:
        within = capacity(requests, config.total_budget, config.margin, reserved, floor)
        return Result(records, artifacts, source, within, text, used, _kept_texts(records, artifacts, kept))

    bundle_part = 0  # reserved for the written bundle's own fields, escaping and lists
    listed: int | None = None  # files listed per diff record, once the lists must shrink to fit
    best: tuple[int, list[Record], str, int] | None = None  # the least reserve that fit, its records
    over_at: int | None = None  # the greatest reserve known to leave the bundle over the total
    for _ in range(16):
        budgets = allocate(requests, config.total_budget, config.margin, reserved + bundle_part, floor)
        records = [
            make.streamed(config, a, kind, b, streams[i], tokenizer)
            if i in streams
            else make.referenced(a, refs[i], kind, b, tokenizer)
            if i in refs
            else make.compressed(config, a, kind, b, e, tokenizer, docs.get(i), listed)
            for i, (a, kind, b, e) in enumerate(zip(artifacts, kinds, budgets, encoded))
        ]
        if offloads is not None:
            records = [make.offloaded(r, a, offloads, relative_to, kept) for r, a in zip(records, artifacts)]
        text = digest.render(found, records, rows=rows)
        used = tokenizer.count(text)
        if used > reserved:  # the real digest outgrew its reserve: again, with more room
            reserved = used + 16
            continue
        if written is None or config.total_budget is None:
            break
        draft = result_of(records, text, used)
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
            # The bundle's fixed part alone is over the total: list fewer files per record (the
            # rest counted: files_not_listed), then give the digest fewer rows (the rest counted).
            longest = max((len(r.files or ()) for r in records), default=0)
            if longest > 0:
                listed = longest // 2
                continue
            if rows > 1:
                rows //= 2
                reserved = tokenizer.count(digest.render(found, placeholders, worst=True, rows=rows))
                continue
            break  # nothing left to shorten: the command refuses to write an over-total bundle
        bundle_part = grown
    if best is not None and best[1] is not records:  # (the last try was over: the best fit stands)
        _, records, text, used = best
    return result_of(records, text, used)


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


def _described(artifacts: list[Artifact], tokenizer: Tokenizer, secrets: bool) -> dict[int, reference.Described | str]:
    """The files of `reference: true` entries, by index: their facts or why they cannot be read."""
    return {
        i: reference.describe(a.reference, a.name, tokenizer, secrets)
        for i, a in enumerate(artifacts)
        if a.reference is not None
    }
