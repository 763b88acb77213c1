"""JSON and JSON Lines as plans: every key kept, long arrays and strings shortened only as far
as the room requires (the longest first), always valid JSON.

Units, in document order: a container's opening (`"key":{`) and closing, each scalar, and the
pieces of a long string. What a cut leaves out is said in place: `{"_truncated": "N items
omitted"}` in an array, `"_truncated": "N keys omitted"` in an object, `... (N chars omitted)` in
a string, `{"_truncated": "N lines omitted"}` between JSON Lines rows. A cut is written compactly;
a document whose compact form fits is shown whole, its top levels indented as far as they fit.
"""
from __future__ import annotations

import collections
import functools
import itertools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from json.encoder import encode_basestring
from typing import Any

from ctxguard.handlers.base import RememberLast, plural
from ctxguard.plan import Plan, Unit
from ctxguard.tokens import Encoded, Tokenizer


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


def _values(text: str) -> tuple[list[Any], bool, list[str]] | None:
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


values = RememberLast(_values)  # parsed once for the plan, the probes and the check (never modified)


# What a cut keeps, strong to mild: arrays longer than max_items keep their first `head` and
# last `tail` items, strings their first max_chars characters. A unit's stage is the first of
# these that keeps it; a stronger stage keeps less. Tier 2 keeps every unit of the mildest
# stage whose units fit (every key of what it shows), then fills the room.
_STAGES = ((1, 0, 0, 16), (2, 1, 0, 30), (4, 2, 1, 60), (6, 3, 1, 120), (10, 5, 2, 200))
_PIECE = 200  # a long string's characters after the first 200 come in pieces of this many
_MIDDLE = len(_STAGES)  # the stage of an array's middle items (plus their spread rank) …
_TAILS = 1e9  # … and of a long string's pieces after its first 200 characters: last
_OPEN, _CLOSE, _LEAF, _PIECE_OF = range(4)


@dataclass(frozen=True)
class _Layout:
    """How a cut writes the document: compactly, with the raw text's separators when it is
    compact too; JSON Lines a row a line."""

    colon: str
    comma: str
    rows: bool  # JSON Lines: each top-level value on a line of its own


class _Units:
    """The plan's units in document order with what the writer needs of each (column lists)."""

    def __init__(self, rows: list[tuple[int, str, str, int, int, float, int, str]], end: list[int],
                 records: dict[int, list[int]], paths: dict[int, str]) -> None:
        columns = list(map(list, zip(*rows))) or [[] for _ in range(8)]
        self.kind: list[int] = columns[0]
        self.key: list[str] = columns[1]  # an entry's key and colon ("" in an array)
        self.body: list[str] = columns[2]  # the bracket, the value, or a string's first characters
        self.parent: list[int] = columns[3]  # the unit opening the container holding it (-1: the top)
        self.chars: list[int] = columns[4]  # a string piece's characters; a string's in all
        self.stage: list[float] = columns[5]
        self.depth: list[int] = columns[6]
        self.text: list[str] = columns[7]  # as written in the whole document
        self.end = end  # an opening's closing and back; a string's last piece; else itself
        self.records = records  # an object of at most _RECORD members: its scalars
        self.paths = paths  # an object's member: its key path (as the probes write it)


def _item_stage(i: int, n: int, spread: list[int]) -> float:
    """The stage of item i of n: the first stage that keeps it, else the middle's, spread: the
    middle item a bisection reaches k-th is taken k-th."""
    for stage, (max_items, head, tail, _) in enumerate(_STAGES):
        if n <= max_items or i < head or i >= n - tail:
            return stage
    return _MIDDLE + spread[i - _STAGES[-1][1]]


def _spread(m: int) -> list[int]:
    """For each of m positions, when a bisection (middle first, then quarters…) reaches it."""
    rank = [0] * m
    spans = collections.deque([(0, m)])
    k = 0
    while spans:
        lo, hi = spans.popleft()
        if lo < hi:
            mid = (lo + hi) // 2
            rank[mid] = k
            k += 1
            spans.append((lo, mid))
            spans.append((mid + 1, hi))
    return rank


