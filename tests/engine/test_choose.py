"""choose: what a fill takes, each unit with what it anchors to, as the plain rule says."""

from __future__ import annotations

import operator
import random
from collections.abc import Sequence

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ctxguard.engine.choose import _beside, _close_cheap_gaps, choose
from ctxguard.plan import Plan, Unit


def _by_the_rule(
    plan: Plan,
    order: Sequence[int],
    must: Sequence[bool],
    gap: float,
    limit: float,
    skip: Sequence[bool] | None = None,
    most: int | None = None,
) -> tuple[list[bool], float] | None:
    """choose as its docstring says, with nothing remembered: each unit's group is walked
    again at every turn, a barred unit found in it after the walk."""
    costs, anchors, blank = plan.columns
    n = len(costs)
    chosen = [False] * n
    used = gap if n else 0
    barred = list(map(operator.gt, skip, must)) if skip else None

    def group_of(i: int) -> list[int]:
        found, seen = [i], {i}
        for j in found:
            for a in anchors[j]:
                if a not in seen and not chosen[a]:
                    seen.add(a)
                    found.append(a)
        return sorted(found)

    def take(i: int, force: bool = False) -> bool:
        nonlocal used
        if not force and costs[i] - gap > limit - used:
            return False  # (the unit alone, closing a gap at best, is over)
        group = group_of(i)
        if barred and any(barred[j] for j in group):
            return False
        cost: float = 0
        for j in group:  # (in order: the unit before is chosen, or a member)
            left = j == 0 or chosen[j - 1] or j - 1 in group
            right = j == n - 1 or chosen[j + 1]
            cost += costs[j] + (-gap if left and right else 0 if left or right else gap)
        if not force and used + cost > limit:
            return False
        for j in group:
            chosen[j] = True
        used += cost
        return True

    taken = 0
    for i in order:
        if not must[i] or chosen[i]:
            continue
        if most is not None and taken == most:
            break
        taken += 1
        if not take(i, force=skip is not None or most is not None):
            return None
    used += _close_cheap_gaps(plan, chosen, must, skip, gap)
    if most is not None:
        return chosen, used
    for i in order:
        if chosen[i] or must[i] or (skip and skip[i]) or (blank[i] and not _beside(chosen, i)):
            continue
        take(i)
    used += _close_cheap_gaps(plan, chosen, must, skip, gap)
    return chosen, used


def _tree(rnd: random.Random, n: int) -> list[tuple[int, ...]]:
    """Anchors as a JSON plan's: an opening anchored to its closing and its container's opening
    (and, as a record, to its scalars), a closing and a scalar to their opening."""
    anchors: list[tuple[int, ...]] = []
    open_: list[int] = []  # the openings not closed yet
    for i in range(n):
        parent = (open_[-1],) if open_ else ()
        step = rnd.random()
        if step < 0.3 and i < n - 2:
            anchors.append(parent)  # (an opening: its closing added when it is closed)
            open_.append(i)
        elif step < 0.5 and open_:
            opening = open_.pop()
            anchors[opening] = (i, *anchors[opening])
            anchors.append((opening,))
        else:
            anchors.append(parent)
    for i, group in enumerate(anchors):  # (now and then a record: its scalar anchors its opening back)
        if len(group) == 1 and rnd.random() < 0.2:
            anchors[group[0]] = (*anchors[group[0]], i)
    return anchors


@settings(max_examples=400, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    n=st.integers(1, 40),
    gap=st.sampled_from([1, 3, 2.5, 1.25]),
    tree=st.booleans(),
)
@example(seed=0, n=2, gap=3, tree=False)  # (a closing and its opening anchored to each other)
@example(seed=15, n=15, gap=3, tree=False)  # (a group's cost after another group was chosen)
def test_a_fill_takes_what_the_plain_rule_takes(seed: int, n: int, gap: float, tree: bool) -> None:
    """choose takes the units, and reaches the estimate, that the plain rule gives (each
    unit's group walked again at every turn), in each step of a cut, at every limit: what an
    optimisation of its loop (a group remembered, a walk cut short) must keep. (Anchors as a
    JSON plan's, or at random: chains, units anchored to each other, several a unit.)"""
    rnd = random.Random(seed)
    costs = [rnd.choice([0, 1, 2, 5, 9]) for _ in range(n)]
    anchors = [
        tuple(rnd.sample(range(n), rnd.choice([0, 0, 1, 1, 1, 2, 3]) if n > 3 else 1)) if rnd.random() < 0.7 else ()
        for _ in range(n)
    ]
    if tree:
        anchors = _tree(rnd, n)
    elif n == 2:
        anchors = [(1,), (0,)]
    anchors = [tuple(a for a in dict.fromkeys(group) if a != i) for i, group in enumerate(anchors)]
    units = [
        Unit("x\n" if c else "\n", c, c, (rnd.random(), i), rnd.random() < 0.3, a)
        for i, (c, a) in enumerate(zip(costs, anchors))
    ]
    plan = Plan(units, sum(costs) + 1)
    order, must = plan.order, plan.musts
    total = sum(costs) + gap * n
    for limit in (0, total / 8, total / 4, total / 2, total):
        assert choose(plan, order, must, gap, limit) == _by_the_rule(plan, order, must, gap, limit)
        most = rnd.randint(0, sum(must))
        first = choose(plan, order, must, gap, 0, fill=False, most=most)
        assert first == _by_the_rule(plan, order, must, gap, 0, skip=None, most=most)
        assert first is not None
        fixed = [m and c for m, c in zip(must, first[0])]  # (the second step: the must units the first kept)
        expected = _by_the_rule(plan, order, fixed, gap, first[1] + limit, skip=must)
        assert choose(plan, order, fixed, gap, first[1] + limit, True, must) == expected
