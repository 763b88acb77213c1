"""The Python counter of small texts (ctxguard.tokens.small) gives tiktoken's own ids: on every
sample, on random text of many alphabets, and across its switch to the real encoding; over the
ranks as tiktoken's dict and as the ranks cache's packed table (ctxguard.tokens.table)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxguard.tokens import small, table
from ctxguard.tokens.load import tiktoken_encoding
from tests.conftest import SAMPLES

ENCODINGS = [(name, form) for name in ("o200k_base", "cl100k_base") for form in ("dict", "table")]


@cache
def _ranks(name: str, form: str) -> Mapping[bytes, int]:
    ranks: dict[bytes, int] = tiktoken_encoding(name)._mergeable_ranks
    if form == "dict":
        return ranks
    packed = table.pack(ranks)
    assert packed is not None
    return table.RankTable(packed)


@cache
def _pair(name: str, form: str) -> tuple[small.SmallFirst, object]:
    real = tiktoken_encoding(name)
    return small.SmallFirst(_ranks(name, form), real._pat_str, lambda: real), real


def _same(name: tuple[str, str], text: str) -> None:
    ours, real = _pair(*name)
    found = ours._small(text)
    if found is not None:  # (None: a piece over LONGEST bytes, which goes to the real encoding)
        assert found == real.encode_ordinary(text), text[:200]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ENCODINGS)
def test_every_sample_counts_as_tiktoken_counts_it(name: tuple[str, str]) -> None:
    files = [p for p in SAMPLES.rglob("*") if p.is_file()]
    assert len(files) > 20
    for path in files:
        _same(name, path.read_bytes().decode("utf-8", "replace"))


_ALPHABETS = [
    st.characters(codec="utf-8"),
    st.sampled_from(list(" \t\n\r\x0b\x0c\u00a0\u2028\u3000abcXYZ019_-'\"/\\.,:;!?()[]{}<>|=+*&^%$#@~`")),
    st.sampled_from(list("éüñçß数字日本語한국어кириллицаالعربية²³¼Ⅷ０１٣👍🏽\u200d🎉")),
    st.sampled_from(["'s", "'ll", "'VE", "don't", "<|endoftext|>", "\n\n", "    ", "1234567", "x.y", "//", "/*"]),
]


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.one_of(*(st.text(a, max_size=12) for a in _ALPHABETS[:3]), _ALPHABETS[3]), max_size=40))
def test_random_text_counts_as_tiktoken_counts_it(name: tuple[str, str], parts: list[str]) -> None:
    _same(name, "".join(parts))


@pytest.mark.parametrize("form", ["dict", "table"])
def test_the_real_encoding_answers_past_the_limit_or_a_long_piece(form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tiktoken_encoding("o200k_base")
    ranks = _ranks("o200k_base", form)
    built: list[int] = []

    def build() -> object:
        built.append(1)
        return real

    ours = small.SmallFirst(ranks, real._pat_str, build)
    monkeypatch.setattr(small, "LIMIT", 1000)
    text = "def total(items):\n    return sum(item.price for item in items)\n"
    assert ours.encode_ordinary(text) == real.encode_ordinary(text) and not built
    assert ours.decode_bytes(real.encode_ordinary(text)) == text.encode()
    while not built:  # the limit reached: tiktoken's encoding, built once, answers the rest
        assert ours.encode_ordinary(text) == real.encode_ordinary(text)
    assert ours.encode_ordinary(text * 50) == real.encode_ordinary(text * 50) and built == [1]
    fresh = small.SmallFirst(ranks, real._pat_str, lambda: real)
    long_piece = "z" * 5000  # one pre-token over LONGEST bytes: merged by tiktoken, not here
    assert fresh._small(long_piece) is None
    assert fresh.encode_ordinary(long_piece) == real.encode_ordinary(long_piece) and fresh._real is real
