"""One packer for every cut: a plan and a room in tokens -> the content.

Which units are kept at a limit of estimated tokens is ctxguard.choose's answer; the packer
searches the limit: it renders the chosen units (each run left out replaced by the plan's gap
line), counts the content exactly, and chooses again at a smaller limit while it is over the
room, at a bigger one while the room left unused could hold a unit left out. Tier 2 keeps every
must unit or gives no content. A tier-3 cut goes in two steps: the longest run of must units
(in priority order) that fits shown alone, then the other units around them, so a bigger room
never keeps fewer must units than a smaller one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import NamedTuple

from ctxguard.choose import choose
from ctxguard.plan import Plan, Unit, shown_listing

_TRIES = 6
_UNUSED = 0.03  # a share of the room left unused that is not worth packing again for


class Fit(NamedTuple):
    """A content that fits, the units it shows, and the limit they were chosen at."""

    content: str
    chosen: list[bool]
    limit: int
    estimated: int  # the units' estimated cost (at most limit)
    size: int  # the content's tokens


def pack(plan: Plan, room: int, count: Callable[[str], int], marker: Callable[[int], str] | None = None) -> str | None:
    """The content of plan within room tokens, or None.

    Without a marker (tier 2) every `must` unit is kept, or there is no content (None). With
    one (tier 3) the must units are kept as far as they fit, and the marker line, given the raw
    tokens not shown, ends the content.
    """
    if marker is not None and plan.listing is not None:  # (e.g. a cut diff's file list)
        # A third of the room (the rest for what the list cannot say), or up to half when a
        # third holds not one row: at a tiny room the list is what says most.
        plan = replace(plan, prefix=plan.prefix + shown_listing(plan.listing, room), listing=None)
    units = plan.units
    order = sorted(range(len(units)), key=lambda i: units[i].priority)  # stable: ties in order
    lines = max(2, sum(u.omits for u in units))
    gap = count(plan.gap(lines, lines))  # about the widest gap line
    limit = room - count(plan.prefix) - (count("\n" + marker(plan.total)) if marker else 0)
    if marker is not None:
        return _tier3(plan, order, gap, limit, room, count, marker)
    whole = plan.lossless(room) if plan.lossless is not None else None
    if whole is not None and count(whole) <= room:
        return whole
    for level in plan.levels or (None,):  # tier 2: the first must set that fits
        base = plan.tier2_must if plan.tier2_must is not None else [u.must for u in units]
        must = list(base) if level is None else [m or u.priority[0] < level for u, m in zip(units, base)]
        if sum(u.cost for u, m in zip(units, must) if m) > limit:
            continue  # (sure not to fit, without choosing)
        found = _fit(plan, order, must, gap, limit, room, count, None)
        if found is not None:
            return found.content
    return None


def _tier3(
    plan: Plan,
    order: list[int],
    gap: int,
    limit: int,
    room: int,
    count: Callable[[str], int],
    marker: Callable[[int], str],
) -> str | None:
    """A tier-3 cut in two steps. First the longest run of must units, in order, that fits
    shown alone (what the probes are made of); then, around those, the other units that fit.
    The first step does not depend on what the second takes, so a bigger room never keeps fewer
    must units than a smaller one: a filler taken at one limit cannot crowd a must unit out."""
    must = [u.must for u in plan.units]
    found = _fit(plan, order, must, gap, limit, room, count, marker, fill=False)
    if found is None:
        return None
    fixed = [m and c for m, c in zip(must, found.chosen)]  # the must units kept; the others left out
    # Around them, the room their content left: from their estimated cost on.
    start = found.estimated + room - found.size
    filled = _fit(plan, order, fixed, gap, start, room, count, marker, skip=must)
    return (filled or found).content


def _fit(
    plan: Plan,
    order: list[int],
    must: list[bool],
    gap: int,
    limit: int,
    room: int,
    count: Callable[[str], int],
    marker: Callable[[int], str] | None,
    fill: bool = True,
    skip: Sequence[bool] | None = None,
) -> Fit | None:
    """Choose and render, packing again into a smaller limit while the content is over room,
    and into a bigger one while the room left unused could hold a unit left out (the gaps' cost
    is estimated: a plan's gap lines vary), keeping the content of the biggest limit that fit.
    Once a limit that fits and one over are known, the next lies between them: for the must
    units alone (fill False) halfway, so a bigger room never keeps fewer of them than a smaller
    one did (its first limit can fall one token short of a unit the smaller room's second limit
    took); around fixed must units, where the written size grows about as the limit does, where
    the line between the two sizes meets the room (but not in the outer quarters of the interval:
    sizes jump where a big unit comes in)."""
    fitted: Fit | None = None  # the best content
    over_at, over_size = None, 0  # the least limit over, and its size
    strict = marker is None or skip is not None  # (tier 2, or the must units of a tier-3 cut fixed)

    def between(fits: Fit, over: int) -> int:
        if not fill or over_size <= fits.size:
            return (fits.limit + over) // 2
        guess = fits.limit + (room - fits.size) * (over - fits.limit) // (over_size - fits.size)
        quarter = max(1, (over - fits.limit) // 4)  # (never near an end: the sizes can jump)
        return min(max(guess, fits.limit + quarter), over - quarter)

    for _ in range(_TRIES):
        found = choose(plan.units, order, must, gap, limit, strict, fill, skip)
        if found is None:
            return fitted
        chosen, estimated = found
        content = render(plan, chosen, marker)
        size = count(content)
        over = size - room
        if over > 0:
            if over_at is None or limit < over_at:
                over_at, over_size = limit, size
            if fitted is not None:
                if over_at - fitted.limit <= 1 or not fill and _taken(chosen, must) - _taken(fitted.chosen, must) <= 1:
                    return fitted  # (no limit between the last fit and this one, or no must unit)
                limit = between(fitted, over_at)
                continue
            # Tier 2: the fillers cost more than estimated; without a few, the must units stand
            # (a smaller limit might not hold them all). A tier-3 cut's must units are fixed first.
            trimmed = _trim(plan, order, must, chosen, room, count, limit) if marker is None else None
            if trimmed is not None:
                return trimmed
            limit -= over + 2
        elif -over <= room * _UNUSED or -over < min(
            (u.cost for u, kept, m in zip(plan.units, chosen, must) if not kept and (fill or m)), default=room + 1
        ):
            return Fit(content, chosen, limit, estimated, size)  # (little is left, or no unit left out would fit there)
        else:
            fitted = Fit(content, chosen, limit, estimated, size)
            if over_at is not None and over_at - fitted.limit <= 1:
                return fitted
            limit = limit - over if over_at is None else between(fitted, over_at)
    return fitted


def _taken(chosen: Sequence[bool], must: Sequence[bool]) -> int:
    return sum(c and m for c, m in zip(chosen, must))


def _trim(
    plan: Plan,
    order: list[int],
    must: Sequence[bool],
    chosen: list[bool],
    room: int,
    count: Callable[[str], int],
    limit: int,
) -> Fit | None:
    """A tier-2 content without the last few units taken after the must units (an inline gap, a
    join, made it longer than estimated), if that fits: a smaller limit might not hold every must
    unit, and tier 2 keeps them all or is not tier 2."""
    kept = list(chosen)
    needed = {j for i, k in enumerate(kept) if k for j in plan.units[i].anchors}
    for i in [i for i in reversed(order) if kept[i] and not must[i] and i not in needed][:_TRIES]:
        kept[i] = False
        content = render(plan, kept)
        size = count(content)
        if size <= room:
            return Fit(content, kept, limit, limit, size)
    return None


def render(plan: Plan, chosen: Sequence[bool], marker: Callable[[int], str] | None = None) -> str:
    """The chosen units in order, each run left out marked, and the marker.

    A run of whole lines is the plan's gap line, given how many lines it stands for and the
    first one's number in the raw text; a run inside a line (sentences of a paragraph) is `(…)`
    in place. A plan that writes its own syntax (JSON) is given the marker line.
    """
    if plan.write is not None:
        shown = sum(unit.raw for unit, kept in zip(plan.units, chosen) if kept)
        return plan.write(chosen, marker(max(1, plan.total - shown)) if marker is not None else None)
    out = [plan.prefix]
    mid = False  # the output so far ends inside a line
    ends = 0  # line ends among the units of the current run
    last: Unit | None = None  # the run's last unit
    shown_raw = 0
    line = 1  # the raw line the next unit starts on
    start = 1  # the raw line the current run starts on

    def close() -> None:
        nonlocal mid, ends
        end = start + ends - 1  # the run's last line end is this line's
        if mid and ends:
            out.append("(…)\n")  # the rest of the line that was being shown
            mid, ends = False, ends - 1
        if ends:
            out.append(plan.gap(ends, end - ends + 1))
        if last is not None and last.text and not last.text.endswith("\n"):
            out.append("(…) ")  # the next unit shown starts inside a line, or goes on in one
            mid = True

    for unit, kept in zip(plan.units, chosen):
        at, line = line, line + unit.omits
        if not kept:
            if last is None:
                start = at
            ends += unit.omits
            last = unit
            continue
        if last is not None:
            close()
            ends, last = 0, None
        out.append(unit.text)
        mid = not unit.text.endswith("\n")
        shown_raw += unit.raw
    if last is not None:
        close()
        if mid:
            out.append("\n")
    if marker is not None:
        out.append(marker(max(1, plan.total - shown_raw)))
    return "".join(out)
