"""JSON and JSON Lines as plans: every key kept, long arrays and strings shortened only as far
as the room requires (the longest first), always valid JSON.

Units, in document order: a container's opening (`"key":{`) and closing, each scalar (a long
string with the characters its own stage keeps), the pieces of a long string's rest, and an
array's middle item that no later stage would cut, whole.
What a cut leaves out is said in place: `{"_truncated": "N items omitted"}` in an array,
`"_truncated": "N keys omitted"` in an object, `... (N chars omitted)` in a string,
`{"_truncated": "N lines omitted"}` between JSON Lines rows. A cut is written compactly; a
document whose compact form fits is shown whole, its top levels indented as far as they fit.
"""

from __future__ import annotations

import functools
import itertools
import operator
from array import array
from dataclasses import replace
from typing import Any

from ctxguard.kinds import text as plain
from ctxguard.kinds.json import must
from ctxguard.kinds.json.model import JsonDoc, parse, valid
from ctxguard.kinds.json.units import CLOSE, ERRORS, LEAF, OPEN, PIECE_OF, REST, STAGES, Units, walk
from ctxguard.kinds.json.write import gap_of, layout_of, whole_of, write_cut
from ctxguard.plan import HOLE_COST, Plan, UnitTable
from ctxguard.tokens.base import Encoded, Tokenizer
from ctxguard.words import plural

_AT_PARENT = (LEAF, REST)  # units taken at their container's depth
CAUSES = ("message", "msg", "reason")  # an error-like member's string that says its cause
_CAUSE_ENDS = tuple(f".{name}" for cause in CAUSES for name in (cause, cause.capitalize()))


def plan(
    doc: JsonDoc,
    encoded: Encoded,
    tokenizer: Tokenizer,
    task_words: frozenset[str] = frozenset(),
    focus: frozenset[int] = frozenset(),
) -> Plan:
    """A JSON document or JSON Lines as units (see walk), written compactly (see layout_of);
    text that does not parse, as text, with a note.

    Each unit's priority is its stage (see STAGES; an array's middle items after, spread
    evenly, a long string's pieces past 200 characters last), then its depth: keys and scalars
    near the top first. Tier 2 keeps every unit of the mildest stage that fits, tier 3 the
    strongest stage's as far as they fit; both fill the room by priority. A unit is never shown
    without its container's opening and closing, a string piece without the ones before it.
    """
    found = doc.parsed
    if found is None:
        return replace(
            plain.plan(plain.read(encoded.text, ""), encoded, tokenizer, task_words),
            notes=("content is not valid json; compressed as text",),
        )
    tops, rows, duplicates = found
    layout = layout_of(encoded.text, rows)
    if not rows and encoded.text.find("\n", 0, len(encoded.text) - 1) >= 0:
        # A document written over several lines is never its units' text (one line): a cut
        # rewrites it and never meets its lines again, so they are let go before the walk.
        encoded.forget_lines()
    u = walk(tops, layout)
    if not u.gaps:  # (the key paths the probes read: every one a walk meets, see Units.paths)
        doc.walked["paths"] = frozenset(u.paths.values())
    spans = u.spans()
    if _written_as(spans.text, encoded.text):  # (a compact document: its units are its text)
        costs, compact = encoded.segment_counts(spans), encoded.count
    else:
        costed, costs = tokenizer.encode_parts(spans)
        if rows:
            # A cut's rows are the rewritten text's: counted from it. (A document rewritten is
            # one line, which no cut repeats: the whole is remembered where it is written.)
            encoded.learn(costed)
        compact = costed.count
        del costed  # (its text: as big as the document's)
    del spans
    if not rows:  # (a cut rewrites the document: it never meets the raw text's lines again)
        encoded.forget_lines()
    scale = encoded.count / max(1, compact)  # raw tokens a unit stands for
    level = array(
        "d",
        (
            stage + min(depth - (kind in _AT_PARENT and parent >= 0), 999) / 1000
            for stage, depth, kind, parent in zip(u.stage, u.depth, u.kind, u.parent)
        ),
    )  # a scalar (or a whole item) is taken with its container, at its depth; ties in order (8 bytes a unit)
    _first_causes(u, level)
    # Every key is kept: the first unit (by priority) to carry each key path is kept whatever
    # the stage (at tier 3: first, as far as they fit).
    carriers: set[int] = set()
    seen: set[str] = set()
    for i in sorted(u.paths, key=level.__getitem__):  # (the paths are in order: ties stay so)
        if u.paths[i] not in seen:
            seen.add(u.paths[i])
            carriers.add(i)
    rests = {first: [j for j in range(first + 1, last + 1) if u.kind[j] == REST] for first, last in u.items.items()}
    first_of = {j: first for first, units in rests.items() for j in units}
    anchors: list[tuple[int, ...]] = []
    alone: dict[int, tuple[int, ...]] = {-1: ()}  # a container's opening as the one anchor: one tuple for all
    for i, (kind, parent) in enumerate(zip(u.kind, u.parent)):
        if kind == OPEN:
            # A record's scalars are taken with it, all or none: a record is not shown as its
            # opening and a note that its keys were left out.
            anchors.append((u.end[i], *((parent,) if parent >= 0 else ()), *u.records.get(i, ())))
        elif kind == CLOSE:  # (its end is its opening: the tuple its scalars hold, when they are)
            opening = u.end[i]
            anchors.append(alone[opening] if opening in alone else alone.setdefault(opening, (opening,)))
        elif kind == PIECE_OF:
            anchors.append((i - 1,))
        elif kind == REST:
            anchors.append((first_of[i],))  # (a whole item's units: all or none)
        elif i in u.items:
            anchors.append((*((parent,) if parent >= 0 else ()), *rests[i]))
        else:
            anchors.append(alone[parent] if parent in alone else alone.setdefault(parent, (parent,)))
    raw = [round(cost * scale) for cost in costs]
    must = [stage < 1 for stage in u.stage]
    for i in carriers:
        must[i] = True
    for i in u.gaps:  # (never shown: the writer counts what it stands for)
        costs[i], raw[i], level[i], must[i] = HOLE_COST, 0, float("inf"), False
    lines = bytes(map(str.count, u.after, itertools.repeat("\n")))  # (only what follows a top value breaks a line)
    table = UnitTable(u.texts, costs, raw, level, range(len(level)), must, anchors, lines=lines, blank=_blanks(u))
    u.planned()
    lossless = functools.partial(whole_of, tops, layout, u, encoded, compact)
    return Plan(
        table,
        encoded.count,
        gap=gap_of(layout),
        write=functools.partial(write_cut, u, layout),
        levels=tuple(float(stage + 1) for stage in range(len(STAGES) - 1, -1, -1)),
        lossless=lossless if not rows and not u.gaps else None,
        check=lambda content: None if valid(content) else "output is not valid JSON",
        tier2_check=None if rows else functools.partial(_keeps_its_must_set, tops[0]),
        notes=_duplicates_note(duplicates),
    )


