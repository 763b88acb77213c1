"""A JSON value as the units of a cut, in document order (see walk), and which array items
differ from their siblings (outliers): what the plan ranks and the writer writes."""

from __future__ import annotations

import collections
import functools
import itertools
import json
import math
import operator
import re
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring
from sys import intern
from typing import Any, overload

from ctxguard.tokens.base import Spans

# What a cut keeps, strong to mild: arrays longer than max_items keep their first `head` and
# last `tail` items, strings their first max_chars characters. A unit's stage is the first of
# these that keeps it; a stronger stage keeps less. Tier 2 keeps every unit of the mildest
# stage whose units fit (every key of what it shows), then fills the room.
STAGES = ((1, 0, 0, 16), (2, 1, 0, 30), (4, 2, 1, 60), (6, 3, 1, 120), (10, 5, 2, 200))
HEAD, TAIL = STAGES[-1][1], STAGES[-1][2]  # a long array's items every stage keeps: its first and last
_PIECE = 200  # a long string's characters after the first 200 come in pieces of this many
_MIDDLE = len(STAGES)  # the stage of an array's middle items (plus their spread rank) …
_TAILS = 1e9  # … and of a long string's pieces after its first 200 characters: last
OPEN, CLOSE, LEAF, PIECE_OF, REST = range(5)  # (REST: a whole item's text after a long string)


@dataclass(frozen=True)
class Layout:
    """How a cut writes the document: compactly, with the raw text's separators when it is
    compact too; JSON Lines a row a line."""

    colon: str
    comma: str
    rows: bool  # JSON Lines: each top-level value on a line of its own


class Columns:
    """The units' columns as the walk writes them, a unit at a time (`add`): no tuple a unit,
    which columns made at the end would hold beside them."""

    def __init__(self) -> None:
        self.kind: list[int] = []
        self.key: list[str] = []  # an entry's key and colon ("" in an array)
        self.body: list[str] = []  # the bracket, the value, or a string's first characters
        self.parent = array("q")  # the unit opening the container holding it (-1: the top)
        self.chars: list[int] = []  # a string piece's characters; a string's in all
        self.stage: list[float] = []
        self.depth: list[int] = []
        # What follows the key and the body in the whole document: the comma and line break
        # after a value, and a string's closing quote after its last piece (a few strings, shared).
        self.after: list[str] = []
        kind, key, body, parent, chars = (
            self.kind.append,
            self.key.append,
            self.body.append,
            self.parent.append,
            self.chars.append,
        )
        stage, depth, after = self.stage.append, self.depth.append, self.after.append
        shared: dict[str, str] = {}

        def add(k: int, name: str, written: str, up: int, n: int, at: float, level: int, then: str = "") -> None:
            kind(k)
            key(name)
            body(written)
            parent(up)
            chars(n)
            stage(at)
            depth(level)
            after(shared[then] if then in shared else shared.setdefault(then, then))

        self.add = add

    def __len__(self) -> int:
        return len(self.kind)


