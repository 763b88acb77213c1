"""Pure allocation of budgets: margin, the small kept whole first, the rest by priority share,
and surplus handed on.

A configured budget is a cap. Surplus (budget an artifact does not need) goes first to the other
files of the same entry, whose sum stays within the entry's budget, and then only to artifacts
that opted in with `share_surplus: true`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ctxguard.errors import ConfigError
from ctxguard.options import MIN_BUDGET
from ctxguard.words import plural

WEIGHT: Final = {"high": 4.0, "normal": 2.0, "low": 1.0}
ORDER: Final = ("high", "normal", "low")


@dataclass(frozen=True)
class Request:
    """What one artifact asks for, and how many tokens it actually has."""

    budget: int
    need: int
    priority: str = "normal"
    group: str = ""  # the config entry: its files share its budget ("": on its own)
    shares: bool = False  # share_surplus: may take other entries' surplus beyond its budget


def capacity(
    requests: Sequence[Request],
    total: int | None = None,
    margin: float = 1.0,
    reserved: int = 0,
    floor: int = MIN_BUDGET,
) -> int:
    """The most tokens the bundle may use: the artifacts' budgets plus what is reserved
    (the digest), within the total."""
    asked = sum(max(floor, math.floor(r.budget * margin)) for r in requests) + reserved
    return min(asked, math.floor(total * margin)) if total is not None else asked


def too_small(count: int, total: int | None, margin: float, reserved: int, floor: int) -> bool:
    """True when total x margin, less what is reserved, leaves under `floor` tokens each for
    `count` artifacts (allocate refuses such a total)."""
    return total is not None and count * floor > math.floor(total * margin) - reserved


def allocate(
    requests: Sequence[Request],
    total: int | None = None,
    margin: float = 1.0,
    reserved: int = 0,
    floor: int = MIN_BUDGET,
) -> list[int]:
    """Budgets for each request: deterministic, each at least `floor` (the smallest budget the
    tokenizer allows), and with `reserved` tokens (the digest, paid first) their sum stays within
    total x margin.

    Each artifact wants what it needs, up to its budget (× margin); the files of one entry share
    the entry's budget, the small ones whole first. When the total cannot hold every want, what
    it holds is water-filled: an artifact whose want fits within its share (the total split by
    priority weight: high 4, normal 2, low 1) is kept whole, and what is left is split the same
    way among the rest, so a high-priority artifact is cut only when every normal one is held
    to its share. Budget left unused goes to
    `share_surplus` entries, beyond their own budget."""
    asked = [max(floor, math.floor(r.budget * margin)) for r in requests]
    cap = math.floor(total * margin) - reserved if total is not None else None
    if too_small(len(requests), total, margin, reserved, floor):
        raise ConfigError(
            f"total_budget {total} (x margin {margin}, less {reserved} tokens for the digest) leaves "
            f"less than {floor} tokens for each of {plural(len(requests), 'artifact')}; raise "
            "total_budget or narrow the artifacts"
        )
    want = _within_entries(asked, requests, floor)
    weights = [WEIGHT[r.priority] for r in requests]
    given = _fill(want, weights, cap, floor) if cap is not None and sum(want) > cap else want
    unused = sum(a - w for a, w in zip(asked, want))  # budget the artifacts did not need
    pool = unused if cap is None else min(unused, cap - sum(given))
    sharers = [i for i, r in enumerate(requests) if r.shares]
    _give(given, requests, sharers, pool)
    return given


def _within_entries(asked: list[int], requests: Sequence[Request], floor: int) -> list[int]:
    """What each artifact wants: its need, within its entry's budget (the sum of its files'
    shares), the files that need least kept whole first."""
    want = [min(a, max(floor, r.need)) for a, r in zip(asked, requests)]
    for group in sorted({r.group for r in requests} - {""}):  # ("": an artifact on its own)
        members = [i for i, r in enumerate(requests) if r.group == group]
        if len(members) < 2:
            continue
        budget = sum(asked[i] for i in members)
        needs = [max(floor, requests[i].need) for i in members]
        for i, share in zip(members, _fill(needs, [1.0] * len(members), budget, floor)):
            want[i] = share
    return want


def _fill(want: list[int], weights: list[float], cap: int, floor: int) -> list[int]:
    """Water-filling: each gets its want while that is within its share of what is left
    (cap x its weight / the weights of the rest); the rest split what is left by weight."""
    given = [0] * len(want)
    active = list(range(len(want)))
    remaining = cap
    while active:
        total_weight = sum(weights[i] for i in active) or 1.0
        full = [i for i in active if remaining * weights[i] / total_weight >= want[i]]
        if not full:
            for i in active:
                given[i] = max(floor, math.floor(remaining * weights[i] / total_weight))
            break
        for i in full:
            given[i] = want[i]
            remaining -= want[i]
            active.remove(i)
    over = sum(given) - cap  # the floor can overshoot by a few tokens
    while over > 0:
        i = max(range(len(given)), key=lambda k: (given[k], -k))
        cut = min(over, given[i] - floor)
        if cut <= 0:
            break
        given[i] -= cut
        over -= cut
    return given


def _give(out: list[int], requests: Sequence[Request], members: list[int], spare: int) -> int:
    """Hand spare tokens to the members still short of their need; return what is left."""
    for priority in ORDER:
        if spare <= 0:
            break
        over = [i for i in members if requests[i].priority == priority and requests[i].need > out[i]]
        deficit = sum(requests[i].need - out[i] for i in over)
        if not over:
            continue
        if deficit <= spare:
            for i in over:
                out[i] = requests[i].need
            spare -= deficit
            continue
        shares = [math.floor(spare * (requests[i].need - out[i]) / deficit) for i in over]
        for i, share in zip(over, shares):
            out[i] += share
        spare -= sum(shares)
    return spare
