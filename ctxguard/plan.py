"""An artifact as a plan: units to show, what each costs, how early a cut takes it.

A plan is what a kind knows about its artifact (ctxguard.kinds); the packer
(ctxguard.packer) knows only plans. Units are shown in their order; a run of whole lines left out
is shown as one gap line the plan writes, a run inside a line as `…`, and the packer counts
their tokens.
"""

from __future__ import annotations

import bisect
import functools
import re
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import accumulate, compress, repeat
from operator import is_not, itemgetter
from typing import Final, NamedTuple, overload

from ctxguard.tokens.base import Encoded, Tokenizer


class Unit(NamedTuple):
    """One line or block of the artifact, as it is shown when it is kept. (A NamedTuple: plans
    of big artifacts hold one per line, and a tuple is built several times faster.)"""

    text: str  # a line, ending with its line break, or a piece of one (a sentence)
    cost: int  # tokens of `text`
    raw: int  # tokens of the raw text it stands for (what a marker says is left out)
    priority: tuple[float, int]  # taken in this order, lowest first
    must: bool = False  # tier 2 keeps it whatever the room, or is not possible
    anchors: tuple[int, ...] = ()  # units it is never shown without (a header, a traceback's end)
    lines: int | None = None  # raw line ends it stands for (None: those in its text)
    clipped: int = 0  # characters of its line its text leaves out (`... (N chars omitted)`)


# A Unit from its eight fields' tuple, in order: NamedTuple's own __new__ costs twice as much,
# and a plan of a big artifact makes one per line.
new_unit = functools.partial(tuple.__new__, Unit)


class UnitTable(Sequence[Unit]):
    """A plan's units held as columns: a text, two counts, a level, an order and a flag a unit
    take some forty bytes, where a Unit with its priority takes about two hundred (a plan of a
    big artifact holds one per line). Read as a sequence it gives Units, built when asked; the
    packer reads its columns (see Plan.texts and the like)."""

    __slots__ = ("text", "cost", "raw", "level", "order", "must", "anchors", "clipped", "lines", "blank")

    def __init__(
        self,
        text: Sequence[str],
        cost: Sequence[int],
        raw: Sequence[int],
        level: Iterable[float],
        order: Sequence[int],
        must: Iterable[bool | int],
        anchors: list[tuple[int, ...]],
        clipped: Sequence[int] | None = None,
        lines: Sequence[int | None] | None = None,
        blank: Sequence[bool | int] | None = None,
    ) -> None:
        self.text = text
        self.cost = _numbers(cost)
        self.raw = _numbers(raw)
        self.level = array("d", level)  # (a unit's priority: its level, then its order)
        self.order = order if isinstance(order, range) else _numbers(order)  # (a range: document order)
        self.must = bytes(map(bool, must))
        self.anchors = anchors
        self.clipped = clipped  # (None: no unit leaves characters of its line out)
        self.lines = lines  # (None: every unit stands for the line ends in its text)
        self.blank = blank  # (None: worked out from the texts, where a plan makes them when asked)

    @classmethod
    def of(cls, units: Sequence[Unit]) -> UnitTable:
        """Units made one by one (a streamed file's, a test's), as columns."""
        lines = [u.lines for u in units]
        return cls(
            [u.text for u in units],
            [u.cost for u in units],
            [u.raw for u in units],
            [u.priority[0] for u in units],
            [u.priority[1] for u in units],
            [u.must for u in units],
            [u.anchors for u in units],
            [u.clipped for u in units],
            lines if lines.count(None) < len(lines) else None,
        )

    def __len__(self) -> int:
        return len(self.text)

    @overload
    def __getitem__(self, i: int) -> Unit: ...

    @overload
    def __getitem__(self, i: slice) -> list[Unit]: ...

    def __getitem__(self, i: int | slice) -> Unit | list[Unit]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        clipped = self.clipped[i] if self.clipped is not None else 0
        lines = self.lines[i] if self.lines is not None else None
        priority = (self.level[i], self.order[i])
        must = bool(self.must[i])
        return new_unit((self.text[i], self.cost[i], self.raw[i], priority, must, self.anchors[i], lines, clipped))

    def with_priorities(self, changed: dict[int, tuple[float, int]]) -> UnitTable:
        """The same units, those given taken at the priorities given."""
        level, order = array("d", self.level), list(self.order)
        for i, (at, among) in changed.items():
            level[i], order[i] = at, among
        return UnitTable(
            self.text, self.cost, self.raw, level, order, self.must, self.anchors, self.clipped, self.lines
        )


def _numbers(numbers: Sequence[int]) -> Sequence[int]:
    """Counts as 8-byte integers, or as they are where one outgrows them."""
    try:
        return array("q", numbers)
    except OverflowError:
        return numbers


Ranks = list[tuple[float, int]]  # per unit, its priority as a plan builds it: (level, order among equals)