class Units:
    """The plan's units in document order with what the writer needs of each (column lists)."""

    def __init__(
        self,
        columns: Columns,
        end: array[int],
        records: dict[int, list[int]],
        paths: dict[int, str],
        deepest: int,  # the deepest level inside a whole item (see _Whole)
        gaps: dict[int, int] | None = None,
        shown: dict[int, int] | None = None,
        items: dict[int, int] | None = None,
    ) -> None:
        # (the walk's columns: what each holds is said in Columns)
        self.kind, self.key, self.body, self.parent = columns.kind, columns.key, columns.body, columns.parent
        self.chars, self.stage, self.depth, self.after = columns.chars, columns.stage, columns.depth, columns.after
        self.texts = Texts(self.key, self.body, self.after)  # each unit as written in the whole document
        self.end = end  # an opening's closing and back; a string's last piece; else itself
        self.records = records  # an object of at most RECORD members: its scalars
        # An object's member: its key path (as the probes write it). Every key path of the document
        # but those of entries a streaming pass left out: a whole item's are its siblings' (_with_wholes).
        self.paths = paths
        self.deepest = max(max(self.depth, default=0), deepest)  # the document's deepest level
        self.gaps = gaps or {}  # a unit standing for entries a streaming pass left out: how many
        # A unit ending inside a long string: the string's characters it shows, where they are
        # more than its first STAGES[0][3]; and a whole item's first unit, when it has several: its last.
        self.shown = shown or {}
        self.items = items or {}

    def _pieces(self) -> list[str]:
        """Each unit's key, body and what follows, one after another (a list of the columns'
        strings, not a string a unit)."""
        pieces: list[str] = [""] * (3 * len(self.key))
        pieces[0::3], pieces[1::3], pieces[2::3] = self.key, self.body, self.after
        return pieces

    def joined(self) -> str:
        """The units as the whole document writes them, joined."""
        return "".join(self._pieces())

    def spans(self) -> Spans:
        """The units joined, and where each ends."""
        pieces = self._pieces()
        return Spans("".join(pieces), array("q", itertools.islice(itertools.accumulate(map(len, pieces)), 2, None, 3)))

    def planned(self) -> None:
        """Let go of what only the plan reads (stages, depths, key paths, records): the writer
        keeps the rest, as long as the cut it writes (a third of the units' memory)."""
        self.stage, self.depth, self.paths, self.records = [], [], {}, {}


class Texts(Sequence[str]):
    """Each unit's text as written in the whole document (its key, its body, what follows),
    made when asked: held as one string a unit, they took a tenth of a big document's peak."""

    def __init__(self, key: list[str], body: list[str], after: list[str]) -> None:
        self._columns = key, body, after

    def __len__(self) -> int:
        return len(self._columns[0])

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        key, body, after = self._columns
        if isinstance(i, slice):
            return list(map(operator.add, map(operator.add, key[i], body[i]), after[i]))
        return key[i] + body[i] + after[i]

    def __iter__(self) -> Iterator[str]:
        key, body, after = self._columns
        return map(operator.add, map(operator.add, key, body), after)


def _item_stage(i: int, n: int, spread: list[int]) -> float:
    """The stage of item i of n: the first stage that keeps it, else the middle's, spread: the
    middle item a bisection reaches k-th is taken k-th."""
    for stage, (max_items, head, tail, _) in enumerate(STAGES):
        if n <= max_items or i < head or i >= n - tail:
            return stage
    return _MIDDLE + spread[i - STAGES[-1][1]]


def _array_stage(j: int, n: int, middle: list[int], stage: float, odd: dict[int, bool]) -> float:
    """The stage of item j of an array of n at `stage`: its place's (_item_stage); an item that
    fails (see outliers), its array's own, first; a rare one that fails nothing (`skipped`,
    `subtests passed`) a stage later, never after its plain siblings."""
    plain = max(stage, _item_stage(j, n, middle))
    if j not in odd:
        return plain
    return stage if odd[j] else min(stage + 1, plain)


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


@functools.lru_cache(maxsize=1024)
def _string_ends(n: int) -> tuple[int, ...]:
    """Where a string of n characters is cut into pieces: its first 16, then at 30, 60, 120,
    200, and every _PIECE after. (Remembered: a document's strings repeat their lengths.)"""
    if n > _ENDS[-1]:
        return (*_ENDS, *range(_ENDS[-1] + _PIECE, n, _PIECE), n)
    return (*(end for end in _ENDS if end < n), n)


_ENDS = tuple(stage[3] for stage in STAGES)  # (the stages' string lengths)
_FOLDED = len(_ENDS) - 1  # a long string's pieces that can come at its own stage: those before LONG_STRING


def quoted(text: str) -> str:
    """A string's characters as JSON writes them between the quotes (UTF-8 kept; a lone
    surrogate escaped, as it cannot be written)."""
    if not text.isascii() and not _encodable(text):
        return json.dumps(text)[1:-1]
    return encode_basestring(text)[1:-1]


