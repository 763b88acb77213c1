"""A JSON document or JSON Lines read once: its values, whether it is rows, its repeated keys."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


def loads(text: str, duplicates: list[str] | None = None) -> Any:
    """Parse JSON, raising ValueError for anything unparseable (including too-deep nesting).
    Keys repeated in one object (the last value wins, as everywhere) are added to duplicates."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        found = dict(items)
        if duplicates is not None and len(found) < len(items):
            seen: set[str] = set()
            for key, _ in items:
                if key in seen:
                    duplicates.append(key)
                seen.add(key)
        return found

    try:
        return json.loads(text, object_pairs_hook=pairs if duplicates is not None else None)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply to parse") from exc


def parse(text: str) -> tuple[list[Any], bool, list[str]] | None:
    """A JSON document as ([value], False, duplicate keys), JSON Lines as (values, True, …),
    else None."""
    duplicates: list[str] = []
    try:
        return [loads(text, duplicates)], False, duplicates
    except ValueError:
        pass
    try:
        rows = [loads(line, duplicates) for line in text.split("\n") if line.strip()]  # (only "\n" ends a row)
    except ValueError:
        return None
    return (rows, True, duplicates) if rows else None


def valid(text: str) -> bool:
    """Whether parse would read the text (a document, or JSON Lines), found without building
    its objects: a cut of megabytes is checked while its plan is still held, and its parse
    tree was the cut's peak."""
    try:
        _drop_objects(text)
        return True
    except (ValueError, RecursionError):
        pass
    rows = 0
    try:
        for line in text.split("\n"):  # (only "\n" ends a row)
            if line.strip():
                _drop_objects(line)
                rows += 1
    except (ValueError, RecursionError):
        return False
    return rows > 0


def _drop_objects(text: str) -> None:
    """Parse text, each object let go as soon as it is read (its members with it)."""
    json.loads(text, object_pairs_hook=_nothing)


def _nothing(pairs: list[tuple[str, Any]]) -> None:
    return None


@dataclass(frozen=True)
class JsonDoc:
    """A JSON text as its kind reads it: ([value], False, repeated keys) for a document,
    (rows, True, …) for JSON Lines, None when it parses as neither."""

    text: str
    parsed: tuple[list[Any], bool, list[str]] | None


def read(text: str, name: str = "") -> JsonDoc:
    """The text parsed once (see parse)."""
    return JsonDoc(text, parse(text))