def _first_causes(u: Units, level: array[float]) -> None:
    """The first failing item to say a message several say (a string member of an error-like
    member: pytest-json-report's `call.crash.message`) says it at its name's turn, with the
    members that name the item: twenty tests failing of one cause show the cause, and where it
    crashed, beside the first of them, not after every name. (Its containers come with it, as
    anchors, and a small container's other scalars: a record is shown whole.)"""
    causes: dict[str, list[tuple[int, int]]] = {}  # a message: (member, its depth in its item), in order
    for i, path in u.paths.items():
        if not path.endswith(_CAUSE_ENDS) or u.kind[i] != LEAF or u.stage[i] >= 1 or not u.body[i].startswith('"'):
            continue  # (a failing item's members are at its array's stage, the strongest)
        inside = path.rsplit("[]", 1)[-1].lstrip(".").split(".")  # (the item's members down to it)
        if len(inside) > 1 and ERRORS.intersection(map(str.lower, inside[:-1])):
            causes.setdefault(u.body[i], []).append((i, len(inside)))
    for said in causes.values():
        if len(said) > 1:  # (a message only one item says waits, as every item's details do)
            i, deep = said[0]
            level[i] = u.stage[i] + (u.depth[i] - deep) / 1000  # (the item's members' turn)


def _written_as(text: str, raw: str) -> bool:
    """Whether the units' text is the raw text (with a line break at its end, or not)."""
    return text == raw or (len(text) == len(raw) + 1 and text.endswith("\n") and text.startswith(raw))


def _blanks(u: Units) -> bytes:
    """Per unit, whether its text is white space only (a gap's; a string's piece of spaces),
    as the plan would find from the texts, without making each unit's text."""
    blank = bytearray(len(u.body))
    for i in itertools.compress(range(len(u.body)), map(operator.not_, map(str.strip, u.body))):
        blank[i] = not u.texts[i].strip()
    return bytes(blank)


def _keeps_its_must_set(original: Any, content: str) -> str | None:
    """What a tier-2 content leaves out of the seed's must set (must.broken), if anything."""
    found = parse(content)
    return "output is not valid JSON" if found is None or found[1] else must.broken(original, found[0][0])


def _duplicates_note(duplicates: list[str]) -> tuple[str, ...]:
    """What a cut says when objects repeat a key: it shows each key once, with its last value."""
    if not duplicates:
        return ()
    names = ", ".join(dict.fromkeys(duplicates[:5]))
    return (
        f"{plural(len(duplicates), 'repeated key')} in objects ({names}): the cut shows each key once, "
        "with its last value; the offloaded raw text has them all",
    )
