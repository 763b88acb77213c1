"""Where a sentence ends is found by matching its mark (the engine skips to each at C speed),
not by a lookbehind tried at every character: the same places."""

from __future__ import annotations

import re
from pathlib import Path

from ctxguard.kinds.markdown.prose import _SENTENCE

SAMPLES = Path(__file__).parents[2] / "samples"
LOOKBEHIND = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`*\[(\"'])")


def test_sentence_ends_are_where_the_lookbehind_form_finds_them() -> None:
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(SAMPLES.iterdir()) if p.is_file()]
    texts += ["A. B.  C!\n\nD?\t(e) f. 2. Third.. 'Q' x.[y] ?? Z\n", "...  A", ".", " . A", "1.\n2. Next. `x`"]
    found = 0
    for text in texts:
        ends = [(m.start(1), m.end()) for m in _SENTENCE.finditer(text)]
        assert ends == [(m.start(), m.end()) for m in LOOKBEHIND.finditer(text)], text[:60]
        found += len(ends)
    assert found > 50