def _encodable(text: str) -> bool:
    """Whether text can be written as UTF-8 (json.dumps with ensure_ascii=False leaves a lone
    surrogate in, which it cannot)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _scalar(value: Any) -> str:
    if value is None or value is True or value is False:
        return "null" if value is None else "true" if value else "false"
    if type(value) is int:
        return int.__repr__(value)
    return json.dumps(value, ensure_ascii=False) if type(value) is not str else f'"{quoted(value)}"'


def walk(tops: list[Any], layout: Layout) -> Units:
    """Every unit of the document (or of each JSON Lines row), in order, without recursion."""
    rows = Columns()
    add, count = rows.add, rows.kind  # (len(count): the units so far, without a call of Columns.__len__)
    end = array("q")  # (8 bytes a unit, no int held: see Units.end)
    records: dict[int, list[int]] = {}
    # (value, key text, parent unit, depth, stage, is the last entry of its container, key path,
    # inside an item that differs from its siblings)
    stack: list[tuple[Any, str, int, int, float, bool, str, bool]] = []
    paths: dict[int, str] = {}  # object members: their key path
    deepest = 0  # the deepest level inside a whole item
    gaps: dict[int, int] = {}
    shown: dict[int, int] = {}
    items: dict[int, int] = {}
    spread = _spread(max(0, len(tops) - 7)) if layout.rows else []
    keyed: dict[str, str] = {}  # a key as written with its colon (documents repeat their keys)
    top = [
        (value, "", _item_stage(k, len(tops), spread) if layout.rows else 0, "", False) for k, value in enumerate(tops)
    ]
    for value, _, stage, _, _ in reversed(_with_wholes(top, layout) if layout.rows else top):
        stack.append((value, "", -1, 0, stage, True, "", False))
    while stack:
        value, key, parent, depth, stage, last, path, salient = stack.pop()
        carries = path if key and type(value) is not Gap else None  # an object member carries a key path
        after = ("" if last else layout.comma) + ("\n" if depth == 0 else "")  # its comma, line break
        kind = type(value)
        i = len(count)
        end.append(i)
        if carries is not None:
            paths[i] = carries
        if (kind is dict or kind is list) and value:
            bracket = "{" if kind is dict else "["
            add(OPEN, key, bracket, parent, 0, stage, depth)
            stack.append((_Close(i, after), "", parent, depth, stage, last, path, salient))
            if kind is dict:
                if len(value) <= RECORD:
                    records[i] = []
                colon = layout.colon
                # A map keyed by numbers or ids is bulky uniform data (a coverage report's
                # statement maps and counts, a lookup table): after the items that stand out.
                inner = max(stage, MAP) if not salient and is_map(value) else stage
                later = math.floor(stage) + DETAIL  # (inside an item that differs: what does not tell)
                entries = [
                    (
                        item,
                        keyed[name] if name in keyed else keyed.setdefault(name, f'"{quoted(name)}"{colon}'),
                        inner if not salient or _telling(name, item) else later,
                        intern(f"{path}.{name}" if path else str(name)),  # (held once, by every member)
                        salient,
                    )
                    for name, item in value.items()
                ]
            else:
                n = len(value)
                middle = _spread(max(0, n - 7))
                odd = outliers(value) if n >= 4 else {}  # (a quarter of the items at most)
                items_path = intern(path + "[]")
                entries = [
                    (item, "", _array_stage(j, n, middle, stage, odd), items_path, salient or j in odd)
                    for j, item in enumerate(value)
                ]
                if not salient:
                    entries = _with_wholes(entries, layout)
            last_entry = len(entries) - 1
            for j in range(last_entry, -1, -1):
                item, name, item_stage, item_path, inside = entries[j]
                stack.append((item, name, i, depth + 1, item_stage, j == last_entry, item_path, inside))
        elif kind is _Close:
            bracket = "}" if rows.body[value.opening] == "{" else "]"
            add(CLOSE, "", bracket, parent, 0, stage, depth, value.after)
            end[value.opening], end[i] = i, value.opening
        elif kind is Gap:  # (never shown: the writer counts what it stands for)
            gaps[i] = value.n
            add(LEAF, "", "", parent, 0, stage, depth)  # (its key is never shown either)
        elif kind is _Whole:
            deepest = max(deepest, depth + value.levels)
            if not value.longs:
                add(LEAF, key, value.text, parent, 0, stage, depth, after)
            else:
                _chunked(value, key, parent, stage, depth, after, rows, end, shown, items)
        elif (kind is str or kind is Clipped) and len(value) > STAGES[0][3]:
            ends = _string_ends(len(value))
            # The pieces up to LONG_STRING that come at the string's own stage are its first unit's
            # (salient: all of them; else those of the stages up to its own: piece n comes at n + 1).
            most = min(_FOLDED, len(ends) - 1)
            folded = most if salient else min(most, int(stage))  # (a stage is never negative)
            written = quoted(value)  # (each piece a slice of it, unless a character is escaped)
            plain = len(written) == len(value)
            if parent in records and stage <= rows.stage[parent]:  # (a detail of an item that differs: on its own)
                records[parent].append(i)
            if folded + 1 == len(ends):  # (all of it at its own stage: one unit; never a Clipped one, see sink)
                add(LEAF, key, f'"{written}"', parent, len(value), stage, depth, after)
                continue
            head = '"' + (written[: ends[folded]] if plain else quoted(value[: ends[folded]]))
            if folded:
                shown[i] = ends[folded]
            add(LEAF, key, head, parent, _length(value), stage, depth)
            for n in range(folded, len(ends) - 1):
                a, b = ends[n], ends[n + 1]
                more = n + 1 - len(STAGES) + 1  # pieces past the first 200 characters: 1, 2, …
                piece = written[a:b] if plain else quoted(value[a:b])
                end.append(len(count))
                first = stage if salient else n + 1  # a failure's message: its first 200 characters with it
                add(
                    PIECE_OF,
                    "",
                    piece,
                    i,
                    b - a,
                    max(stage, first if more <= 0 else _TAILS + more),
                    depth,
                    '"' + after if b == len(value) else "",  # (the last piece: the string's closing quote)
                )
            end[i] = len(count) - 1
        else:
            written = _scalar(value) if kind is not dict and kind is not list else ("{}" if kind is dict else "[]")
            if parent in records and stage <= rows.stage[parent]:  # (a detail of an item that differs: on its own)
                records[parent].append(i)
            add(LEAF, key, written, parent, len(value) if kind is str else 0, stage, depth, after)
    return Units(rows, end, records, paths, deepest, gaps, shown, items)


def _chunked(
    whole: _Whole,
    key: str,
    parent: int,
    stage: float,
    depth: int,
    after: str,
    rows: Columns,
    end: array[int],
    shown: dict[int, int],
    items: dict[int, int],
) -> None:
    """A whole item with long strings as units: the item's text up to each long string's first
    LONG_STRING characters (the first a LEAF, the others REST, each shown with the first),
    each followed by the string's other characters in pieces, last (as a string's in units).
    A unit ending inside a string is a head (it shows LONG_STRING of its characters); the
    item's first unit knows its last (items), where the writer goes on when it is left out."""
    first = len(rows)
    end[first] = first  # (set again below: the unit's last piece)
    text = whole.around[0]
    for k, value in enumerate(whole.longs):
        i = len(rows)
        if i > first:
            end.append(i)
        head = '"' + quoted(value[:LONG_STRING])
        body = text + head
        shown[i] = LONG_STRING
        # (a unit after the first starts with the quote closing the string before it: in its key
        # column, as the writer writes that quote with the string's rest)
        kind = LEAF if i == first else REST
        rows.add(kind, key if i == first else '"', body, parent, _length(value), stage, depth)
        ends = _string_ends(len(value))
        pieces = [(a, b) for a, b in zip(ends, ends[1:]) if a >= LONG_STRING]
        for n, (a, b) in enumerate(pieces):
            end.append(len(rows))
            piece = quoted(value[a:b])
            rows.add(PIECE_OF, "", piece, i, b - a, max(stage, _TAILS + n + 1), depth)
        end[i] = len(rows) - 1
        text = whole.around[k + 1]
    i = len(rows)
    end.append(i)
    rows.add(REST, '"', text, parent, 0, stage, depth, after)
    items[first] = i


