"""Pure allocation of budgets: margin, a total cap scaled by priority, and surplus handed on.

A configured budget is a cap. Surplus (budget an artifact does not need) goes first to the other
files of the same entry, whose sum stays within the entry's budget, and then only to artifacts
that opted in with `share_surplus: true`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ctxguard.errors import ConfigError
from ctxguard.tiers import MIN_BUDGET

WEIGHT = {"high": 4.0, "normal": 2.0, "low": 1.0}
ORDER = ("high", "normal", "low")


@dataclass(frozen=True)
class Request:
    """What one artifact asks for, and how many tokens it actually has."""

    budget: int
    need: int
    priority: str = "normal"
    group: str = ""  # the config entry: its files share its budget
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
    total x margin."""
    asked = [max(floor, math.floor(r.budget * margin)) for r in requests]
    cap = math.floor(total * margin) - reserved if total is not None else None
    if too_small(len(requests), total, margin, reserved, floor):
        raise ConfigError(
            f"total_budget {total} (x margin {margin}, less {reserved} tokens for the digest) leaves "
            f"less than {floor} tokens for each of {len(requests)} artifacts; raise "
            "total_budget or narrow the artifacts"
        )
    given = _cap(asked, [r.priority for r in requests], cap, floor) if cap is not None and sum(asked) > cap else asked
    return _hand_on_surplus(given, requests, floor)


def _cap(asked: list[int], priorities: list[str], cap: int, floor: int) -> list[int]:
    """Scale down to the cap, in proportion to budget x priority weight (water-filling)."""
    given = [0] * len(asked)
    active = list(range(len(asked)))
    remaining = cap
    while active:
        weights = {i: asked[i] * WEIGHT[priorities[i]] for i in active}
        total_weight = sum(weights.values())
        full = [i for i in active if remaining * weights[i] / total_weight >= asked[i]]
        if not full:
            for i in active:
                given[i] = max(floor, math.floor(remaining * weights[i] / total_weight))
            break
        for i in full:
            given[i] = asked[i]
            remaining -= asked[i]
            active.remove(i)
    over = sum(given) - cap  # the floor can overshoot by a few tokens
    while over > 0:
        i = max(range(len(given)), key=lambda k: (given[k], -k))
        cut = min(over, given[i] - floor)
        given[i] -= cut
        over -= cut
    return given


def _hand_on_surplus(given: list[int], requests: Sequence[Request], floor: int) -> list[int]:
    """Tokens an artifact does not need go to artifacts over budget: first within its own entry,
    then to entries that share surplus; high priority first, by deficit within a priority."""
    out = list(given)
    spare: dict[str, int] = {}
    for i, r in enumerate(requests):
        need = max(floor, r.need)
        if need < out[i]:
            spare[r.group] = spare.get(r.group, 0) + out[i] - need
            out[i] = need
    for group in sorted(spare):  # within an entry: its sum stays within its budget
        members = [i for i, r in enumerate(requests) if r.group == group]
        spare[group] = _give(out, requests, members, spare[group])
    sharers = [i for i, r in enumerate(requests) if r.shares]
    _give(out, requests, sharers, sum(spare.values()))
    return out


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
