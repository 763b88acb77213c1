"""Policies `ctxguard check` enforces: fail_on, required, max_raw_tokens and min_retention.

Each failed policy is a `Finding`: the rule it breaks (`ctxguard/truncated`, `ctxguard/missing`,
`ctxguard/over-budget`, …), the artifact it names (None for the bundle as a whole) and a
sentence that says what to do; `check --format` writes them as text, JSON, SARIF or GitHub
annotations (ctxguard.report.findings).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from ctxguard.config.model import Config
from ctxguard.record import Record
from ctxguard.words import plural

Rule = Literal["missing", "min-retention", "max-raw-tokens", "unreadable", "truncated", "over-budget"]
RULES: Final[dict[Rule, str]] = {
    "missing": "A configured artifact is missing while it is required (required: true or fail_on: missing).",
    "min-retention": "A cut kept fewer of its artifact's probes than its min_retention.",
    "max-raw-tokens": "An artifact's raw text is over its max_raw_tokens.",
    "unreadable": "An artifact could not be read.",
    "truncated": "A required artifact was cut to its budget (tier 3) while fail_on has truncated.",
    "over-budget": "An entry's raw text, or the written bundle, is over its budget while fail_on has over_budget.",
}


@dataclass(frozen=True)
class Finding:
    """One failed policy: its rule, the artifact it names (None: the bundle), what to do."""

    rule: Rule
    artifact: str | None
    message: str


def findings(records: Sequence[Record], config: Config, written: int | None = None) -> list[Finding]:
    """Each failed policy. `written` is the token count of the bundle file as written, checked
    against total_budget."""
    limits = {spec.name: spec.max_raw_tokens for spec in config.artifacts}
    required = {spec.name for spec in config.artifacts if spec.required}
    floors = {
        spec.name: spec.min_retention if spec.min_retention is not None else config.min_retention
        for spec in config.artifacts
    }
    problems: list[Finding] = []
    for record in records:
        entry = record.entry_name
        limit = limits.get(entry)
        floor = floors.get(entry)
        kept = record.retention or {}
        if record.missing:  # optional unless required: reported in the bundle only
            if entry in required or "missing" in config.fail_on:
                why = "required: true" if entry in required else "fail_on: missing"
                problems.append(
                    Finding(
                        "missing",
                        record.artifact_name,
                        f"{record.artifact_name} is missing ({record.error or record.content.strip()}) "
                        f"and {why}: add it, or fix the entry's paths",
                    )
                )
            continue
        if floor is not None and kept.get("probes") and kept["kept"] / kept["probes"] < floor:
            problems.append(
                Finding(
                    "min-retention",
                    record.artifact_name,
                    f"{record.artifact_name} kept {kept['kept']} of {kept['probes']} probes "
                    f"({kept['kept'] / kept['probes']:.2f}), under its min_retention of {floor}",
                )
            )
        if limit is not None and record.raw_tokens > limit:
            problems.append(
                Finding(
                    "max-raw-tokens",
                    record.artifact_name,
                    f"{record.artifact_name} has {record.raw_tokens} raw tokens, over its "
                    f"max_raw_tokens of {limit}: split the change into smaller commits",
                )
            )
        if record.error:
            problems.append(
                Finding("unreadable", record.artifact_name, f"{record.artifact_name} could not be read: {record.error}")
            )
        elif "truncated" in config.fail_on and record.truncated and record.read == "required":
            problems.append(
                Finding(
                    "truncated",
                    record.artifact_name,
                    f"{record.artifact_name} was truncated: {record.raw_tokens} raw tokens for a budget of "
                    f"{record.budget}",
                )
            )
    if "over_budget" in config.fail_on:
        problems += _over_budget(records, config, written)
    return problems


def _over_budget(records: Sequence[Record], config: Config, written: int | None) -> list[Finding]:
    """Entries whose raw text is over their configured budget, caps or a total not met."""
    problems: list[Finding] = []
    for spec in config.artifacts:
        mine = [r for r in records if r.entry_name == spec.name and not r.error]
        if not mine:
            continue
        cap = math.floor(spec.budget * config.margin)
        raw = sum(r.raw_tokens for r in mine if r.read == "required")  # references are not shown
        shown = sum(r.compacted_tokens for r in mine)
        if shown > cap and not spec.share_surplus:
            problems.append(
                Finding(
                    "over-budget",
                    spec.name,
                    f"{spec.name}: its budget of {cap} cannot be met: {plural(len(mine), 'record')} need at "
                    f"least {shown} tokens; raise its budget or narrow its paths",
                )
            )
        elif raw > cap:
            problems.append(
                Finding("over-budget", spec.name, f"{spec.name} is over budget: {raw} raw tokens for a budget of {cap}")
            )
    total = config.total_budget
    if total is not None and written is not None and written > math.floor(total * config.margin):
        problems.append(
            Finding(
                "over-budget",
                None,
                f"the written bundle has {written} tokens, over total_budget {total}"
                + (f" x margin {config.margin}" if config.margin != 1 else ""),
            )
        )
    return problems
