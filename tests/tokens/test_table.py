"""The ranks cache's packed table (ctxguard.tokens.table) answers as tiktoken's dict of ranks
does, for every token of both encodings, and refuses a block that is not whole."""

from __future__ import annotations

import struct
import sys
from functools import cache

import pytest

from ctxguard.tokens import table
from ctxguard.tokens.load import tiktoken_encoding


@cache
def _both(name: str) -> tuple[dict[bytes, int], bytes]:
    ranks: dict[bytes, int] = tiktoken_encoding(name)._mergeable_ranks
    packed = table.pack(ranks)
    assert packed is not None
    return ranks, packed


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_every_token_is_found_at_its_rank_and_nothing_else_is(name: str) -> None:
    ranks, packed = _both(name)
    ranked = table.RankTable(packed)
    assert len(ranked) == len(ranks)
    assert all(ranked.get(token) == rank for token, rank in ranks.items())
    assert all(ranked.token(rank) == token for token, rank in ranks.items())
    assert ranked.to_dict() == ranks and list(ranked) == list(ranks)
    assert ranked.lengths() == [len(token) for token in ranks]
    assert list(ranked.items())[:300] == list(ranks.items())[:300]
    # Not tokens: longer than any, joined from two, the empty bytes; and not bytes at all.
    for other in [b"x" * 300, b"\xff\xfe\xfd\xfc", b"", b" the" + b"\x00\x01"]:
        assert other not in ranks
        assert ranked.get(other) is None and other not in ranked
        with pytest.raises(KeyError):
            ranked[other]
    assert "the" not in ranked and b" the" in ranked
    with pytest.raises(KeyError):
        ranked.token(len(ranks))


def test_a_block_damaged_cut_short_or_of_another_machine_is_refused() -> None:
    _, packed = _both("cl100k_base")
    head = struct.calcsize("=16s8sIII")
    damaged = bytearray(packed)
    damaged[head + 1000] ^= 0x01  # (one bit of the ends)
    other_order = packed[:16] + ("big" if sys.byteorder == "little" else "little").encode().ljust(8, b"\0")
    for bad in [packed[:-1], packed[: head + 10], packed[:10], b"", bytes(damaged), other_order + packed[24:]]:
        with pytest.raises(ValueError):
            table.RankTable(bad)


def test_only_ranks_listed_in_order_from_zero_are_packed() -> None:
    assert table.pack({b"a": 0, b"b": 1, b"ab": 2}) is not None
    assert table.pack({b"a": 1, b"b": 0}) is None
    assert table.pack({b"a": 0, b"b": 2}) is None
    tiny = table.RankTable(table.pack({b"a": 0, b"b": 1, b"ab": 2}) or b"")
    assert dict(tiny.items()) == {b"a": 0, b"b": 1, b"ab": 2} and tiny.get(b"ba") is None
