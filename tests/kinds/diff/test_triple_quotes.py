"""The nearest triple quote above and below a changed Python line (is it inside a docstring?),
each line walked at most once: the same answers as a walk from each line, in any order asked."""

from __future__ import annotations

import random

from ctxguard.kinds.diff.plan import _Quotes

_Q = '"' * 3
_LINES = ["diff --git a/x.py b/x.py\n", "--- a/x.py\n", "+++ b/x.py\n", "@@ -1,3 +1,3 @@\n", " x = 1\n"]
_LINES += ["+y = 2\n", "-z = 3\n", f"+{_Q}\n", f" {_Q}Doc.\n", f"-{_Q}\n", f"    text{_Q}\n", f"+ r{_Q}raw\n", "\n"]


def _walked(lines: list[str], i: int, step: int) -> str | None:
    """The nearest line holding a triple quote, by a walk from line i (the hunk's new side)."""
    j = i + step
    while 0 <= j < len(lines) and lines[j][:1] in (" ", "+", "-"):
        if lines[j][0] != "-" and ("'" * 3 in lines[j] or _Q in lines[j]):
            return lines[j][1:].strip()
        j += step
    return None


def test_the_nearest_quotes_are_a_walks_from_each_line_in_any_order() -> None:
    rng = random.Random(7)
    for _ in range(300):
        lines = [rng.choice(_LINES) for _ in range(rng.randint(1, 40))]
        quotes = _Quotes(lines)
        asked = [(i, step) for i in range(len(lines)) for step in (1, -1)]
        rng.shuffle(asked)
        for i, step in asked:
            assert quotes.nearest(i, step) == _walked(lines, i, step), (lines, i, step)
