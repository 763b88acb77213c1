"""A log's scan searches patterns of a line's start as a line feed and the rest (the regex
engine tries a leading `^` at every character): the lines found are those the `^` form finds."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from ctxguard.kinds.log import model
from ctxguard.kinds.log.lines import ARROW, LETTER_LEVEL, LEVEL_HINT, LEVEL_WORDS
from ctxguard.literals import finder

SAMPLES = Path(__file__).parents[2] / "samples"
TRICKY = [
    "",
    "E  assert 1 == 2\n",
    ">\n\n  Expected: 1\n  Received: 2\n",  # `\s*` runs over line feeds: a match spans lines
    "ok\n\n\n   Expected 3\nExpected 4\n--> a.rs:3\n  --> b.rs:4:5\n",
    "no line feed at the end --> x:1",
    "::error file=a.py,line=3::boom\n==== FAILURES ====\n___ test ___\n--- x ---\n##[group]Run\n",
    "error[E0308]: mismatched types\n --> src/main.rs:4:5\nwarning: unused\n\t--> src/lib.rs:9:1\n-->x.rs:1\n",
    "E1128 09:30:01.123456 12 file.cc:3] boom\nW/Tag( 12): careful\n11-28 09:30:01.123  12  13 E Tag: x\n",
]


def _texts() -> list[str]:
    samples = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(SAMPLES.glob("*.log"))]
    return [model.strip_ansi(text) for text in samples + TRICKY]


def _by_caret(pattern: re.Pattern[str], text: str, starts: list[int]) -> set[int]:
    """The lines the `^` form finds, one hit per line, the search going on from the next line."""
    found, pos = set(), 0
    while (match := pattern.search(text, pos)) is not None:
        line = min(len(starts) - 2, _line_of(match.start(), starts))
        found.add(line)
        pos = starts[line + 1]
    return found


def _line_of(at: int, starts: list[int]) -> int:
    return next(i for i in range(len(starts) - 1, -1, -1) if starts[i] <= at)


@pytest.mark.parametrize("pattern", [LETTER_LEVEL, ARROW, model._AT_LINE_START])
def test_a_pattern_of_a_line_start_finds_the_lines_its_caret_form_finds(pattern: re.Pattern[str]) -> None:
    hits = 0
    for text in _texts():
        starts = list(itertools.accumulate(map(len, text.splitlines(keepends=True)), initial=0))
        if len(starts) < 2:
            continue
        expected = _by_caret(pattern, text, starts)
        found = model.lines_at(model.after_break(pattern), text, starts, after=1, first=pattern.match(text) is not None)
        assert found == expected, text[:80]
        hits += len(found)
    assert hits >= 4  # (the samples and the tricky texts hold such lines)


def test_the_level_words_are_the_lines_the_level_hint_finds() -> None:
    for text in _texts():
        starts = list(itertools.accumulate(map(len, text.splitlines(keepends=True)), initial=0))
        words = {_line_of(at, starts) for at in finder(LEVEL_WORDS)(text)}
        assert words == model.lines_at(LEVEL_HINT, text, starts)
