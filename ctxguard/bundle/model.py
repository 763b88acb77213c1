"""The bundle an agent reads, typed: Bundle, Totals and Usage, serialized in one place.

The JSON form is compact (no indentation; one line per record), so the bundle's tokens go to
content: field names are paid once per record, and every record's metadata is what an agent
uses. The markdown and prompt forms render the same Bundle (ctxguard.render).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from ctxguard import __version__
from ctxguard.collect import Source
from ctxguard.config.model import CONTEXT_WINDOW
from ctxguard.options import FORMATS as FORMATS
from ctxguard.record import Record

SCHEMA: Final = "ctxguard.bundle/v2"

# The levels of a bundle's share of the reader's context window, each with what to do.
Level = Literal["GREEN", "YELLOW", "ORANGE", "RED", "CRITICAL"]
LEVELS: Final[tuple[tuple[float, Level, str], ...]] = (
    (0.25, "GREEN", "room to spare: the reader can take more context (raise total_budget if it helps)"),
    (0.50, "YELLOW", "comfortable: the reader keeps room for its own reasoning and answer"),
    (0.75, "ORANGE", "getting full: prefer the digest and cut forms; lower total_budget for long sessions"),
    (0.85, "RED", "nearly full: lower total_budget, or split the review (split: chunks)"),
)
CRITICAL: Final[Level] = "CRITICAL"
CRITICAL_ACTION: Final = "too full to review well: split the review into chunks or lower total_budget"


def level(tokens: int, window: int, knob: str | None = None) -> tuple[Level, str]:
    """The level of `tokens` in a context window of `window`, and its action. `knob`: what
    cut the records that were cut (`total_budget`, or an entry's `budget`), None when nothing
    was cut; the room-to-spare action names it."""
    share = tokens / window if window else 1.0
    for limit, name, action in LEVELS:
        if share < limit:
            if name == "GREEN" and knob is None:
                return name, "room to spare: nothing was cut"
            return name, action.replace("raise total_budget if it helps", f"raise {knob} to keep more of what was cut")
    return CRITICAL, CRITICAL_ACTION


def knob(records: Sequence[Record], budgets: Sequence[int]) -> str | None:
    """What to raise to keep more of the records that were cut: `total_budget` when it held one
    below its entry's own budget (`budgets`, one per record), else those entries' `budget`."""
    cut = [(r, own) for r, own in zip(records, budgets) if r.tier > 1 and r.read != "reference"]
    if not cut:
        return None
    if any(r.budget is not None and r.budget < own for r, own in cut):
        return "total_budget"
    names = list(dict.fromkeys(r.entry_name for r, _ in cut))
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"the budget of {shown}"


@dataclass(frozen=True)
class Totals:
    """Counts over the records, and the written bundle's own size."""

    artifacts: int
    raw_tokens: int
    compacted_tokens: int
    truncated: int  # read-required records whose content is cut (tier 3)
    compressed: int  # records at tier 2
    references: int
    errors: int
    digest_tokens: int
    bundle_tokens: int  # the written bundle, in its form


@dataclass(frozen=True)
class Usage:
    """The written bundle's share of the reader's context window, its level and what to do."""

    tokens: int
    window: int
    share: float
    level: Level
    action: str

    @classmethod
    def of(cls, tokens: int, window: int, knob: str | None = None) -> Usage:
        name, action = level(tokens, window, knob)
        return cls(tokens, window, round(tokens / window, 4) if window else 1.0, name, action)


@dataclass(frozen=True)
class Chunk:
    """Which of a change's bundles this is (`split: chunks`): `index` of `of`, from 1."""

    index: int
    of: int


@dataclass(frozen=True)
class Bundle:
    """What an agent reads: the digest, then every record; with where the change came from."""

    encoding: str
    total_budget: int | None
    source: Source
    digest: str
    records: tuple[Record, ...]
    totals: Totals
    usage: Usage
    task: str | None = None  # what the reviewer is asked (--task, or the entries' one task)
    chunk: Chunk | None = None  # one of several bundles of a change (split: chunks)
    version: str = __version__
    links: tuple[dict[str, str | None], ...] = ()  # failures and the changed hunks they reach (ctxguard.links)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "ctxguard": self.version,
            "encoding": self.encoding,
            "total_budget": self.total_budget,
            "task": self.task,
            "chunk": vars(self.chunk) if self.chunk else None,
            "totals": vars(self.totals),
            "usage": vars(self.usage),
            "source": vars(self.source),
            "digest": self.digest,
            **({"links": list(self.links)} if self.links else {}),
            "artifacts": [self._record(r) for r in self.records],
        }

    def _record(self, record: Record) -> dict[str, Any]:
        """A record as the bundle holds it: what the bundle says already (its encoding, its
        task, its diff mode) is not said again."""
        data = record.to_dict(in_bundle=True)
        for key, same in (("task", self.task), ("diff", self.source.diff)):
            if key in data and data[key] == same:
                del data[key]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Bundle:
        """A bundle read back from its JSON form (`ctxguard show`)."""
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not a {SCHEMA} bundle (schema: {data.get('schema')!r})")
        encoding = data["encoding"]
        return cls(
            encoding=encoding,
            total_budget=data["total_budget"],
            source=Source(**data["source"]),
            digest=data["digest"],
            records=tuple(
                Record.from_dict({"task": data.get("task"), "diff": data["source"]["diff"], **r}, encoding)
                for r in data["artifacts"]
            ),
            totals=Totals(**data["totals"]),
            usage=Usage(**data["usage"]),
            task=data.get("task"),
            chunk=Chunk(**data["chunk"]) if data.get("chunk") else None,
            version=data["ctxguard"],
            links=tuple(data.get("links", ())),
        )


def dumps(bundle: Bundle) -> str:
    """The JSON form: the same bundle, the same bytes. The top-level fields one to a line, then
    one line per record, no indentation: a reader's tokens go to content, and `grep` finds a
    record by its name."""
    data = bundle.to_dict()
    records = data.pop("artifacts")
    compact = {"ensure_ascii": False, "separators": (",", ":")}
    head = ",\n".join(f"{json.dumps(key)}:{json.dumps(value, **compact)}" for key, value in data.items())  # type: ignore[arg-type]
    body = ",\n".join(json.dumps(record, **compact) for record in records)  # type: ignore[arg-type]
    return "{" + head + ',\n"artifacts":[\n' + body + ("\n" if body else "") + "]}\n"


def build(
    records: Sequence[Record],
    *,
    source: Source,
    encoding: str,
    total_budget: int | None,
    digest: str,
    digest_tokens: int,
    window: int = CONTEXT_WINDOW,
    task: str | None = None,
    chunk: Chunk | None = None,
    links: tuple[dict[str, str | None], ...] = (),
) -> Bundle:
    """The bundle of records, before it is written (its size and usage are settled by `written`)."""
    totals = Totals(
        artifacts=len(records),
        raw_tokens=sum(r.raw_tokens for r in records),
        compacted_tokens=sum(r.compacted_tokens for r in records),
        truncated=sum(1 for r in records if r.truncated and r.read == "required"),
        compressed=sum(1 for r in records if r.tier == 2),
        references=sum(1 for r in records if r.read == "reference"),
        errors=sum(1 for r in records if r.error),
        digest_tokens=digest_tokens,
        bundle_tokens=0,
    )
    usage = Usage.of(0, window)
    return Bundle(encoding, total_budget, source, digest, tuple(records), totals, usage, task, chunk, links=links)
