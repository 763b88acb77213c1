"""A JSON cut written: the chosen units as valid JSON, each run left out said in place."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from ctxguard.kinds.json.units import CLOSE, OPEN, REST, STAGES, Layout, Units, quoted
from ctxguard.plan import Omitted
from ctxguard.tokens.base import Encoded
from ctxguard.words import plural


def write_cut(  # noqa: C901
    u: Units, layout: Layout, chosen: Sequence[bool], note: str | None, tally: Omitted | None = None
) -> str:
    """The chosen units as JSON, each run left out said in place (and counted into the tally,
    when one is given); the note (a tier-3 marker) as the document's last entry. Every opening
    chosen has its closing (they anchor each other). (One pass over the units, a branch per
    kind of unit and of container: over ruff's C901.)"""
    out: list[str] = []

    def said(what: str, n: int) -> str:
        if tally is not None:
            tally[what] = tally.get(what, 0) + n
        return f"{plural(n, what)} omitted"

    # Per open container: [opening unit (-1: the top), entries written, entries left out]
    frames: list[list[int]] = [[-1, 0, 0]]

    def entry(frame: list[int], *texts: str) -> None:
        """An entry of the container open in frame, in pieces (a key and its value are not
        joined into a string of their own: a cut of megabytes held one an entry beside itself)."""
        if frame[1]:
            out.append("\n" if frame[0] < 0 else layout.comma)  # (the top holds several only as rows)
        out.extend(texts)
        frame[1] += 1

    def flush(frame: list[int], last: str | None = None, closing: bool = False) -> None:
        """Say how many entries were left out (an object once, as it closes: its keys are
        unique); with `last`, the note, in the same place."""
        opening = frame[0]
        if opening < 0 and layout.rows:
            if frame[2]:
                entry(frame, _note_object(said("line", frame[2]), layout.colon))
            if last is not None:
                entry(frame, _note_object(last, layout.colon))
        elif opening >= 0 and u.body[opening] == "[":
            if frame[2]:
                entry(frame, _note_object(said("item", frame[2]), layout.colon))
            if last is not None:
                entry(frame, json.dumps(last, ensure_ascii=False))
        elif opening >= 0:
            if not closing:
                return
            says = [said("key", frame[2])] if frame[2] else []
            if last is not None:
                says.append(last)
            if says:
                entry(frame, f"{_note_key(u, opening)}{layout.colon}{json.dumps('; '.join(says), ensure_ascii=False)}")
        frame[2] = 0

    kinds, keys, bodies, ends, parents, gaps, items = u.kind, u.key, u.body, u.end, u.parent, u.gaps, u.items
    i, n = 0, len(kinds)
    while i < n:
        kind, frame = kinds[i], frames[-1]
        if kind == CLOSE:
            frames.pop()
            flush(frame, note if parents[i] < 0 and not layout.rows else None, closing=True)
            out.append(bodies[i])
            i += 1
            continue
        if not chosen[i] and not (i == 0 and not layout.rows):  # (a document always shows its top)
            frame[2] += gaps.get(i, 1)  # (a streaming pass's gap: the entries it left out)
            i = items.get(i, ends[i]) + 1  # (a whole item in several units: past its last)
            continue
        if kind == REST:  # a whole item's text after a long string: it goes on where it was
            out.append(bodies[i])
            if ends[i] > i:
                out.append(_string_rest(u, i, chosen, tally=tally))
            i = ends[i] + 1
            continue
        flush(frame)
        if kind == OPEN:
            entry(frame, keys[i], bodies[i])
            frames.append([i, 0, 0])
            i += 1
            continue
        last = ends[i]
        if last > i:  # a string in pieces: those chosen (always a first run), and the rest counted
            parts = [keys[i], bodies[i], _string_rest(u, i, chosen, close=False, tally=tally)]
            if note is not None and parents[i] < 0 and not layout.rows:
                parts.append(" " + quoted(note))
            parts.append('"')
            entry(frame, *parts)
        elif note is not None and parents[i] < 0 and not layout.rows:  # a scalar document
            entry(frame, "[", keys[i], bodies[i], layout.comma, json.dumps(note, ensure_ascii=False), "]")
        else:
            entry(frame, keys[i], bodies[i])
        i = last + 1
    flush(frames[0], note if layout.rows else None)
    out.append("\n")
    return "".join(out)


def _string_rest(u: Units, i: int, chosen: Sequence[bool], close: bool = True, tally: Omitted | None = None) -> str:
    """What follows unit i, which ends inside a string: its pieces chosen (always a first run),
    the count of the characters left out (into the tally too), and (close) the closing quote."""
    parts = []
    left = u.chars[i] - u.shown.get(i, STAGES[0][3])  # (the characters its unit shows)
    j = i + 1
    while j <= u.end[i] and chosen[j]:
        parts.append(u.body[j])
        left -= u.chars[j]
        j += 1
    if left:
        parts.append(f"... ({left} chars omitted)")
        if tally is not None:
            tally["char"] = tally.get("char", 0) + left
    if close:
        parts.append('"')
    return "".join(parts)


def _note_object(says: str, colon: str) -> str:
    return '{"_truncated"' + colon + json.dumps(says, ensure_ascii=False) + "}"


def _note_key(u: Units, opening: int) -> str:
    """The key an object's note goes under: "_truncated", unless the object has one."""
    return '"_ctxguard_truncated"' if _has_key(u, opening, '"_truncated"') else '"_truncated"'


def _has_key(u: Units, opening: int, key: str) -> bool:
    i = opening + 1
    while i < u.end[opening]:
        if u.key[i].startswith(key):
            return True
        i = u.end[i] + 1
    return False


_INDENT = re.compile(r"\n([ \t]+)\S")
_SEPARATOR = re.compile(r'"(:\s?)[^\s]|[\]}"\d](,\s?)["{\[\d]')


def layout_of(text: str, rows: bool) -> Layout:
    """How a cut is written: compactly. A document spread over lines without spaces after its
    colons and commas (more of it in the room); a compact one with the raw text's separators, so
    the plan's text is the raw text where it can be."""
    if not rows and "\n" in text.strip():
        return Layout(":", ",", rows)
    head = text[:65536]
    found = [m.group(1) or m.group(2) for m in itertools.islice(_SEPARATOR.finditer(head), 400)]
    colons = [s for s in found if s.startswith(":")]
    commas = [s for s in found if s.startswith(",")]
    colon = ": " if colons and colons.count(": ") * 2 > len(colons) else ":"
    comma = ", " if commas and commas.count(", ") * 2 > len(commas) else ","
    return Layout(colon, comma, rows)


def whole_of(tops: list[Any], layout: Layout, u: Units, encoded: Encoded, compact: int, room: int) -> str | None:
    """The whole document within room, if it fits written compactly: with as many of its top
    levels indented as the raw text is as fit (the rest compact), for the reader."""
    if compact > room:
        return None
    indent = _raw_indent(encoded.text)
    low, high = 0, min(DEEPEST, u.deepest + 1) if indent is not None else 0
    best, tokens = u.joined(), compact  # (levels indented: 0)
    while low < high:  # the deepest level that fits: each level more costs more
        deep = (low + high + 1) // 2
        text = _indented(tops[0], indent or "", deep, 0) + "\n"
        counted = encoded.recount(text)
        if counted <= room:
            low, best, tokens = deep, text, counted
        else:
            high = deep - 1
    encoded.remember(best, tokens)  # (the cut counts it next)
    return best


def _raw_indent(text: str) -> str | None:
    """One level's indent in a document spread over lines, else None."""
    found = _INDENT.search(text[:65536]) if "\n" in text.strip() else None
    if found is None:
        return None
    unit = found.group(1)
    return "\t" if unit.startswith("\t") else " " * max(1, min(8, len(unit)))


def _indented(value: Any, indent: str, deep: int, level: int) -> str:
    """value with its containers above level `deep` spread over indented lines, the rest compact."""
    kind = type(value)
    if level >= deep or not value or (kind is not dict and kind is not list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    pad = "\n" + indent * (level + 1)
    if kind is dict:
        entries = [f'"{quoted(key)}": {_indented(item, indent, deep, level + 1)}' for key, item in value.items()]
    else:
        entries = [_indented(item, indent, deep, level + 1) for item in value]
    open_, close = ("{", "}") if kind is dict else ("[", "]")
    return open_ + ",".join(pad + entry for entry in entries) + "\n" + indent * level + close


def gap_of(layout: Layout) -> Callable[[int, int], str]:
    """About what a run left out costs, as the plan's gap line: in an array or between rows a
    note of its own; in an object, a share of the one note it gets however many runs it has."""
    if layout.rows:
        return lambda n, _: _note_object(f"{plural(n, 'line')} omitted", layout.colon) + "\n"
    return lambda n, _: f'"_truncated":"{n} keys omitted",'


DEEPEST = 32  # levels indented at most when a document is written less indented than the raw text
