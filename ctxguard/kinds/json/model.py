"""A JSON document or JSON Lines read once: its values, whether it is rows, its repeated keys."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
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

    return _decode(text, pairs if duplicates is not None else None)


def _decode(text: str, hook: Callable[[list[tuple[str, Any]]], Any] | None) -> Any:
    """json.loads with an object hook, raising ValueError for too-deep nesting too."""
    try:
        return json.loads(text, object_pairs_hook=hook)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply to parse") from exc


def parse(text: str) -> tuple[list[Any], bool, list[str]] | None:
    """A JSON document as ([value], False, duplicate keys), JSON Lines as (values, True, …),
    else None."""
    duplicates: list[str] = []
    found = _read(text, lambda part: loads(part, duplicates))
    return None if found is None else (*found, duplicates)


def valid(text: str) -> bool:
    """Whether parse would read the text (a document, or JSON Lines), found without building
    its objects: a cut of megabytes is checked while its plan is still held, and its parse
    tree was the cut's peak."""
    return _read(text, _skim) is not None


def _read(text: str, load: Callable[[str], Any]) -> tuple[list[Any], bool] | None:
    """The text as ([value], False) when load reads it whole, as (rows, True) when it reads
    each of its lines that is not blank (only "\n" ends a row), else None."""
    try:
        return [load(text)], False
    except ValueError:
        pass
    try:
        rows = [load(line) for line in text.split("\n") if line.strip()]
    except ValueError:
        return None
    return (rows, True) if rows else None


def _skim(text: str) -> None:
    """Parse text as loads does, each object let go as soon as it is read (its members with it)."""
    _decode(text, _nothing)


def _nothing(pairs: list[tuple[str, Any]]) -> None:
    return None


@dataclass(frozen=True)
class JsonDoc:
    """A JSON text as its kind reads it: ([value], False, repeated keys) for a document,
    (rows, True, …) for JSON Lines, None when it parses as neither."""

    text: str
    parsed: tuple[list[Any], bool, list[str]] | None
    # Its key paths once a plan's walk has found them (the probes ask for them again).
    walked: dict[str, frozenset[str]] = field(default_factory=dict, compare=False, repr=False)


def read(text: str, name: str = "") -> JsonDoc:
    """The text parsed once (see parse)."""
    return JsonDoc(text, parse(text))
