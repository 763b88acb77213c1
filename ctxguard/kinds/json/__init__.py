"""JSON documents and JSON Lines: read once into a JsonDoc; every key kept, failing items of a
report first, always valid JSON."""

from __future__ import annotations

from ctxguard.kinds.base import KindOf
from ctxguard.kinds.json.model import JsonDoc, loads, parse, read
from ctxguard.kinds.json.plan import plan
from ctxguard.kinds.json.probes import probes


def notes(doc: JsonDoc) -> tuple[str, ...]:
    return () if doc.parsed is not None else ("content is not valid json; kept whole as text",)


_NOTES = ("_truncated", "_ctxguard_truncated")


def hollow(content: str) -> bool:
    """A cut that holds nothing but its marker and notes that values were omitted."""

    def empty(value: object) -> bool:
        if isinstance(value, str):
            return value.startswith("[TRUNCATED")
        if isinstance(value, dict):
            return all(key in _NOTES for key in value)
        if isinstance(value, list):
            return all(empty(item) for item in value)
        return False

    try:
        return empty(loads(content))
    except ValueError:
        return False


KIND = KindOf("json", read, plan, probes, notes, hollow=hollow)

__all__ = ["KIND", "JsonDoc", "loads", "parse", "read"]