# What tells a failing item from its passing siblings in a report (pytest-json-report, jest,
# mocha, eslint, CI APIs): a status-like field with a rare value, or an error-like field that
# is filled in only on a few items.
_STATUS = frozenset(
    """
    status outcome result state level severity conclusion verdict passed success ok failed skipped
    errorcount fatalerrorcount
    """.split()
)
ERRORS = frozenset(
    """
    error errors crash longrepr failuremessages failuremessage failure failures exception traceback
    stack stacktrace stderr messages err
    """.split()
)


def outliers(items: list[Any]) -> dict[int, bool]:
    """The items of an array that differ from their siblings, for a reviewer to see first, and
    whether each fails: a rare value (a quarter of the items at most) of a status-like field
    where most items share one value (a `level` of 1 to 9 spread evenly sets no item apart),
    or a filled error-like field most items leave empty. Looked for in each
    item and one level down (`call.crash`). An item fails when its rare value says so (`failed`,
    `error`, `passed: false`, an error count above 0) or it fills an error-like field; `skipped`
    or `subtests passed` among `passed` differ without failing."""
    if dict not in map(type, items):
        return {}  # (no item is an object: none has a field to differ by)
    facts = [facts_of(item) for item in items]
    n = len(items)
    counts: collections.Counter[tuple[str, Any]] = collections.Counter(f for found in facts for f in found)
    common: dict[str, int] = {}  # per field, how many items share its most common value
    for (name, _), count in counts.items():
        common[name] = max(common.get(name, 0), count)
    odd: dict[int, bool] = {}
    for j, found in enumerate(facts):
        for name, value in found:
            if name in ERRORS:
                if value and counts[(name, True)] <= n // 4:
                    odd[j] = True
                    break
            elif common[name] >= n // 2 and counts[(name, value)] <= n // 4:
                odd[j] = odd.get(j, False) or fails_of(name, value)
                if odd[j]:
                    break
    return odd


