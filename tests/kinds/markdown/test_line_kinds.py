"""A line's kind is read by one match of the patterns' alternation: the same kind as trying
each pattern in turn."""

from __future__ import annotations

import itertools

from ctxguard.kinds.markdown import model

_ORDER = (("fence", model.FENCE), ("heading", model.HEADING), ("table", model._TABLE))
_ORDER += (("task", model._TASK), ("item", model._ITEM))


def _in_turn(line: str) -> str:
    if model.FENCE.match(line):
        return "fence"
    if not line.strip():
        return "blank"
    return next((name for name, pattern in _ORDER if pattern.match(line)), "prose")


def test_one_match_reads_the_kind_each_pattern_in_turn_reads() -> None:
    starts = ["", " ", "   ", "    ", "\t", "\xa0", "\x0c"]
    bodies = ["#", "# x", "####### a", "#\t", "|a|", "- [ ] t", "+ [X] y", "1. one", "2) two", "* item"]
    bodies += ["-", "- ", "---", "===", "```", "~~~", "``", "```py", "text.", "", "\u2028"]
    ends = ["", "\n", "\r\n", "\r", "\x0b", "\x85"]
    lines = ["".join(parts) for parts in itertools.product(starts, bodies, ends)]
    assert len(lines) == 7 * 21 * 6
    assert [model._kind(line) for line in lines] == [_in_turn(line) for line in lines]
