"""The bundle's size, in one place: the budgets that keep the bundle *as written* (its fields,
JSON escaping, file lists, the digest and the contents, counted exactly) within total_budget.

A fixed point: the written size depends on the records, the records on the budgets, and the
budgets on what is reserved for the written part. The reserve starts at nothing and grows by
what the written bundle is over; while an artifact is cut below its own budget and room is left,
it shrinks again, between a reserve that fit and the greatest one known to be over. When the
bundle's fixed part alone is over the total, a diff record lists fewer files and then the digest
gives fewer rows (the rest counted); when nothing is left to shorten, the result is over and the
command refuses to write it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ctxguard import digest
from ctxguard.budget import allocate, too_small
from ctxguard.bundle.model import Chunk
from ctxguard.bundle.write import Written, assemble
from ctxguard.options import Format
from ctxguard.pipeline import Result, Run
from ctxguard.record import Record

TRIES = 16


def sized(run: Run, *, fmt: Format, task: str | None = None, chunk: Chunk | None = None) -> tuple[Result, Written]:
    """The records at the budgets whose bundle, written in fmt, keeps to total_budget (or the
    best that could be had), and that bundle as written."""
    config = run.config
    last: list[Written] = []

    def measure(result: Result) -> int:
        last[:] = [assemble(result, fmt=fmt, total_budget=config.total_budget, tokenizer=run.tokenizer,
                            window=config.context_window, task=task, chunk=chunk)]  # fmt: skip
        return last[0].tokens

    result = fit(run, measure if config.total_budget is not None else None)
    if not last or last[0].source_records is not result.records:
        measure(result)
    return result, last[0]


def fit(run: Run, written: Callable[[Result], int] | None) -> Result:  # noqa: C901 (one search)
    """The records at the budgets allocated within the total, the reserve for the written bundle
    searched with `written` (the written size of a result); None: no total to keep to."""
    config = run.config
    # A digest of at most a third of the total: fewer rows (the rest counted) when it would be more.
    rows = digest.MAX_ERRORS
    reserved = run.reserve(rows)
    third = math.floor(config.total_budget * config.margin) // 3 if config.total_budget is not None else None
    while third is not None and reserved > third and rows > 1:
        rows //= 2
        reserved = run.reserve(rows)
    requests, floor = run.requests, run.floor
    bundle_part = 0  # reserved for the written bundle's own fields, escaping and lists
    listed: int | None = None  # files listed per diff record, once the lists must shrink to fit
    best: tuple[int, list[Record], str, int] | None = None  # the least reserve that fit, its records
    over_at: int | None = None  # the greatest reserve known to leave the bundle over the total
    records: list[Record] = []
    text, used = "", 0
    for _ in range(TRIES):
        budgets = allocate(requests, config.total_budget, config.margin, reserved + bundle_part, floor)
        records = run.records(budgets, listed)
        text, used = run.digest(records, rows)
        if used > reserved:  # the real digest outgrew its reserve: again, with more room
            reserved = used + 16
            continue
        if written is None or config.total_budget is None:
            break
        limit = math.floor(config.total_budget * config.margin)
        over = written(run.result(records, text, used, reserved)) - limit
        if over <= 0:
            best = (bundle_part, records, text, used)
            # Room left while an artifact is cut below its budget: reserve less, between this
            # reserve and the greatest one known to be over.
            starved = any(
                r.tier > 1 and b < min(a.budget, run.needs[i])
                for i, (r, a, b) in enumerate(zip(records, run.artifacts, budgets))
            )
            if not starved or -over <= max(16, limit // 100):
                break
            lower = bundle_part + over * 9 // 8 if over_at is None else (over_at + bundle_part) // 2
            if lower >= bundle_part or (over_at is not None and lower <= over_at) or lower < 0:
                break
            bundle_part = lower
            continue
        over_at = bundle_part
        if best is not None:  # between a reserve that fit and this one: halve the interval
            halfway = (over_at + best[0] + 1) // 2
            if halfway >= best[0]:
                break
            bundle_part = halfway
            continue
        # JSON escaping grows with the content, so reserve a little more than the excess.
        grown = bundle_part + over + max(16, over // 8)
        if too_small(len(requests), config.total_budget, config.margin, reserved + grown, floor):
            # The bundle's fixed part alone is over the total: list fewer files per record (the
            # rest counted: files_not_listed), then give the digest fewer rows (the rest counted).
            longest = max((len(r.files or ()) for r in records), default=0)
            if longest > 0:
                listed = longest // 2
                continue
            if rows > 1:
                rows //= 2
                reserved = run.reserve(rows)
                continue
            break  # nothing left to shorten: the command refuses to write an over-total bundle
        bundle_part = grown
    if best is not None and best[1] is not records:  # (the last try was over: the best fit stands)
        _, records, text, used = best
    return run.result(records, text, used, reserved)
