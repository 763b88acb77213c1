"""JSON and JSON Lines as plans: every key kept, long arrays and strings shortened only as far
as the room requires (the longest first), always valid JSON.

Units, in document order: a container's opening (`"key":{`) and closing, each scalar, the
pieces of a long string, and an array's middle item that no later stage would cut, whole.
What a cut leaves out is said in place: `{"_truncated": "N items omitted"}` in an array,
`"_truncated": "N keys omitted"` in an object, `... (N chars omitted)` in a string,
`{"_truncated": "N lines omitted"}` between JSON Lines rows. A cut is written compactly; a
document whose compact form fits is shown whole, its top levels indented as far as they fit.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

from ctxguard.kinds import text as plain
from ctxguard.kinds.json import must
from ctxguard.kinds.json.model import JsonDoc, parse
from ctxguard.kinds.json.units import CLOSE, LEAF, OPEN, PIECE_OF, REST, STAGES, walk
from ctxguard.kinds.json.write import gap_of, layout_of, whole_of, write_cut
from ctxguard.plan import HOLE_COST, Plan, Unit, new_unit
from ctxguard.tokens.base import Encoded, Tokenizer
from ctxguard.words import plural

_AT_PARENT = (LEAF, REST)  # units taken at their container's depth


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
    u = walk(tops, layout)
    written = "".join(u.text)
    if written in (encoded.text, encoded.text + "\n"):
        costed, costs = encoded, encoded.segment_counts(u.text)
    else:
        costed, costs = tokenizer.encode_parts(u.text)
    if costed is not encoded:
        encoded.learn(costed)  # the content's lines are the rewritten text's: count them from it
    scale = encoded.count / max(1, costed.count)  # raw tokens a unit stands for
    priority = [
        (stage + min(depth - (kind in _AT_PARENT and parent >= 0), 999) / 1000, i)
        for i, (stage, depth, kind, parent) in enumerate(zip(u.stage, u.depth, u.kind, u.parent))
    ]  # a scalar (or a whole item) is taken with its container, at its depth
    # Every key is kept: the first unit (by priority) to carry each key path is kept whatever
    # the stage (at tier 3: first, as far as they fit).
    carriers: set[int] = set()
    seen: set[str] = set()
    for i in sorted(u.paths, key=priority.__getitem__):
        if u.paths[i] not in seen:
            seen.add(u.paths[i])
            carriers.add(i)
    rests = {first: [j for j in range(first + 1, last + 1) if u.kind[j] == REST] for first, last in u.items.items()}
    first_of = {j: first for first, units in rests.items() for j in units}
    out = []
    for i, (kind, parent, text, cost, stage) in enumerate(zip(u.kind, u.parent, u.text, costs, u.stage)):
        if kind == OPEN:
            # A record's scalars are taken with it, all or none: a record is not shown as its
            # opening and a note that its keys were left out.
            anchors: tuple[int, ...] = (u.end[i], *((parent,) if parent >= 0 else ()), *u.records.get(i, ()))
        elif kind == CLOSE:
            anchors = (u.end[i],)  # (a closing's end is its opening)
        elif kind == PIECE_OF:
            anchors = (i - 1,)
        elif kind == REST:
            anchors = (first_of[i],)  # (a whole item's units: all or none)
        elif i in u.items:
            anchors = (*((parent,) if parent >= 0 else ()), *rests[i])
        else:
            anchors = (parent,) if parent >= 0 else ()
        if i in u.gaps:  # (never shown: the writer counts what it stands for)
            out.append(Unit("", HOLE_COST, 0, (float("inf"), i), False, anchors))
            continue
        out.append(
            new_unit((text, cost, round(cost * scale), priority[i], stage < 1 or i in carriers, anchors, None, 0))
        )
    lossless = functools.partial(whole_of, tops, layout, u, encoded, costed.count)
    return Plan(
        out,
        encoded.count,
        gap=gap_of(layout),
        write=functools.partial(write_cut, u, layout),
        levels=tuple(float(stage + 1) for stage in range(len(STAGES) - 1, -1, -1)),
        lossless=lossless if not rows and not u.gaps else None,
        check=lambda content: None if parse(content) is not None else "output is not valid JSON",
        tier2_check=None if rows else functools.partial(_keeps_its_must_set, tops[0]),
        notes=_duplicates_note(duplicates),
    )


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
