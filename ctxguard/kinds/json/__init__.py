"""JSON documents and JSON Lines: read once into a JsonDoc; every key kept, failing items of a
report first, always valid JSON."""

from __future__ import annotations

from ctxguard.kinds.base import KindOf
from ctxguard.kinds.json.model import JsonDoc, loads, parse, read
from ctxguard.kinds.json.plan import plan
from ctxguard.kinds.json.probes import probes


def notes(doc: JsonDoc) -> tuple[str, ...]:
    return () if doc.parsed is not None else ("content is not valid json; kept whole as text",)


KIND = KindOf("json", read, plan, probes, notes)

__all__ = ["KIND", "JsonDoc", "loads", "parse", "read"]
