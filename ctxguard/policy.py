"""Policies `ctxguard check` enforces: fail_on, max_raw_tokens and min_retention."""
from __future__ import annotations

from collections.abc import Sequence

from ctxguard.config import Config
from ctxguard.record import Record


def failures(records: Sequence[Record], config: Config) -> list[str]:
    """One sentence per failed policy, naming the artifact and the numbers."""
    limits = {spec.name: spec.max_raw_tokens for spec in config.artifacts}
    floors = {spec.name: spec.min_retention if spec.min_retention is not None else config.min_retention
              for spec in config.artifacts}
    problems = []
    for record in records:
        entry = record.extra.get("entry", record.artifact_name)
        limit = limits.get(entry)
        floor = floors.get(entry)
        kept = record.retention or {}
        if floor is not None and kept.get("probes") and kept["kept"] / kept["probes"] < floor:
            problems.append(f"{record.artifact_name} kept {kept['kept']} of {kept['probes']} probes "
                            f"({kept['kept'] / kept['probes']:.2f}), under its min_retention of {floor}")
        if limit is not None and record.raw_tokens > limit:
            problems.append(f"{record.artifact_name} has {record.raw_tokens} raw tokens, over its "
                            f"max_raw_tokens of {limit}: split the change into smaller commits")
        if record.error:
            problems.append(f"{record.artifact_name} could not be read: {record.error}")
        elif config.fail_on == "truncated" and record.truncated:
            problems.append(f"{record.artifact_name} was truncated: {record.raw_tokens} raw tokens "
                            f"for a budget of {record.budget}")
        elif config.fail_on == "over_budget" and record.raw_tokens > record.budget:
            problems.append(f"{record.artifact_name} is over budget: {record.raw_tokens} raw tokens "
                            f"for a budget of {record.budget}")
    return problems
