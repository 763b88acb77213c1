"""One packer for every cut: a plan and a room in tokens -> the content.

Units are taken by priority while they fit, each with the units it anchors to: first the
`must` units, in order, until one does not fit; then the others, where a unit too big for what
is left is passed over for smaller ones after it, so the room is filled. The kept units
are shown in their order, each run left out replaced by the plan's gap line, whose tokens are
counted. The result is counted exactly and, if the joins made it bigger than the estimate,
packed again into a room smaller by the excess.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import NamedTuple

from ctxguard.plan import Plan, Unit, shown_listing

_TRIES = 6
_UNUSED = 0.03  # a share of the room left unused that is not worth packing again for


class Fit(NamedTuple):
    """A content that fits, the units it shows, and the limit they were chosen at."""

    content: str
    chosen: list[bool]
    limit: int


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
    filled = _fit(plan, order, fixed, gap, found.limit, room, count, marker, skip=must)
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
    When a bigger limit goes over, the limits between the last that fit and it are bisected: a
    bigger room must not keep less than a smaller one did (its first limit can fall one token
    short of a unit the smaller room's second limit took)."""
    fitted: Fit | None = None  # the best content
    over_at = None  # the least limit over
    strict = marker is None or skip is not None  # (tier 2, or the must units of a tier-3 cut fixed)
    for _ in range(_TRIES):
        chosen = _choose(plan.units, order, must, gap, limit, strict, fill, skip)
        if chosen is None:
            return fitted
        content = render(plan, chosen, marker)
        over = count(content) - room
        if over > 0:
            over_at = limit if over_at is None else min(over_at, limit)
            if fitted is not None:
                if over_at - fitted.limit <= 1:
                    return fitted  # (no limit between the last fit and this one)
                limit = (fitted.limit + over_at) // 2
                continue
            trimmed = _trim(plan, order, must, chosen, marker, room, count, limit)
            if trimmed is not None:
                return trimmed  # (the fillers cost more than estimated: the must units stand)
            limit -= over + 2
        elif -over <= room * _UNUSED or -over < min(
            (u.cost for u, kept, m in zip(plan.units, chosen, must) if not kept and (fill or m)), default=room + 1
        ):
            return Fit(content, chosen, limit)  # (little is left, or no unit left out would fit there)
        else:
            fitted = Fit(content, chosen, limit)
            limit = limit - over if over_at is None else (limit + over_at) // 2
            if over_at is not None and over_at - fitted.limit <= 1:
                return fitted
    return fitted


def _trim(
    plan: Plan,
    order: list[int],
    must: Sequence[bool],
    chosen: list[bool],
    marker: Callable[[int], str] | None,
    room: int,
    count: Callable[[str], int],
    limit: int,
) -> Fit | None:
    """The content without the last few units taken after the must units (an inline gap, a join,
    made it longer than estimated), if that fits: packing again into a smaller limit could lose a
    must unit that fits, and a bigger room would then keep less than a smaller one."""
    kept = list(chosen)
    needed = {j for i, k in enumerate(kept) if k for j in plan.units[i].anchors}
    for i in [i for i in reversed(order) if kept[i] and not must[i] and i not in needed][:_TRIES]:
        kept[i] = False
        content = render(plan, kept, marker)
        if count(content) <= room:
            return Fit(content, kept, limit)
    return None


def _choose(
    units: Sequence[Unit],
    order: list[int],
    must: Sequence[bool],
    gap: int,
    limit: int,
    strict: bool,
    fill: bool = True,
    skip: Sequence[bool] | None = None,
) -> list[bool] | None:
    """The units kept at limit: the must units in order (all of them, or None, when strict; else
    until one does not fit), then, with fill, the others that fit, except those skipped. Given
    skip (a tier-3 cut's second step), the must units are those its first step found to fit:
    they are taken whatever the limit, which bounds only what is added around them."""
    n = len(units)
    chosen = [False] * n
    used = [gap if n else 0]  # everything left out is one gap
    sealed = [False]  # once a must unit did not fit, no must unit is taken after it

    def take(i: int, force: bool = False) -> bool:
        """Choose i and what it anchors to, if they fit (or forced); else change nothing."""
        if not force and units[i].cost - gap > limit - used[0]:
            return False  # (sure not to fit: at best it closes a gap)
        anchors = units[i].anchors
        group = [i] if all(chosen[j] for j in anchors) else _closure(units, i, chosen)
        if sealed[0] and any(must[j] for j in group) or skip and any(skip[j] and not must[j] for j in group):
            return False  # (a must unit past the seal: never taken, not even as an anchor)
        before = used[0]
        for j in group:
            left = j == 0 or chosen[j - 1]
            right = j == n - 1 or chosen[j + 1]
            # Choosing j closes a gap (both sides kept), shortens one (one side) or splits one.
            used[0] += units[j].cost + (-gap if left and right else 0 if left or right else gap)
            chosen[j] = True
        if force or used[0] <= limit:
            return True
        for j in group:
            chosen[j] = False
        used[0] = before
        return False

    for i in order:
        if must[i] and not chosen[i] and not take(i, force=skip is not None):
            if strict:
                return None
            # Tier 3: no must unit is passed over for a later one, nor taken later as another's
            # anchor, so a bigger room keeps every must unit a smaller one kept (the units that
            # carry the probes).
            sealed[0] = True
            break
    if fill:
        for i in order:
            if (
                not chosen[i]
                and not must[i]
                and not (skip and skip[i])
                and (units[i].text.strip() or _beside(chosen, i))
            ):
                take(i)  # (a blank line is never worth a gap of its own)
    used[0] += _close_cheap_gaps(units, chosen, must, skip, gap)
    return chosen


def _close_cheap_gaps(
    units: Sequence[Unit], chosen: list[bool], must: Sequence[bool], skip: Sequence[bool] | None, gap: int
) -> int:
    """Show each run left out between two units shown (or an end) that costs no more than the
    gap line standing for it: a blank line, a short sentence. Returns the change in cost.
    (Never a must unit left out, nor a unit skipped: they are not the packer's to add here.)"""
    n, change, i = len(units), 0, 0
    if not any(chosen):
        return 0
    while i < n:
        if chosen[i]:
            i += 1
            continue
        end = i
        while end < n and not chosen[end]:
            end += 1
        run = range(i, end)
        cost = sum(units[j].cost for j in run)
        if cost <= gap and all(
            not must[j] and not (skip and skip[j]) and all(chosen[a] or i <= a < end for a in units[j].anchors)
            for j in run
        ):
            for j in run:
                chosen[j] = True
            change += cost - gap
        i = end
    return change


def _beside(chosen: Sequence[bool], i: int) -> bool:
    return (i > 0 and chosen[i - 1]) or (i + 1 < len(chosen) and chosen[i + 1])


def _closure(units: Sequence[Unit], i: int, chosen: Sequence[bool]) -> list[int]:
    """i and every unit not chosen yet it anchors to, directly or through another, in order.
    (A chosen unit's anchors are chosen: the walk stops there.)"""
    seen = {i}
    stack = list(units[i].anchors)
    while stack:
        j = stack.pop()
        if j not in seen and not chosen[j]:
            seen.add(j)
            stack.extend(units[j].anchors)
    return sorted(seen)


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