_FAILING = re.compile(r"fail|error|warn|broken|crash|fatal|critical|timed?[ _-]?out", re.I)


def fails_of(name: str, value: Any) -> bool:
    """Whether a status-like field's value says the item failed."""
    if type(value) is str:
        return _FAILING.search(value) is not None
    if type(value) is bool:
        return value if name == "failed" else not value  # `failed: true`; `passed`, `success`, `ok`: false
    if type(value) is int:
        return value > 0 if name.endswith("errorcount") else name == "severity" and value >= 2
    return False


# Inside an item that differs from its siblings, the members that say which it is and why it
# differs come first for every such item; its other members (durations, line numbers, tags, the
# phases that passed, a long traceback beside its short message) this much later, still before
# the items that do not differ.
DETAIL = 0.5
_NAMES = frozenset(
    """
    nodeid name id title fullname testname test classname file filename filepath path location uri
    ruleid rule message code
    """.split()
)
_LONG = frozenset("longrepr traceback stack stacktrace stderr stdout".split())  # (the short message first)


def _telling(name: str, value: Any) -> bool:
    """Whether a member of an item that differs from its siblings says which item it is or why
    it differs: a name, a status, a filled error-like field (not a long one: a traceback, a
    longrepr), or an object holding an error-like field or a failing status (pytest's `call`,
    not its `setup` that passed)."""
    lowered = name.lower()
    if lowered in _LONG:
        return False
    if lowered in _NAMES or lowered in _STATUS or lowered in ERRORS:
        return True
    if type(value) is not dict:
        return False
    for key, inner in value.items():
        key = key.lower()
        if key in ERRORS and key not in _LONG and inner or key in _STATUS and fails_of(key, inner):
            return True
    return False


