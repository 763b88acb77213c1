"""JSON and JSON Lines: every key kept, long arrays and strings shortened, still valid JSON."""
from __future__ import annotations

import itertools
import json
import operator
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ctxguard.handlers.base import Context, RememberLast


@dataclass(frozen=True)
class _Level:
    max_items: int  # arrays longer than this are shortened …
    head: int  # … to their first `head` items,
    tail: int  # an omission object, and their last `tail` items
    max_chars: int  # strings longer than this keep their first `max_chars` characters
    indent: int | None


_LEVELS = (
    _Level(10, 5, 2, 200, 2),
    _Level(10, 5, 2, 200, None),
    _Level(6, 3, 1, 120, None),
    _Level(4, 2, 1, 60, None),
    _Level(2, 1, 0, 30, None),
    _Level(1, 0, 0, 16, None),
)


def loads(text: str) -> Any:
    """Parse JSON, raising ValueError for anything unparseable (including too-deep nesting)."""
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply to parse") from exc


def _values(text: str) -> tuple[list[Any], bool] | None:
    """A JSON document as ([value], False), JSON Lines as (values, True), else None."""
    try:
        return [loads(text)], False
    except ValueError:
        pass
    try:
        rows = [loads(line) for line in text.splitlines() if line.strip()]
    except ValueError:
        return None
    return (rows, True) if rows else None


values = RememberLast(_values)  # parsed once for the handler, the probes and the cut (never modified)


def shrink(value: Any, level: _Level) -> Any:
    """A copy of value with long arrays and strings shortened and every object key kept.
    (Values a level leaves alone, such as numbers and short strings, are shared, not copied.)"""
    if isinstance(value, dict):
        return {key: _shrink_item(item, level) for key, item in value.items()}
    if isinstance(value, list):
        if len(value) <= level.max_items:
            return [_shrink_item(item, level) for item in value]
        omitted = len(value) - level.head - level.tail
        kept_tail = value[len(value) - level.tail :] if level.tail else []
        return (
            [_shrink_item(item, level) for item in value[: level.head]]
            + [{"_truncated": f"{omitted} items omitted"}]
            + [_shrink_item(item, level) for item in kept_tail]
        )
    if isinstance(value, str) and len(value) > level.max_chars:
        cut = len(value) - level.max_chars
        return f"{value[: level.max_chars]}... ({cut} chars omitted)"
    return value


def _shrink_item(item: Any, level: _Level) -> Any:
    # Most of a document's values are scalars a level keeps: they skip the call to shrink.
    kind = type(item)
    if kind is str:
        return item if len(item) <= level.max_chars else shrink(item, level)
    if kind is dict or kind is list:
        return shrink(item, level)
    return item if kind in _SCALARS else shrink(item, level)


_SCALARS = frozenset({int, float, bool, type(None)})


def shrink_lengths(value: Any, levels: tuple[_Level, ...]) -> list[int]:
    """The length of shrink(value, level) written compactly, for each level, in one walk and
    without building or writing it. Strings are taken as needing no escapes, so a length can
    come out short, never long."""
    chars = [level.max_chars for level in levels]
    shortest = min(chars)
    widest = max(level.max_items for level in levels)  # longer arrays are cut at every level …
    heads = max(level.head for level in levels)  # … to at most these first
    tails = max(level.tail for level in levels)  # … and last items

    def walk(node: Any) -> int | tuple[int, ...]:
        # An int when every level writes the node alike, else one length per level.
        kind = type(node)
        if kind is str:
            n = len(node)
            if n <= shortest:
                return n + 2
            return tuple(n + 2 if n <= cut else cut + len(f"... ({n - cut} chars omitted)") + 2 for cut in chars)
        if kind is dict:
            fixed, varying = 1 + (not node), None  # "{" and, per entry, "key": and a comma or "}"
            for key, item in node.items():
                fixed += len(key) + 4
                part = walk(item)
                if isinstance(part, int):
                    fixed += part
                else:
                    varying = part if varying is None else tuple(map(operator.add, varying, part))
            return fixed if varying is None else tuple(fixed + n for n in varying)
        if kind is list:
            count = len(node)
            cut = count > widest
            parts = [walk(item) for item in (node[:heads] if cut else node)]
            ends = [walk(item) for item in node[count - tails :]] if cut and tails else []
            out = []
            for i, level in enumerate(levels):
                if count <= level.max_items:  # (then not cut: parts are all the items)
                    out.append(2 + sum(_at(p, i) for p in parts) + max(0, count - 1))
                else:
                    kept = parts[: level.head] + (ends[len(ends) - level.tail :] if level.tail else [])
                    note = len('{"_truncated":" items omitted"}') + len(str(count - level.head - level.tail))
                    out.append(2 + sum(_at(p, i) for p in kept) + note + len(kept))
            return tuple(out)
        if kind is bool:
            return 4 if node else 5
        return 4 if node is None else len(json.dumps(node))

    found = walk(value)
    return [found] * len(levels) if isinstance(found, int) else list(found)