def _string_ends(n: int) -> list[int]:
    """Where a string of n characters is cut into pieces: its first 16, then at 30, 60, 120,
    200, and every _PIECE after."""
    ends = [end for *_, end in _STAGES if end < n]
    ends.extend(range(_STAGES[-1][3] + _PIECE, n, _PIECE))
    return [*ends, n]


def _quoted(text: str) -> str:
    """A string's characters as JSON writes them between the quotes (UTF-8 kept; a lone
    surrogate escaped, as it cannot be written)."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return json.dumps(text)[1:-1]
    return encode_basestring(text)[1:-1]


def _scalar(value: Any) -> str:
    if value is None or value is True or value is False:
        return "null" if value is None else "true" if value else "false"
    if type(value) is int:
        return int.__repr__(value)
    return json.dumps(value, ensure_ascii=False) if type(value) is not str else f'"{_quoted(value)}"'


def _walk(tops: list[Any], layout: _Layout) -> _Units:
    """Every unit of the document (or of each JSON Lines row), in order, without recursion."""
    rows: list[tuple[int, str, str, int, int, float, int, str]] = []
    add = rows.append
    end: list[int] = []
    records: dict[int, list[int]] = {}
    # (value, key text, parent unit, depth, stage, is the last entry of its container, key path,
    # inside an item that differs from its siblings)
    stack: list[tuple[Any, str, int, int, float, bool, str, bool]] = []
    paths: dict[int, str] = {}  # object members: their key path
    spread = _spread(max(0, len(tops) - 7)) if layout.rows else []
    for k in range(len(tops) - 1, -1, -1):
        stage = _item_stage(k, len(tops), spread) if layout.rows else 0
        stack.append((tops[k], "", -1, 0, stage, True, "", False))
    while stack:
        value, key, parent, depth, stage, last, path, salient = stack.pop()
        carries = path if key else None  # an object's member carries a key path
        after = ("" if last else layout.comma) + ("\n" if depth == 0 else "")  # its comma, line break
        kind = type(value)
        i = len(rows)
        end.append(i)
        if carries is not None:
            paths[i] = carries
        if (kind is dict or kind is list) and value:
            bracket = "{" if kind is dict else "["
            add((_OPEN, key, bracket, parent, 0, stage, depth, key + bracket))
            stack.append((_Close(i, after), "", parent, depth, stage, last, path, salient))
            if kind is dict:
                if len(value) <= _RECORD:
                    records[i] = []
                colon = layout.colon
                entries = [(item, f'"{_quoted(name)}"{colon}', stage, f"{path}.{name}" if path else str(name), salient)
                           for name, item in value.items()]
            else:
                n = len(value)
                middle = _spread(max(0, n - 7))
                odd = outliers(value) if n > _STAGES[-1][0] else set()
                entries = [(item, "", stage if j in odd else max(stage, _item_stage(j, n, middle)), path + "[]",
                            salient or j in odd) for j, item in enumerate(value)]
            last_entry = len(entries) - 1
            for j in range(last_entry, -1, -1):
                item, name, item_stage, item_path, inside = entries[j]
                stack.append((item, name, i, depth + 1, item_stage, j == last_entry, item_path, inside))
        elif kind is _Close:
            bracket = "}" if rows[value.opening][2] == "{" else "]"
            add((_CLOSE, "", bracket, parent, 0, stage, depth, bracket + value.after))
            end[value.opening], end[i] = i, value.opening
        elif kind is str and len(value) > _STAGES[0][3]:
            ends = _string_ends(len(value))
            head = '"' + _quoted(value[: ends[0]])
            if parent in records:
                records[parent].append(i)
            add((_LEAF, key, head, parent, len(value), stage, depth, key + head))
            for n, (a, b) in enumerate(zip(ends, ends[1:])):
                more = n + 1 - len(_STAGES) + 1  # pieces past the first 200 characters: 1, 2, …
                piece = _quoted(value[a:b])
                end.append(len(rows))
                first = stage if salient else n + 1  # a failure's message: its first 200 characters with it
                add((_PIECE_OF, "", piece, i, b - a, max(stage, first if more <= 0 else _TAILS + more), depth,
                     piece + ('"' + after if b == len(value) else "")))
            end[i] = len(rows) - 1
        else:
            written = _scalar(value) if kind is not dict and kind is not list else ("{}" if kind is dict else "[]")
            if parent in records:
                records[parent].append(i)
            add((_LEAF, key, written, parent, len(value) if kind is str else 0, stage, depth, key + written + after))
    return _Units(rows, end, records, paths)


# What tells a failing item from its passing siblings in a report (pytest-json-report, jest,
# mocha, eslint, CI APIs): a status-like field with a rare value, or an error-like field that
# is filled in only on a few items.
_STATUS = frozenset({"status", "outcome", "result", "state", "level", "severity", "conclusion", "verdict",
                     "passed", "success", "ok", "failed", "skipped", "errorcount", "fatalerrorcount"})
_ERRORS = frozenset({"error", "errors", "crash", "longrepr", "failuremessages", "failuremessage", "failure",
                     "failures", "exception", "traceback", "stack", "stacktrace", "stderr", "messages", "err"})


def outliers(items: list[Any]) -> set[int]:
    """The items of an array that differ from their siblings, for a reviewer to see first: a
    rare value (a quarter of the items at most) of a status-like field most items have, or a
    filled error-like field most items leave empty. Looked for in each item and one level down
    (`call.crash`)."""
    facts = [_facts(item) for item in items]
    n = len(items)
    counts: collections.Counter[tuple[str, Any]] = collections.Counter(f for found in facts for f in found)
    present: collections.Counter[str] = collections.Counter(name for found in facts for name, _ in found)
    odd = set()
    for j, found in enumerate(facts):
        for name, value in found:
            if name in _ERRORS:
                if value and counts[(name, True)] <= n // 4:
                    odd.add(j)
                    break
            elif present[name] >= n // 2 and counts[(name, value)] <= n // 4:
                odd.add(j)
                break
    return odd


def _facts(item: Any) -> list[tuple[str, Any]]:
    """An item's status-like values and whether each error-like field is filled, one level deep."""
    found: list[tuple[str, Any]] = []
    if type(item) is not dict:
        return found
    for scope in (item, *(v for v in item.values() if type(v) is dict)):
        for name, value in scope.items():
            lowered = name.lower()
            if lowered in _STATUS and (value is None or type(value) in (str, bool, int)):
                found.append((lowered, value))
            elif lowered in _ERRORS:
                found.append((lowered, bool(value)))
    return found