def facts_of(item: Any) -> list[tuple[str, Any]]:
    """An item's status-like values and whether each error-like field is filled, one level deep."""
    found: list[tuple[str, Any]] = []
    if type(item) is not dict:
        return found
    for scope in (item, *(v for v in item.values() if type(v) is dict)):
        for name, value in scope.items():
            lowered = name.lower()
            if lowered in _STATUS and (value is None or type(value) in (str, bool, int)):
                found.append((lowered, value))
            elif lowered in ERRORS:
                found.append((lowered, bool(value)))
    return found


WHOLE = 1000  # characters: an array's middle item written in at most this many is one unit
_LONG_ARRAY, LONG_STRING = STAGES[-1][0], STAGES[-1][3]  # the mildest stage's items and characters


@dataclass(frozen=True)
class _Whole:
    """An array's middle item written whole (see _with_wholes)."""

    text: str
    levels: int  # how deep it nests (see _shape)
    # Its strings too long for a stage to keep whole, in order, and the text around them (one
    # piece more than strings: text[0], string 0, text[1], …, the text around each string's
    # quotes): each such string's first LONG_STRING characters go with the item, the rest in
    # pieces, last, as everywhere.
    longs: tuple[str, ...] = ()
    around: tuple[str, ...] = ()


_Entry = tuple[Any, str, float, str, bool]  # (value, key text, stage, key path, inside an outlier)


def _with_wholes(entries: list[_Entry], layout: Layout) -> list[_Entry]:
    """An array's entries (or JSON Lines' rows), each middle item whose values all come at its
    turn written as one unit: a container of at most WHOLE characters (its long strings
    counted to their first LONG_STRING), with no array a later stage would shorten (every
    value in it has the item's stage, so the packer took them one after another anyway) and no
    key path the array's other items lack (every key is carried by an item taken before it).
    A string too long for a stage keeps its other characters in pieces, last, as everywhere
    (see _chunked). A big array costs a unit or a few per item, not one per value. Outliers
    stay in units: they are what a cut keeps first."""
    middle = [j for j, e in enumerate(entries) if e[2] >= _MIDDLE and not e[4] and type(e[0]) in _NESTS and e[0]]
    if not middle:
        return entries
    known: set[str] = set()
    chosen = set(middle)
    try:
        for j, entry in enumerate(entries):
            if j not in chosen and type(entry[0]) in _NESTS and entry[0]:
                _shape(entry[0], "", known)
    except RecursionError:  # (too deep to read here: every item in units)
        return entries
    separators = (layout.comma, layout.colon)
    out = list(entries)
    for j in middle:
        item = entries[j][0]
        paths: set[str] = set()
        longs: list[str] = []
        try:
            levels = _shape(item, "", paths, entries[j][2], longs)
            if not levels or not paths <= known:
                continue
            if longs:  # (written with a mark for each long string, then cut around the marks)
                marked = json.dumps(_marked(item, iter(range(len(longs)))), ensure_ascii=False, separators=separators)
                split = _MARK.split(marked)
                if split[1::2] != [str(k) for k in range(len(longs))]:
                    continue  # (a value of its own looks like a mark: in units)
                around = tuple(split[::2])
                text = "".join(around)
            else:
                text = json.dumps(item, ensure_ascii=False, separators=separators)
        except RecursionError:  # (too deep to write whole: in units)
            continue
        if len(text) + len(longs) * (LONG_STRING + 2) <= WHOLE and _encodable(text):
            whole = _Whole(text, levels, tuple(longs), around) if longs else _Whole(text, levels)
            out[j] = (whole, *entries[j][1:])
    return out