def _at(length: int | tuple[int, ...], i: int) -> int:
    """Level i's length of a node: the same at every level (an int), or its own."""
    return length if isinstance(length, int) else length[i]


def _dump(value: Any, indent: int | str | None, colon: str = ": ") -> str:
    separators = (",", colon) if indent is not None else (",", ":")
    return json.dumps(value, indent=indent, ensure_ascii=False, separators=separators)


_INDENT = re.compile(r"\n([ \t]+)\S")
_COLON = re.compile(r'"(:\s?)[^\s]')


def _style(text: str) -> tuple[int | str, str]:
    """The indent and key separator an indented JSON text uses, so that an indented candidate
    reads like it (and shares its unchanged lines, whose token counts are then known)."""
    head = text[:65536]
    indent = _INDENT.search(head)
    unit: int | str = 2
    if indent is not None:
        unit = "\t" if indent.group(1).startswith("\t") else max(1, min(8, len(indent.group(1))))
    colons = [m.group(1) for m in itertools.islice(_COLON.finditer(head), 200)]
    return unit, (":" if colons and colons.count(":") > len(colons) // 2 else ": ")


def shrinking(level: _Level) -> tuple[int, int, int, int]:
    """What a level shortens, without how it is written: levels equal here shrink alike."""
    return level.max_items, level.head, level.tail, level.max_chars


# One level per way of shortening, mild to strong (for candidates that are all written alike).
SHRINK_LEVELS = tuple(level for i, level in enumerate(_LEVELS)
                      if all(shrinking(level) != shrinking(before) for before in _LEVELS[:i]))


_LAYOUT = re.compile(r"\n[ \t]*")
# An estimate this far over budget is taken as sure not to fit. A wrong guess costs only
# layout: the next candidate holds the same values, compactly written.
_UNSURE = 1.1


def _cannot_fit(text: str, compact: str, colon: str, density: float, budget: int) -> bool:
    """Whether the indented form of a candidate is sure not to fit, told without writing it
    (Python's indenting JSON writer costs ~0.4x an encode of the whole text): its compact form
    grown by the raw text's share of layout (line breaks, indents, spaces after colons)."""
    layout = sum(map(len, _LAYOUT.findall(text))) + (text.count('": ') if colon == ": " else 0)
    compact_raw = max(1, len(text) - layout)
    return len(compact) * len(text) / compact_raw * density > budget * _UNSURE


class JsonHandler:
    """Structure and keys stay; what shrinks is the length of arrays and strings."""

    name = "json"

    def candidates(self, text: str, ctx: Context) -> Iterator[str]:
        found = values(text)
        if found is None or (found[1] and not ctx.jsonl):
            return  # not JSON; or JSON Lines under a name that does not say so
        rows = found[0]
        if ctx.jsonl:
            for level in _LEVELS:
                yield _jsonl(rows, level)
            return
        indented = "\n" in text.strip()
        style = _style(text) if indented else (2, ": ")
        shrunk, compact, done = None, None, None  # consecutive levels may shrink alike
        try:
            for level in _LEVELS:
                if done != shrinking(level):
                    shrunk, compact, done = shrink(rows[0], level), None, shrinking(level)
                if indented and level.indent is not None:
                    if ctx.density is not None:  # the estimate needs the compact form
                        compact = _dump(shrunk, None) + "\n"
                        if _cannot_fit(text, compact, style[1], ctx.density, ctx.budget):
                            continue  # the compact form of the same values comes next
                    yield _dump(shrunk, *style) + "\n"
                else:
                    yield compact or _dump(shrunk, None) + "\n"
        except RecursionError:
            return

    def validate(self, raw: str, compressed: str) -> str | None:
        if values(compressed) is not None:  # remembered: the retention measure reads it too
            return None  # a JSON document, or JSON Lines
        for number, line in enumerate(compressed.splitlines(), 1):
            if line.strip():
                try:
                    loads(line)
                except ValueError as exc:
                    return f"output line {number} is not valid JSON: {exc}"
        return None


def _jsonl(values: list[Any], level: _Level) -> str:
    rows = values
    if len(values) > level.max_items:
        omitted = len(values) - level.head - level.tail
        tail = values[len(values) - level.tail :] if level.tail else []
        rows = values[: level.head] + [{"_truncated": f"{omitted} lines omitted"}] + tail
    return "".join(_dump(shrink(row, level), None) + "\n" for row in rows)
