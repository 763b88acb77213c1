"""When an artifact's share of the bundle cannot show anything useful (tier 3 kept none of its
probes, or its kind says the cut shows nothing of it: a JSON cut of notes and its marker alone),
the record shows its first lines instead, saying so: a reader learns what the artifact is and
that its full text is kept, never an empty cut."""

from __future__ import annotations

from dataclasses import replace

from ctxguard.kinds.registry import KINDS
from ctxguard.record import Record
from ctxguard.tokens.base import Tokenizer
from ctxguard.words import clip


def useless(record: Record) -> bool:
    """A cut that shows nothing a reader can use."""
    if record.tier != 3 or record.read != "required" or record.error:
        return False
    kept = record.retention or {}
    hollow = record.type in KINDS and KINDS[record.type].hollow(record.content)
    return hollow or (kept.get("probes", 0) > 0 and kept.get("kept", 0) == 0)


def preview(record: Record, raw: str, tokenizer: Tokenizer) -> Record:
    """The record showing the first lines of raw that fit its budget, under a line that says why."""
    title = (
        f"[PREVIEW: {record.artifact_name} ({record.raw_tokens:,} tokens) does not fit its share of the "
        f"bundle ({record.budget:,} tokens) with anything it must keep; its first lines, and its full "
        "text is kept (the record's offload)]\n"
    )
    if tokenizer.count(title) > record.budget:
        return record
    content = title
    for line in raw.splitlines(keepends=True)[:40]:
        for shown in (line, clip(line, 200)):
            if tokenizer.count(content + shown) <= record.budget:
                content += shown
                break
        else:
            break
    return replace(
        record,
        content=content,
        compacted_tokens=tokenizer.count(content),
        notes=(*record.notes, "its share could not show its must-keep parts: a preview of its first lines instead"),
    )
