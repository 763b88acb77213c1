"""not_shown: how many texts a content does not hold, searched for one by one and, once many
were missed, the rest in one scan (ctxguard.literals.held): the count a search for each gives."""

from __future__ import annotations

import random

import pytest

from ctxguard import literals
from ctxguard.kinds import base

SCANS = [(-1, 0, True), (0, 5, True), (64, 256, True), (-1, 0, False)]  # (scans first, together, the wheel)


@pytest.mark.parametrize(("misses", "together", "wheel"), SCANS)
def test_not_shown_counts_what_a_search_for_each_text_counts(
    misses: int, together: int, wheel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(literals, "SCANS_FIRST", misses)
    monkeypatch.setattr(literals, "TOGETHER", together)
    if not wheel:
        monkeypatch.setattr(literals, "present", lambda words, text: None)
    rng = random.Random(4)
    pieces = ["error ", "R1", ": ", "src/a.py", "a.py", "ba", "\n", "é", "test_x", "[", "]"]
    for _ in range(300):
        content = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        wanted = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(0, 20))]
        assert base.not_shown(wanted, content) == sum(1 for text in wanted if text not in content)
