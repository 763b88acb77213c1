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


def test_a_numbered_items_marker_is_read_back_from_its_end_as_its_line_would_match() -> None:
    """_marker_before reads back over the marker alone; the line from its start must match
    _MARKER whole, as a search for the line's start and a full match would say."""
    import itertools

    from ctxguard.kinds.markdown.prose import _MARKER, _marker_before

    pieces = ["", " ", "\t", "\n", "\r", "2", "10", "٣", "x", ".", ")", "- "]
    tried = 0
    for parts in itertools.product(pieces, repeat=4):
        text = "".join(parts)
        for end in range(len(text) + 1):
            expected = _MARKER.fullmatch(text, text.rfind("\n", 0, end) + 1, end) is not None
            assert _marker_before(text, end) == expected, (text, end)
            tried += expected
    assert tried > 1000
