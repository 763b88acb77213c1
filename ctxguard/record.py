"""The artifact record: the five contract fields first, then what helps an agent."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

CONTRACT_FIELDS = ("artifact_name", "raw_tokens", "compacted_tokens", "truncated", "content")


@dataclass(frozen=True)
class Record:
    """One compressed artifact, exactly as it goes into a bundle."""

    artifact_name: str
    raw_tokens: int
    compacted_tokens: int
    truncated: bool
    content: str
    type: str
    tier: int  # 1, 2 or 3; 0 for an artifact whose content is not shown (unreadable, a reference)
    budget: int
    encoding: str
    task: str | None = None
    notes: tuple[str, ...] = ()
    error: str | None = None
    read: str = "required"  # or "reference": the content only describes a file to read on demand
    retention: dict[str, Any] | None = None  # {"probes": N, "kept": K[, "missed": [...]]}
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data, contract fields first, stable key order."""
        data: dict[str, Any] = {
            "artifact_name": self.artifact_name,
            "raw_tokens": self.raw_tokens,
            "compacted_tokens": self.compacted_tokens,
            "truncated": self.truncated,
            "content": self.content,
            "type": self.type,
            "tier": self.tier,
            "budget": self.budget,
            "encoding": self.encoding,
            "read": self.read,
        }
        if self.task is not None:
            data["task"] = self.task
        if self.notes:
            data["notes"] = list(self.notes)
        if self.retention is not None:
            data["retention"] = self.retention
        if self.error is not None:
            data["error"] = self.error
        data.update(self.extra)
        return data


def error_record(name: str, reason: str, *, artifact_type: str, budget: int, encoding: str) -> Record:
    """A record for an artifact that could not be read: same shape, clearly marked."""
    return Record(
        artifact_name=name,
        raw_tokens=0,
        compacted_tokens=0,
        truncated=True,
        content=f"[ERROR: {reason}]",
        type=artifact_type,
        tier=0,
        budget=budget,
        encoding=encoding,
        error=reason,
    )


_OMITTED = re.compile(r"\b(\d[\d,]*) (line|item|key|char)s? omitted\b")
_LINES = re.compile(r"^\.\.\. \(lines? (\d+)(?:-(\d+))? omitted\)$", re.M)  # a gap line with its range


def omissions(content: str) -> str:
    """What a tier-2 content left out, from its gap lines and notes: `compressed: 120 lines,
    3 keys omitted` (never "nothing cut": tier 2 keeps what must be seen, not everything)."""
    totals: dict[str, int] = {}
    for first, last in _LINES.findall(content):
        totals["line"] = totals.get("line", 0) + int(last or first) - int(first) + 1
    for number, unit in _OMITTED.findall(content):
        totals[unit] = totals.get(unit, 0) + int(number.replace(",", ""))
    if not totals:
        return "compressed: rewritten shorter, nothing omitted"
    said = ", ".join(f"{n:,} {unit}{'s' if n != 1 else ''}" for unit, n in totals.items())
    return f"compressed: {said} omitted"
