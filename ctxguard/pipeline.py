"""collect -> count -> reserve the digest -> allocate -> compress: what a bundle is made of."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ctxguard import digest, stream
from ctxguard.budget import Request, allocate, capacity
from ctxguard.classify import classify
from ctxguard.collect import Artifact, Source, collect
from ctxguard.config import Config
from ctxguard.handlers.diff import FileStat, file_stats
from ctxguard.record import Record, error_record
from ctxguard.redact import note, redact
from ctxguard.tiers import compress, min_budget, overhead
from ctxguard.tokens import Encoded, Tokenizer


@dataclass(frozen=True)
class Result:
    """The records in config order, the artifacts they came from, the diff's source, the digest."""

    records: list[Record]
    artifacts: list[Artifact]
    source: Source
    capacity: int  # the budget the whole bundle may use: what usage levels are measured against
    digest: str = ""
    digest_tokens: int = 0


def run(config: Config, repo: Any, tokenizer: Tokenizer, diff_override: str | None = None,
        missed: bool = False) -> Result:
    """Collect every artifact, reserve the digest, allocate budgets, compress each one."""
    artifacts, source = collect(config, repo, diff_override)
    if config.redact:  # before anything is counted, compressed, summarised or offloaded
        artifacts = [_redacted(a) for a in artifacts]
    # Encoded once: the counts drive allocation and the same token arrays drive the cuts.
    encoded = [tokenizer.encode(a.text) if a.text is not None else None for a in artifacts]
    kinds = [classify(a.name, a.text or "", a.type) for a in artifacts]
    # Big files: one streaming pass each, which counts them and keeps what their cut may show.
    streams = {i: stream.prepare(a.stream, tokenizer, kinds[i], _tier3(config, a.entry), config.redact,
                                 head_budget=a.budget)
               for i, a in enumerate(artifacts) if a.stream is not None}
    stats = {a.name: file_stats(a.text) for a, kind in zip(artifacts, kinds) if kind == "diff" and a.text}
    found = digest.facts([(a.name, kind, a.text) for a, kind in zip(artifacts, kinds) if a.text is not None], stats)
    found = digest.merge(found, [(artifacts[i].name, sink) for i, (_, sink) in streams.items()])
    extra_tokens = overhead(tokenizer)
    needs = [e.count + extra_tokens if e is not None else 0 for e in encoded]
    for i, (state, _) in streams.items():
        needs[i] = state.tokens + extra_tokens
    requests = [Request(a.budget, need, a.priority, a.entry, a.shares) for a, need in zip(artifacts, needs)]
    # The digest's widest possible status lines, to reserve its room before the budgets exist.
    placeholders = [replace(error_record(a.name, a.error or "", artifact_type="text", budget=0, encoding=""),
                            retention={"probes": 999_999, "kept": 999_999}) for a in artifacts]
    reserved = tokenizer.count(digest.render(found, placeholders, worst=True))
    for _ in range(3):  # once, unless the real digest outgrows its reserve (then with more room)
        budgets = allocate(requests, config.total_budget, config.margin, reserved, min_budget(tokenizer))
        records = [_streamed(config, a, kind, b, streams[i], tokenizer, missed) if i in streams
                   else _record(config, a, kind, b, e, tokenizer, missed, stats.get(a.name))
                   for i, (a, kind, b, e) in enumerate(zip(artifacts, kinds, budgets, encoded))]
        text = digest.render(found, records)
        used = tokenizer.count(text)
        if used <= reserved:
            break
        reserved = used + 16
    return Result(records, artifacts, source,
                  capacity(requests, config.total_budget, config.margin, reserved, min_budget(tokenizer)),
                  text, used)


def _tier3(config: Config, entry: str) -> str:
    spec = config.spec(entry)
    return (spec.tier3 if spec else None) or config.tier3


def _streamed(config: Config, artifact: Artifact, kind: str, budget: int,
              prepared: tuple[stream.Scan, stream.LogSink | stream.DiffSink], tokenizer: Tokenizer,
              missed: bool) -> Record:
    assert artifact.stream is not None
    record = stream.finish(*prepared, artifact.stream, artifact.name, budget, tokenizer, kind,
                           _tier3(config, artifact.entry), missed)
    if record is None:  # it fits after all: read it whole
        from ctxguard.read import read_artifact

        loaded = read_artifact(artifact.stream)
        whole = _redacted(replace(artifact, text=loaded.text, stream=None))
        encoded = tokenizer.encode(whole.text) if whole.text is not None else None
        return _record(config, whole, kind, budget, encoded, tokenizer, missed, None)
    extra = dict(artifact.extra)
    if artifact.entry != artifact.name:
        extra["entry"] = artifact.entry
    return replace(record, notes=artifact.notes + record.notes, extra={**record.extra, **extra})


def _redacted(artifact: Artifact) -> Artifact:
    if artifact.text is None:
        return artifact
    found = redact(artifact.text)
    if not found.counts:
        return artifact
    return replace(artifact, text=found.text, extra={**artifact.extra, "redacted": found.counts},
                   notes=(*artifact.notes, note(found.counts)))


def _record(config: Config, artifact: Artifact, kind: str, budget: int, tokens: Encoded | None,
            tokenizer: Tokenizer, missed: bool, stats: list[FileStat] | None) -> Record:
    if artifact.text is None or tokens is None:
        record = error_record(artifact.name, artifact.error or "unreadable", artifact_type=kind,
                              budget=budget, encoding=tokenizer.name)
    else:
        record = compress(artifact.text, budget, tokenizer=tokenizer, name=artifact.name,
                          artifact_type=kind, task=artifact.task, tier2_ratio=config.tier2_ratio,
                          encoded=tokens, tier3=_tier3(config, artifact.entry), missed=missed)
    extra = dict(artifact.extra)
    if artifact.entry != artifact.name:
        extra["entry"] = artifact.entry
    if stats is not None:
        extra["files"] = [{"path": s.path, "added": s.added, "removed": s.removed, "status": s.status}
                          for s in stats]
    return replace(record, notes=artifact.notes + record.notes, extra=extra)
