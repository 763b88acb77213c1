"""Where a failure's text says it failed (ctxguard.kinds.frames), for every kind that reads one."""

from __future__ import annotations

import pytest

from ctxguard.kinds.frames import where_it_failed

_PYTHON = """\
Traceback (most recent call last):
  File "/usr/lib/python3.11/unittest/case.py", line 57, in testPartExecutor
    yield
  File "/ci/tests/test_recipes.py", line 40, in test_fill
    list(grouper(data, 3, incomplete="pad"))
  File "/ci/more_itertools/recipes.py", line 399, in grouper
    raise ValueError('Expected fill, strict, or ignore')
ValueError: Expected fill, strict, or ignore"""

_PYTEST = """\
self = <tests.test_more.WindowedTests testMethod=test_basic>
    def test_basic(self):
>       actual = list(mi.windowed(iterable, n))
tests/test_more.py:738:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
    def windowed(seq, n, fillvalue=None, step=1):
        if step < 1:
>           raise ValueError('step must be >= 1')
E           ValueError: step must be >= 1
more_itertools/more.py:846: ValueError"""


@pytest.mark.parametrize(
    ("text", "told"),
    [
        (_PYTHON, ['  File "/ci/more_itertools/recipes.py", line 399, in grouper', "    raise ValueError("]),
        (_PYTEST, [">           raise ValueError(", "more_itertools/more.py:846: ValueError"]),
        ("AssertionError: 1 != 2\nexpected 1, got 2", []),
        ('Traceback (most recent call last):\n  File "x.py", line 3, in <module>\nNameError: y', ['  File "x.py"']),
    ],
)
def test_the_lines_that_say_where_a_failure_happened(text: str, told: list[str]) -> None:
    """A Python traceback's innermost frame with its code under it (not the runner's frames
    above); pytest's last failing statement and its crash line; a frame with no code under it
    alone; a text with neither, none."""
    lines = text.splitlines()
    assert [lines[k][: len(start)] for k, start in zip(where_it_failed(lines), told)] == told
    assert len(where_it_failed(lines)) == len(told)
