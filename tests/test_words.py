"""White space squeezed a piece at a time is the same as squeezed at once."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxguard import words


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", "b", " ", "\n", "\t", "\x1c", "\u3000", "\xa0", "é"])), st.integers(1, 9))
def test_white_space_squeezed_a_piece_at_a_time_is_squeezed_at_once(text: str, piece: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(words, "_SQUEEZE_PIECE", piece)
        assert words.squeezed(text) == " ".join(text.split())
    assert words.squeezed(text) == " ".join(text.split())