@dataclass(frozen=True)
class _Close:
    opening: int
    after: str  # the comma and line break after the bracket


def _write(u: _Units, layout: _Layout, chosen: Sequence[bool], note: str | None) -> str:
    """The chosen units as JSON, each run left out said in place; the note (a tier-3 marker)
    as the document's last entry. Every opening chosen has its closing (they anchor each other)."""
    out: list[str] = []
    # Per open container: [opening unit (-1: the top), entries written, entries left out]
    frames: list[list[int]] = [[-1, 0, 0]]

    def entry(frame: list[int], text: str) -> None:
        if frame[1]:
            out.append("\n" if frame[0] < 0 else layout.comma)  # (the top holds several only as rows)
        out.append(text)
        frame[1] += 1

    def flush(frame: list[int], last: str | None = None, closing: bool = False) -> None:
        """Say how many entries were left out (an object once, as it closes: its keys are
        unique); with `last`, the note, in the same place."""
        opening = frame[0]
        if opening < 0 and layout.rows:
            if frame[2]:
                entry(frame, _note_object(f"{plural(frame[2], 'line')} omitted", layout.colon))
            if last is not None:
                entry(frame, _note_object(last, layout.colon))
        elif opening >= 0 and u.body[opening] == "[":
            if frame[2]:
                entry(frame, _note_object(f"{plural(frame[2], 'item')} omitted", layout.colon))
            if last is not None:
                entry(frame, json.dumps(last, ensure_ascii=False))
        elif opening >= 0:
            if not closing:
                return
            says = [f"{plural(frame[2], 'key')} omitted"] if frame[2] else []
            if last is not None:
                says.append(last)
            if says:
                entry(frame, f"{_note_key(u, opening)}{layout.colon}{json.dumps('; '.join(says), ensure_ascii=False)}")
        frame[2] = 0

    i, n = 0, len(u.kind)
    while i < n:
        kind, frame = u.kind[i], frames[-1]
        if kind == _CLOSE:
            frames.pop()
            flush(frame, note if u.parent[i] < 0 and not layout.rows else None, closing=True)
            out.append(u.body[i])
            i += 1
            continue
        if not chosen[i] and not (i == 0 and not layout.rows):  # (a document always shows its top)
            frame[2] += 1
            i = u.end[i] + 1
            continue
        flush(frame)
        if kind == _OPEN:
            entry(frame, u.key[i] + u.body[i])
            frames.append([i, 0, 0])
            i += 1
            continue
        parts = [u.key[i], u.body[i]]
        if u.end[i] > i:  # a string in pieces: those chosen (always a first run), and the rest counted
            left = u.chars[i] - _STAGES[0][3]
            j = i + 1
            while j <= u.end[i] and chosen[j]:
                parts.append(u.body[j])
                left -= u.chars[j]
                j += 1
            if left:
                parts.append(f"... ({left} chars omitted)")
            if note is not None and u.parent[i] < 0 and not layout.rows:
                parts.append(" " + _quoted(note))
            parts.append('"')
        elif note is not None and u.parent[i] < 0 and not layout.rows:  # a scalar document
            parts = ["[", *parts, layout.comma, json.dumps(note, ensure_ascii=False), "]"]
        entry(frame, "".join(parts))
        i = u.end[i] + 1
    flush(frames[0], note if layout.rows else None)
    out.append("\n")
    return "".join(out)


