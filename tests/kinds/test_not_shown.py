"""not_shown: how many texts a content does not hold, all searched for in one scan (or one by
one without the automaton's wheel): the count a search for each gives."""

from __future__ import annotations

import random

import pytest

from ctxguard.kinds import base


@pytest.mark.parametrize("wheel", [True, False])
def test_not_shown_counts_what_a_search_for_each_text_counts(wheel: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not wheel:
        monkeypatch.setattr(base, "present", lambda words, text: None)
    rng = random.Random(4)
    pieces = ["error ", "R1", ": ", "src/a.py", "a.py", "ba", "\n", "é", "test_x", "[", "]"]
    for _ in range(300):
        content = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        wanted = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(0, 20))]
        assert base.not_shown(wanted, content) == sum(1 for text in wanted if text not in content)