def earliest(rank: Ranks, i: int, priority: tuple[float, int]) -> None:
    """Unit i taken at `priority` when that is earlier than its own: a unit several rules ask
    for is taken at the earliest turn any gives it."""
    if priority < rank[i]:
        rank[i] = priority


MAX_LINE = 2000  # characters of one line shown at most once an artifact is cut (the rest counted)
HOLE_COST = 1 << 40  # a unit of this cost is never shown: raw lines a plan does not hold


def hole(lines: int) -> Unit:
    """Raw lines the plan does not hold (a streamed file's lines not kept): always a gap."""
    return Unit("", HOLE_COST, 0, (float("inf"), 0), lines=lines)


# A gap line as omitted_lines writes it: its first raw line, and its last when it stands for more.
GAP_LINE = re.compile(r"^\.\.\. \(lines? (\d+)(?:-(\d+))? omitted\)$", re.M)


Omitted = dict[str, int]  # what a cut left out, by what its gaps count: {"line": 120, "key": 3}


def lines_said(n: int, first: int) -> tuple[tuple[str, int], ...]:
    """What the default gap line says it stands for, counted: its lines."""
    return (("line", n),)


def omitted_lines(n: int, first: int) -> str:
    """The default gap: how many lines a run left out, and which (the raw text's line numbers,
    from 1), so a reader with the full text reads exactly what is missing."""
    return f"... (line {first} omitted)\n" if n == 1 else f"... (lines {first}-{first + n - 1} omitted)\n"


class Told(NamedTuple):
    """A must unit told on its own (a diff's change: its place and its lines), for a room that
    cannot show it with what it needs: the text, and the units whose lines it shows."""

    text: str
    units: tuple[int, ...] = ()


NOT_TOLD: Final = Told("")


@dataclass(frozen=True)
class Plan:
    """The units of one artifact, its raw token count, and how its gaps read."""

    units: Sequence[Unit]
    total: int
    gap: Callable[[int, int], str] = omitted_lines  # (lines, the first one's number) -> the gap line
    says: Callable[[int, int], Sequence[tuple[str, int]]] = lines_said  # what a gap line stands for, counted
    prefix: str = ""  # shown before the units, always
    listing: Callable[[int], str] | None = None  # what a tier-3 cut shows first, within the tokens given
    # A must unit told on its own, asked of the first must unit when a tier-3 cut's room cannot
    # show it with what it needs, nor with the units before the list (NOT_TOLD for none).
    alone: Callable[[int], Told] | None = None
    # The must units, in the cut's order, a tight room shows before the list's rows (the first;
    # a `git log -p`'s first change and each commit's subject: what each commit meant to do).
    listing_after: int = 1
    notes: tuple[str, ...] = field(default=())
    # Tier 2 may keep, instead of the must units, every unit with a priority under each of these
    # in turn (the mildest first): for a type whose cut has degrees, such as JSON's.
    levels: tuple[float, ...] = ()
    # Writes the chosen units and the marker line (or None) when the type has its own syntax to
    # keep (JSON), counting what it leaves out into the tally given; else the packer's render
    # shows them as lines with gap lines.
    write: Callable[[Sequence[bool], str | None, Omitted | None], str] | None = None
    # The whole artifact rewritten to fit a room, if it can be (JSON written compactly): tier 2
    # tries it before leaving anything out.
    lossless: Callable[[int], str | None] | None = None
    check: Callable[[str], str | None] | None = None  # what is wrong with a content (JSON: it does not parse)
    # What is wrong with a tier-2 content that the packer's units cannot see (JSON: a long array
    # without its first and last items): such a content is tier 3, `truncated`, as the seed says.
    # Given, it is tier 2's whole check: it asks what `check` asks too (one reading of the content).
    tier2_check: Callable[[str], str | None] | None = None
    # What tier 2 must keep when it is more than the units' `must` (which a tier-3 cut takes
    # first): a log's every error and warning line, where tier 3 takes only each template's first.
    tier2_must: Sequence[bool] | None = None
    # Units that wait for groups (a diff's comment and blank lines for their file's code, its
    # other lines for the task's): the fill takes one only while no unit of those groups has been
    # left out at its turn, so a cut never shows a comment of a file whose code it left out. Per
    # unit, the groups it waits for, and the groups it counts in (left out, it holds them back).
    waits_for: Sequence[tuple[int, ...]] = ()
    group: Sequence[tuple[int, ...]] = ()

    def but(self, **changes: object) -> Plan:
        """The plan with the fields given changed (dataclasses.replace), keeping what it has
        worked out of its units (its cached properties) when they are the same units."""
        changed = replace(self, **changes)  # type: ignore[arg-type]
        if "units" not in changes:
            for name in _OF_UNITS:
                if name in self.__dict__:
                    changed.__dict__[name] = self.__dict__[name]
        return changed

    def showing(self, texts: Sequence[str]) -> Plan:
        """The plan with its units' texts as given, where they stand for the same raw lines (a
        line clipped to fit): what the packer renders of it."""
        changed = self.but()
        changed.__dict__["texts"] = texts
        return changed

    @cached_property
    def table(self) -> UnitTable:
        """The units as columns (those given one by one, put in columns once): what the packer
        reads of them."""
        units = self.units
        return units if isinstance(units, UnitTable) else UnitTable.of(units)

    @cached_property
    def texts(self) -> Sequence[str]:
        """Per unit, its text: what the packer reads of each unit it shows."""
        return self.table.text

    @cached_property
    def raws(self) -> Sequence[int]:
        """Per unit, the raw tokens it stands for."""
        return self.table.raw

    @cached_property
    def clips(self) -> Sequence[int]:
        """Per unit, the characters of its line its text leaves out."""
        table = self.table
        return table.clipped if table.clipped is not None else bytes(len(table))

    @cached_property
    def musts(self) -> list[bool]:
        """Per unit, whether it is a must unit."""
        return list(map(bool, self.table.must))

    @cached_property
    def order(self) -> Sequence[int]:
        """The units in the order a cut takes them: by priority, ties in their own order. (For a
        table, 8 bytes a unit: a list would hold an int object for each.)"""
        table = self.table
        if table.order == range(len(table)):  # (ties in document order: sorted once, by level)
            return _by_level(table.level)
        order = sorted(range(len(table)), key=table.order.__getitem__)  # (sorted twice, stably: by level, then order)
        order.sort(key=table.level.__getitem__)
        return array("q", order) if table is self.units else order

    @cached_property
    def starts(self) -> Sequence[int]:
        """Per unit, the raw line ends before it (its first raw line's number, less one), and
        last, all of them: a run's line ends are the difference of two, without a walk. (A
        unit stands for its `lines`, else for the line ends in its text: a gap counts them.)"""
        return _sums(list(_line_ends(self.table)))

    @cached_property
    def line_ends(self) -> int:
        """The raw line ends the units stand for, in all (see starts), without the column."""
        return self.starts[-1] if "starts" in self.__dict__ else sum(_line_ends(self.table))

    @cached_property
    def columns(self) -> tuple[list[int], list[tuple[int, ...]], Sequence[bool | int]]:
        """Per unit, its cost, its anchors, and whether it is blank (white space only): what the
        packer's every choice reads of each unit, as lists (blank: as the plan gives it)."""
        table = self.table
        blank = [not text.strip() for text in table.text] if table.blank is None else table.blank
        return list(table.cost), table.anchors, blank

    @cached_property
    def costs(self) -> Sequence[int]:
        """Per unit, the tokens of the units before it, and last, of all of them."""
        return _sums(self.columns[0])