def _note_object(says: str, colon: str) -> str:
    return '{"_truncated"' + colon + json.dumps(says, ensure_ascii=False) + "}"


def _note_key(u: _Units, opening: int) -> str:
    """The key an object's note goes under: "_truncated", unless the object has one."""
    return '"_ctxguard_truncated"' if _has_key(u, opening, '"_truncated"') else '"_truncated"'


def _has_key(u: _Units, opening: int, key: str) -> bool:
    i = opening + 1
    while i < u.end[opening]:
        if u.key[i].startswith(key):
            return True
        i = u.end[i] + 1
    return False


_INDENT = re.compile(r"\n([ \t]+)\S")
_SEPARATOR = re.compile(r'"(:\s?)[^\s]|[\]}"\d](,\s?)["{\[\d]')


def _layout(text: str, rows: bool) -> _Layout:
    """How a cut is written: compactly. A document spread over lines without spaces after its
    colons and commas (more of it in the room); a compact one with the raw text's separators, so
    the plan's text is the raw text where it can be."""
    if not rows and "\n" in text.strip():
        return _Layout(":", ",", rows)
    head = text[:65536]
    found = [m.group(1) or m.group(2) for m in itertools.islice(_SEPARATOR.finditer(head), 400)]
    colons = [s for s in found if s.startswith(":")]
    commas = [s for s in found if s.startswith(",")]
    colon = ": " if colons and colons.count(": ") * 2 > len(colons) else ":"
    comma = ", " if commas and commas.count(", ") * 2 > len(commas) else ","
    return _Layout(colon, comma, rows)


