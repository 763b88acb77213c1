"""Which units a cut shows at a limit of estimated tokens (ctxguard.packer searches the limit).

The must units are taken in priority order, each with the units it anchors to (all of them,
or none: tier 2; a tier-3 cut gives how many, or which, it found to fit); then the others that
fit, by priority (a unit that waits for groups, only while none of theirs was left out at its turn);
then each run left out that costs no more than the gap line standing for it. Choosing a unit closes,
shortens or splits a gap, and the estimate counts each gap as `gap` tokens: the plan's widest
gap line, or in a tier-3 cut's fill what the first step's gap lines cost (ctxguard.packer).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from itertools import compress

from ctxguard.plan import Plan


def choose(
    plan: Plan,
    order: Sequence[int],
    must: Sequence[bool | int],
    gap: float,
    limit: float,
    fill: bool = True,
    skip: Sequence[bool] | None = None,
    most: int | None = None,
    start: tuple[list[bool], float] | None = None,
) -> tuple[list[bool], float] | None:
    """The units kept at limit: the must units in order (all of them, or None), then, with fill,
    the others that fit, except those skipped. Given skip (a tier-3 cut's second step), the
    must units are those its first step found to fit: they are taken whatever the limit, which
    bounds only what is added around them. Given most (a tier-3 cut's first step), the first
    `most` must units in order are taken, whatever the limit, and no other. Given start (with
    skip: the first step's units and their estimated cost), the must units are those it chose,
    taken as it took them: the fill goes on from there without taking them again. Returns the
    units chosen and their estimated cost."""
    costs, anchors, blank = plan.columns
    n = len(costs)  # (lists: read at every unit of every choice)
    chosen = list(start[0]) if start is not None else [False] * n
    used = start[1] if start is not None else gap if n else 0  # (at first everything left out is one gap)
    # The units never taken: a must unit the first step left out (not even as an anchor).
    barred = bytes(map(operator.gt, skip, must)) if skip else None  # (skipped and not must: a byte a unit)

    def take(i: int, force: bool = False) -> bool:
        """Choose i and what it anchors to, if they fit (or forced); else change nothing."""
        nonlocal used
        if not force and costs[i] - gap > limit - used:
            return False  # (sure not to fit: at best it closes a gap)
        if all(map(chosen.__getitem__, anchors[i])):  # (most units: i alone)
            if barred and barred[i]:
                return False
            left = i == 0 or chosen[i - 1]
            right = i == n - 1 or chosen[i + 1]
            # Choosing i closes a gap (both sides kept), shortens one (one side) or splits one.
            cost = costs[i] + (-gap if left and right else 0 if left or right else gap)
            if not force and used + cost > limit:
                return False
            chosen[i] = True
            used += cost
            return True
        group = _closure(anchors, i, chosen)
        if barred and any(map(barred.__getitem__, group)):
            return False
        cost, before = 0, -2  # (the group in order: a unit's left neighbour is chosen, or the one before)
        for j in group:
            left = j == 0 or j - 1 == before or chosen[j - 1]
            right = j == n - 1 or chosen[j + 1]
            cost += costs[j] + (-gap if left and right else 0 if left or right else gap)
            before = j
        if not force and used + cost > limit:
            return False
        for j in group:
            chosen[j] = True
        used += cost
        return True

    if start is None:
        taken = 0
        for i in order:
            if not must[i] or chosen[i]:
                continue
            if most is not None and taken == most:
                break
            taken += 1
            if not take(i, force=skip is not None or most is not None):
                return None  # (tier 2: every must unit, or no content)
        used += _close_cheap_gaps(plan, chosen, must, skip, gap)  # (between the must units: before the fill)
    if fill:
        waits, groups = plan.waits_for, plan.group
        held: set[int] = set()  # groups one of whose units was left out at its turn
        for i in order:
            if chosen[i]:
                continue
            if (
                (not waits or held.isdisjoint(waits[i]))
                and costs[i] - gap <= limit - used  # (take's own first test: most units fail it)
                and not must[i]
                and not (skip and skip[i])
                and (not blank[i] or _beside(chosen, i))  # (a blank line is never worth a gap of its own)
            ):
                take(i)
            if groups and not chosen[i]:
                held.update(groups[i])
        used += _close_cheap_gaps(plan, chosen, must, skip, gap)
    return chosen, used


def _close_cheap_gaps(
    plan: Plan, chosen: list[bool], must: Sequence[bool | int], skip: Sequence[bool] | None, gap: float
) -> float:
    """Show each run left out between two units shown (or an end) that costs no more than the
    gap line standing for it: a blank line, a short sentence. Returns the change in cost.
    (Never a must unit left out, nor a unit skipped: they are not the packer's to add here.)
    A walk over the units shown, each run's cost from the plan's sums."""
    costs, anchors = plan.costs, plan.columns[1]
    n = len(anchors)
    kept = list(compress(range(n), chosen))
    if not kept:
        return 0
    change = 0.0
    for before, end in zip([-1, *kept], [*kept, n]):  # each run between two shown
        first = before + 1
        if first == end:
            continue
        cost = costs[end] - costs[first]
        if cost > gap:
            continue
        run = range(first, end)
        if all(
            not must[j] and not (skip and skip[j]) and all(chosen[a] or first <= a < end for a in anchors[j])
            for j in run
        ):
            for j in run:
                chosen[j] = True
            change += cost - gap
    return change


def _beside(chosen: Sequence[bool], i: int) -> bool:
    return (i > 0 and chosen[i - 1]) or (i + 1 < len(chosen) and chosen[i + 1])


def _closure(anchors: Sequence[tuple[int, ...]], i: int, chosen: Sequence[bool]) -> list[int]:
    """i and every unit not chosen yet it anchors to, directly or through another, in order.
    (A chosen unit's anchors are chosen: the walk stops there.)"""
    seen = {i}
    found = [i]
    for j in found:  # (grows as it goes)
        for a in anchors[j]:
            if a not in seen and not chosen[a]:
                seen.add(a)
                found.append(a)
    found.sort()
    return found
