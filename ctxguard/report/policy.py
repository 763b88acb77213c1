"""Policies `ctxguard check` enforces: fail_on, required, max_raw_tokens and min_retention."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ctxguard.config.model import Config
from ctxguard.record import Record
from ctxguard.words import plural


def failures(records: Sequence[Record], config: Config, written: int | None = None) -> list[str]:
    """One sentence per failed policy, naming the artifact and the numbers. `written` is the
    token count of the bundle file as written, checked against total_budget."""
    limits = {spec.name: spec.max_raw_tokens for spec in config.artifacts}
    required = {spec.name for spec in config.artifacts if spec.required}
    floors = {
        spec.name: spec.min_retention if spec.min_retention is not None else config.min_retention
        for spec in config.artifacts
    }
    problems = []
    for record in records:
        entry = record.entry_name
        limit = limits.get(entry)
        floor = floors.get(entry)
        kept = record.retention or {}
        if record.missing:  # optional unless required: reported in the bundle only
            if entry in required or "missing" in config.fail_on:
                why = "required: true" if entry in required else "fail_on: missing"
                problems.append(
                    f"{record.artifact_name} is missing ({record.error or record.content.strip()}) "
                    f"and {why}: add it, or fix the entry's paths"
                )
            continue
        if floor is not None and kept.get("probes") and kept["kept"] / kept["probes"] < floor:
            problems.append(
                f"{record.artifact_name} kept {kept['kept']} of {kept['probes']} probes "
                f"({kept['kept'] / kept['probes']:.2f}), under its min_retention of {floor}"
            )
        if limit is not None and record.raw_tokens > limit:
            problems.append(
                f"{record.artifact_name} has {record.raw_tokens} raw tokens, over its "
                f"max_raw_tokens of {limit}: split the change into smaller commits"
            )
        if record.error:
            problems.append(f"{record.artifact_name} could not be read: {record.error}")
        elif "truncated" in config.fail_on and record.truncated and record.read == "required":
            problems.append(
                f"{record.artifact_name} was truncated: {record.raw_tokens} raw tokens for a budget of {record.budget}"
            )
    if "over_budget" in config.fail_on:
        problems += _over_budget(records, config, written)
    return problems


def _over_budget(records: Sequence[Record], config: Config, written: int | None) -> list[str]:
    """Entries whose raw text is over their configured budget, caps or a total not met."""
    problems = []
    for spec in config.artifacts:
        mine = [r for r in records if r.entry_name == spec.name and not r.error]
        if not mine:
            continue
        cap = math.floor(spec.budget * config.margin)
        raw = sum(r.raw_tokens for r in mine if r.read == "required")  # references are not shown
        shown = sum(r.compacted_tokens for r in mine)
        if shown > cap and not spec.share_surplus:
            problems.append(
                f"{spec.name}: its budget of {cap} cannot be met: {plural(len(mine), 'record')} need at "
                f"least {shown} tokens; raise its budget or narrow its paths"
            )
        elif raw > cap:
            problems.append(f"{spec.name} is over budget: {raw} raw tokens for a budget of {cap}")
    total = config.total_budget
    if total is not None and written is not None and written > math.floor(total * config.margin):
        problems.append(
            f"the written bundle has {written} tokens, over total_budget {total}"
            + (f" x margin {config.margin}" if config.margin != 1 else "")
        )
    return problems