def plan(encoded: Encoded, tokenizer: Tokenizer, name: str = "", task_words: frozenset[str] = frozenset()) -> Plan:
    """A JSON document or JSON Lines as units (see _walk), written compactly (see _layout);
    text that does not parse, as text, with a note.

    Each unit's priority is its stage (see _STAGES; an array's middle items after, spread
    evenly, a long string's pieces past 200 characters last), then its depth: keys and scalars
    near the top first. Tier 2 keeps every unit of the mildest stage that fits, tier 3 the
    strongest stage's as far as they fit; both fill the room by priority. A unit is never shown
    without its container's opening and closing, a string piece without the ones before it.
    """
    found = values(encoded.text)
    if found is None:
        from ctxguard.kinds import text as plain  # (here: the kinds' registry imports this module)

        return replace(plain.plan(plain.read(encoded.text, name), encoded, tokenizer, task_words),
                       notes=("content is not valid json; compressed as text",))
    tops, rows, duplicates = found
    layout = _layout(encoded.text, rows)
    u = _walk(tops, layout)
    written = "".join(u.text)
    costed = encoded if written in (encoded.text, encoded.text + "\n") else tokenizer.encode(written)
    costs = costed.segment_counts(u.text)
    if costed is not encoded:
        encoded.learn(costed)  # the content's lines are the rewritten text's: count them from it
    scale = encoded.count / max(1, costed.count)  # raw tokens a unit stands for
    n = len(u.kind)
    priority = [(u.stage[i] + min(u.depth[i] - (u.kind[i] == _LEAF and u.parent[i] >= 0), 999) / 1000, i)
                for i in range(n)]  # a scalar is taken with its container, at its depth
    # Every key is kept: the first unit (by priority) to carry each key path is kept whatever
    # the stage (at tier 3: first, as far as they fit).
    carriers: set[int] = set()
    seen: set[str] = set()
    for i in sorted(u.paths, key=priority.__getitem__):
        if u.paths[i] not in seen:
            seen.add(u.paths[i])
            carriers.add(i)
    out = []
    for i in range(n):
        kind, parent = u.kind[i], u.parent[i]
        if kind == _OPEN:
            # A record's scalars are taken with it, all or none: a record is not shown as its
            # opening and a note that its keys were left out.
            anchors: tuple[int, ...] = (u.end[i], *((parent,) if parent >= 0 else ()), *u.records.get(i, ()))
        elif kind == _CLOSE:
            anchors = (u.end[i],)  # (a closing's end is its opening)
        elif kind == _PIECE_OF:
            anchors = (i - 1,)
        else:
            anchors = (parent,) if parent >= 0 else ()
        out.append(Unit(u.text[i], costs[i], round(costs[i] * scale), priority[i], u.stage[i] < 1 or i in carriers,
                        anchors))
    lossless = functools.partial(_whole, tops, layout, u, encoded, costed.count)
    return Plan(out, encoded.count, gap=_gap(layout), write=functools.partial(_write, u, layout),
                levels=tuple(float(stage + 1) for stage in range(len(_STAGES) - 1, -1, -1)),
                lossless=lossless if not rows else None,
                check=lambda content: None if values(content) is not None else "output is not valid JSON",
                notes=_duplicates_note(duplicates))


def _duplicates_note(duplicates: list[str]) -> tuple[str, ...]:
    """What a cut says when objects repeat a key: it shows each key once, with its last value."""
    if not duplicates:
        return ()
    names = ", ".join(dict.fromkeys(duplicates[:5]))
    return (f"{plural(len(duplicates), 'repeated key')} in objects ({names}): the cut shows each key once, "
            "with its last value; the offloaded raw text has them all",)


_RECORD = 16  # an object of at most this many members is a record: its scalars go with it
_DEEPEST = 32  # levels indented at most when a document is written less indented than the raw text


def _whole(tops: list[Any], layout: _Layout, u: _Units, encoded: Encoded, compact: int, room: int) -> str | None:
    """The whole document within room, if it fits written compactly: with as many of its top
    levels indented as the raw text is as fit (the rest compact), for the reader."""
    if compact > room:
        return None
    indent = _raw_indent(encoded.text)
    low, high = 0, min(_DEEPEST, max(u.depth, default=0) + 1) if indent is not None else 0
    best = "".join(u.text)  # (levels indented: 0)
    while low < high:  # the deepest level that fits: each level more costs more
        deep = (low + high + 1) // 2
        text = _indented(tops[0], indent or "", deep, 0) + "\n"
        if encoded.recount(text) <= room:
            low, best = deep, text
        else:
            high = deep - 1
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
        entries = [f'"{_quoted(key)}": {_indented(item, indent, deep, level + 1)}' for key, item in value.items()]
    else:
        entries = [_indented(item, indent, deep, level + 1) for item in value]
    open_, close = ("{", "}") if kind is dict else ("[", "]")
    return open_ + ",".join(pad + entry for entry in entries) + "\n" + indent * level + close


def _gap(layout: _Layout) -> Callable[[int], str]:
    """About what a run left out costs, as the plan's gap line: in an array or between rows a
    note of its own; in an object, a share of the one note it gets however many runs it has."""
    if layout.rows:
        return lambda n: _note_object(f"{plural(n, 'line')} omitted", layout.colon) + "\n"
    return lambda n: f'"_truncated":"{n} keys omitted",'