def _line_ends(table: UnitTable) -> Iterable[int]:
    """Per unit, the raw line ends it stands for: its `lines`, else the line ends in its text."""
    if isinstance(table.lines, (bytes, array)):  # (a column of numbers: no unit without its count)
        return table.lines
    found = map(str.count, table.text, repeat("\n"))
    if table.lines is None:
        return found
    return (ends if lines is None else lines for ends, lines in zip(found, table.lines))


RUN_OF_LEVELS: Final = 1 << 19  # units: a table's order over this many is sorted in runs of levels
_RUNS: Final = 4


def _by_level(level: Sequence[float]) -> Sequence[int]:
    """The units in order of level, ties in document order. A sort holds a key and an index
    object a unit while it sorts (about 70 bytes: a big JSON plan's peak), so a big table is
    sorted a run of levels at a time: each unit's run found once (a byte a unit, by a sample's
    quantiles), each run's units in document order sorted on their own, the runs one after
    another (about 0.2x one encode more at 31 MiB, for a quarter of the sort's memory)."""
    n = len(level)
    if n <= RUN_OF_LEVELS:
        return array("q", sorted(range(n), key=level.__getitem__))
    sample = sorted(level[:: max(1, n // 4096)])
    bounds = sorted({sample[len(sample) * k // _RUNS] for k in range(1, _RUNS)})
    run = bytes(map(bisect.bisect_right, repeat(bounds), level))
    order = array("q")
    for k in range(len(bounds) + 1):
        order.extend(sorted(compress(range(n), map(k.__eq__, run)), key=level.__getitem__))
    return order


def _sums(numbers: Sequence[int]) -> Sequence[int]:
    """The sums of the numbers before each (non-negative: tokens, line ends), and of all of
    them: a plan holds one per unit, as 8-byte integers (a list of big ints costs 36 bytes
    each), or as a list where they outgrow them (a cost over millions of holes)."""
    sums = accumulate(numbers, initial=0)
    return array("q", sums) if sum(numbers) < 1 << 63 else list(sums)


# What a plan works out of its units, once: its cached properties (each made of the units alone).
_OF_UNITS = tuple(name for name, value in vars(Plan).items() if isinstance(value, cached_property))


class Priorities(NamedTuple):
    """Per unit, its priority as two columns: its level, and its order among equal levels."""

    level: Iterable[float]
    order: Sequence[int]


def units(
    lines: Sequence[str],
    shown: Sequence[str],
    rank: Sequence[tuple[float, int]] | Priorities,
    must: Sequence[bool],
    anchors: Callable[[int], tuple[int, ...]],
    encoded: Encoded,
    tokenizer: Tokenizer,
    costs: Sequence[int] | None = None,
    clipped: Sequence[int] | None = None,
    split: bool = False,
) -> UnitTable:
    """The units of a plan from its lines (as shown, their priorities, must-keep flags and
    anchors), each costed: raw tokens from the one encode when the lines are the encoded text,
    each shown line that differs from its raw line counted on its own (or given: `costs`, the
    shown lines' tokens, when the plan encoded them together). `clipped`: per shown line that
    differs, the characters of its line it leaves out. `split`: the lines are known to be the
    encoded text's own, split (the last maybe given a line break), so they are not joined to
    check (a copy of the text, made only to be compared)."""
    if split:
        same = True
    else:
        joined = "".join(lines)
        same = joined == encoded.text or joined == encoded.text + "\n"
        del joined  # (as big as the text: not held while the lines are counted)
    if same:
        raw = encoded.segment_counts(lines)
    else:  # (a text changed on reading, e.g. colour codes removed)
        raw = [tokenizer.count(line) for line in lines]
    cost = list(raw)
    left = [0] * len(lines) if clipped is not None else None
    for i in compress(range(len(lines)), map(is_not, lines, shown)):  # (the shown lines that differ)
        cost[i] = costs[i] if costs is not None else tokenizer.count(shown[i])
        if left is not None and clipped is not None:
            left[i] = clipped[i]
    text = shown if isinstance(shown, list) else list(shown)
    if not isinstance(rank, Priorities):
        rank = Priorities(map(itemgetter(0), rank), list(map(itemgetter(1), rank)))
    return UnitTable(text, cost, raw, rank.level, rank.order, must, list(map(anchors, range(len(lines)))), left)


_ANY = 1 << 62  # a room any list fits in


LISTING_AFTER: Final = 120  # tokens of room the units keep before a list takes any (a diff's first change)


def listing_room(
    listing: Callable[[int], str],
    room: int,
    count: Callable[[str], int],
    first: int = 0,
    bare: int = 0,
    after: int = LISTING_AFTER,
) -> int:
    """The tokens of room a tier-3 cut gives its list (a cut diff's file list): a third, or what
    the whole list costs if less, but never more than half of what room has beyond `after`
    (LISTING_AFTER, or the content showing the must units the plan puts before the list when
    more; in a tight room the first change with its headers comes before the list's rows); while that
    share holds not one row, what room has beyond `after`, or beyond `first` (the content
    showing the cut's first unit alone) if more, up to the least room that holds one. A room
    under `first` shows no unit: there the list is what the cut shows, a row if it fits beside
    `bare` (the content showing no unit; the list puts the first unit's file first). Otherwise
    this share and the rest of the room grow with the room, never by a jump, so a bigger room
    never leaves the units less, nor lists fewer rows beyond `first`."""
    after = max(after, LISTING_AFTER)
    third = min(room // 3, max(0, room - after) // 2)
    if listing(third):
        return min(third, count(listing(_ANY)))
    if not listing(room):
        return 0
    low, high = third + 1, room
    while low < high:  # the least room that lists a row
        middle = (low + high) // 2
        if listing(middle):
            high = middle
        else:
            low = middle + 1
    if room < first:
        return low if low + bare <= room else 0
    return max(0, min(low, room - max(first, after)))


def shown_listing(listing: Callable[[int], str], room: int, count: Callable[[str], int]) -> str:
    """What a tier-3 cut shows first: the list within its share of room (listing_room)."""
    share = listing_room(listing, room, count)
    return listing(share) if share else ""


def ended(lines: list[str]) -> list[str]:
    """The lines, the last one given a line break when it has none (units end their lines)."""
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    return lines


def filled(line: str) -> bool:
    """A line that is not blank."""
    return bool(line.strip())


def ends(lines: Sequence[str], says: Callable[[str], bool] = filled) -> list[int]:
    """The last and the first line that says something (by default: is not blank), in that
    order: the last says how it ended."""
    first = next((i for i, line in enumerate(lines) if says(line)), None)
    if first is None:
        return []
    last = next(i for i in range(len(lines) - 1, first - 1, -1) if says(lines[i]))  # (from the end)
    return [last, first]
