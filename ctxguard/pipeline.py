"""collect -> count -> allocate -> compress: the records a bundle is made of."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ctxguard.budget import Request, allocate, capacity
from ctxguard.collect import Artifact, Source, collect
from ctxguard.config import Config
from ctxguard.record import Record, error_record
from ctxguard.tiers import compress, overhead
from ctxguard.tokens import Tokenizer


@dataclass(frozen=True)
class Result:
    """The records in config order, the artifacts they came from, and the diff's source."""

    records: list[Record]
    artifacts: list[Artifact]
    source: Source
    capacity: int  # the budget the whole bundle may use: what usage levels are measured against


def run(config: Config, repo: Any, tokenizer: Tokenizer, diff_override: str | None = None) -> Result:
    """Collect every artifact, allocate budgets, compress each one."""
    artifacts, source = collect(config, repo, diff_override)
    # Encoded once: the counts drive allocation and the same token arrays drive the cuts.
    encoded = [tokenizer.encode(a.text) if a.text is not None else None for a in artifacts]
    extra_tokens = overhead(tokenizer)
    needs = [e.count + extra_tokens if e is not None else 0 for e in encoded]
    requests = [Request(a.budget, need, a.priority) for a, need in zip(artifacts, needs)]
    budgets = allocate(requests, config.total_budget, config.margin)
    records = []
    for artifact, budget, tokens in zip(artifacts, budgets, encoded):
        if artifact.text is None:
            record = error_record(artifact.name, artifact.error or "unreadable",
                                  artifact_type=artifact.type or "text", budget=budget,
                                  encoding=tokenizer.name)
        else:
            record = compress(artifact.text, budget, tokenizer=tokenizer, name=artifact.name,
                              artifact_type=artifact.type, task=artifact.task,
                              tier2_ratio=config.tier2_ratio, encoded=tokens)
        extra = dict(artifact.extra)
        if artifact.entry != artifact.name:
            extra["entry"] = artifact.entry
        if record.type == "diff" and artifact.text is not None:
            from ctxguard.handlers.diff import file_stats

            extra["files"] = [
                {"path": s.path, "added": s.added, "removed": s.removed, "status": s.status}
                for s in file_stats(artifact.text)
            ]
        records.append(replace(record, notes=artifact.notes + record.notes, extra=extra))
    return Result(records, artifacts, source, capacity(requests, config.total_budget, config.margin))