_MARK = re.compile(r'"\\u0000(\d+)\\u0000"')  # a long string's place in a whole item's text (see _marked)


def _marked(value: Any, number: Iterator[int]) -> Any:
    """value with each string too long for a stage (see _shape) a mark in its place, numbered
    in document order: `\x00<n>\x00`, which json.dumps writes `"\u0000<n>\u0000"`."""
    kind = type(value)
    if kind is dict:
        return {name: _marked(item, number) for name, item in value.items()}
    if kind is list:
        return [_marked(item, number) for item in value]
    if (kind is str or kind is Clipped) and len(value) > LONG_STRING:
        return f"\x00{next(number)}\x00"
    return value


_NESTS = (dict, list)


def _shape(value: Any, prefix: str, paths: set[str], stage: float | None = None, longs: list[str] | None = None) -> int:
    """Add the key paths below a non-empty container (as walk writes them after its own) to
    paths; return how deep it nests (one more than its deepest entry, 0 for a scalar or an
    empty one). Given the container's stage, 0 as soon as it holds what a later stage takes:
    an array's middle items ranked after the stage (the middle of n items is ranked up to
    _MIDDLE + n - 8), or a string's characters past LONG_STRING, unless `longs` is given: then
    such strings are added to it, in document order (their rest goes in pieces, see _chunked)."""
    if type(value) is dict:
        entries = [(f"{prefix}.{name}" if prefix else name, item) for name, item in value.items()]
        paths.update(path for path, _ in entries)
    else:
        if stage is not None and len(value) > _LONG_ARRAY and _MIDDLE + len(value) - 8 > stage:
            return 0
        below = prefix + "[]"
        entries = [(below, item) for item in value]
    deepest = 0
    for path, item in entries:
        kind = type(item)
        if (kind is str or kind is Clipped) and stage is not None and len(item) > LONG_STRING:
            if longs is None:
                return 0
            longs.append(item)  # (its first characters with the item, the rest in pieces, last)
        if kind is Gap and stage is not None:
            return 0  # (what a streaming pass left out is said in units)
        if (kind is dict or kind is list) and item:
            nested = _shape(item, path, paths, stage, longs)
            if not nested:
                return 0
            deepest = max(deepest, nested)
    return 1 + deepest


class Clipped(str):
    """A string a streaming pass kept the start of (see ctxguard.kinds.json.sink): cut like any
    long string, its characters left out counted from its whole length."""

    total: int

    def __new__(cls, start: str, total: int) -> Clipped:
        clipped = super().__new__(cls, start)
        clipped.total = total
        return clipped


def _length(value: str) -> int:
    """A string's characters, a clipped one's all of them."""
    return value.total if type(value) is Clipped else len(value)


@dataclass(frozen=True)
class Gap:
    """Entries of an array or object that a streaming pass over a big file left out (see
    ctxguard.kinds.json.sink): a unit never shown, counted where its run is said omitted."""

    n: int


@dataclass(frozen=True)
class _Close:
    opening: int
    after: str  # the comma and line break after the bracket


RECORD = 16  # an object of at most this many members is a record: its scalars go with it

MAP = float(_MIDDLE)  # a map's entries: with an array's middle items (tier 2 keeps their keys)
_DATA_KEY = re.compile(r"^(?:-?\d+(?:\.\d+)?|[0-9a-fA-F]{8,}|[0-9a-fA-F-]{36})$")


def is_map(value: dict[str, Any]) -> bool:
    """An object used as a map: at least MAP_KEYS keys, nearly all of them numbers (line or
    statement numbers, indices), hex ids or uuids, and its values all of one type. (A map keyed
    by names or paths, such as a lockfile's packages, is the document's content: not here.)"""
    if len(value) < MAP_KEYS:
        return False
    data = sum(1 for key in value if _DATA_KEY.match(key))
    return data * 10 >= len(value) * 9 and len({type(item) for item in value.values()}) == 1


MAP_KEYS = 8
