"""A report a kind renders for its reader (a JUnit XML run, a SARIF log): rows of text, each with
how early a cut takes it, made into a plan.

The raw text is not what a cut shows: a report's markup outweighs what a reviewer reads in it, so
its kind writes the facts as lines (the failing tests and their messages, the results and their
places, the counts) and the cut keeps the most telling of those. A run of rows a cut leaves out
is said in place, with how many of the report's items (failing testcases, results) it held; the
raw text is the record's full text, as for any cut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from ctxguard.plan import Plan, Unit
from ctxguard.tokens.base import Encoded, Tokenizer
from ctxguard.words import clip, plural


class Row(NamedTuple):
    """One line of a rendered report."""

    text: str  # the line, with its line break; or its start, which the next row goes on
    level: float  # how early a cut takes it, lowest first (ties in the report's order)
    must: bool = False  # tier 2 keeps it, or is not tier 2; a tier-3 cut takes it first
    anchor: int | None = None  # the row it is never shown without (a failure's test)
    item: bool = False  # one of the report's items, counted when a cut leaves it out
    tier2: bool = False  # tier 2 keeps it too, but a tier-3 cut takes it by its level alone
    clipped: int = 0  # characters its text leaves out of what it says (a message shortened)


def bare(items: str) -> Callable[[str], tuple[str, str]]:
    """A rendered report's cut that fits none of its `items` (a plural noun): the marker line."""
    return lambda marker: (marker + "\n", f"no {items} of the report fits the budget; only the marker is shown")


def shorten(text: str, limit: int) -> str:
    """The text (one line) cut to `limit` characters, with a count of the rest; no line break."""
    return clip(text, limit).rstrip("\n")


def plan(rows: Sequence[Row], encoded: Encoded, tokenizer: Tokenizer, items: str) -> Plan:
    """The rows as a plan: each row's cost counted; a row stands for its own tokens of the raw
    text (so a tier-3 marker counts as omitted all the raw text a cut does not show as such: the
    markup, the passing items counted only); a run left out says how many `items` (a noun:
    "failing testcase") and other lines it held."""
    texts = [row.text for row in rows]
    costed = tokenizer.encode_parts(texts)[1] if texts else []
    units = [
        Unit(
            row.text,
            cost,
            cost,
            (row.level, i),
            row.must,
            (row.anchor,) if row.anchor is not None else (),
            lines=row.text.count("\n"),
            clipped=row.clipped,
        )
        for i, (row, cost) in enumerate(zip(rows, costed))
    ]
    tier2 = [row.must or row.tier2 for row in rows] if any(row.tier2 for row in rows) else None
    run = _runs(rows)

    def gap(n: int, first: int) -> str:
        counted, others = run(n, first)
        said = [plural(counted, items)] if counted else []
        said += [plural(others, "other line" if counted else "line")] if others else []
        return f"... ({' and '.join(said) or plural(n, 'line')} omitted)\n"

    def says(n: int, first: int) -> tuple[tuple[str, int], ...]:
        counted, others = run(n, first)
        return ((items, counted),) * bool(counted) + (("line", others),) * bool(others) or (("line", n),)

    return Plan(units, encoded.count, gap=gap, says=says, tier2_must=tier2)


def _runs(rows: Sequence[Row]) -> Callable[[int, int], tuple[int, int]]:
    """Of a run of n lines from line `first` left out: its items, and its other lines."""
    ends = [-1] + [i for i, row in enumerate(rows) if row.text.endswith("\n")]  # per line, its last row

    def run(n: int, first: int) -> tuple[int, int]:
        last = min(first + n - 1, len(ends) - 1)  # (the packer asks of a run as wide as the text, too)
        rows_left = rows[ends[min(first - 1, last)] + 1 : ends[last] + 1]
        counted = sum(row.item for row in rows_left)
        return counted, len(rows_left) - counted

    return run
