"""An encoding's ranks as one block of bytes that is looked up where it lies: a hook counts a few
hundred distinct pieces, and building the 200,000-entry dict of bytes to ranks (as unpickling or
unmarshalling one does) costs it more than all its counting.

The block: a header (a mark, the byte order, the number of ranks, the number of slots, a CRC-32
of the rest: a damaged block is never read), then every token's end in the tokens' bytes (by
rank), then an open-addressed hash table of slots (rank + 1, 0 for none; a token's slot found
from the CRC-32 of its bytes, the next free one on a collision), then the tokens' bytes joined
in rank order. Only ranks 0..n-1 in order are kept this way, as tiktoken's files list them
(`pack` returns None for others).
"""

from __future__ import annotations

import struct
import sys
import zlib
from array import array
from collections.abc import Iterator, Mapping
from itertools import count

_MARK = b"ctxguard-ranks-1"
_HEAD = struct.Struct("=16s8sIII")  # mark, byte order, ranks, slots, CRC-32 of what follows
_WIDTH = struct.calcsize("I")  # (an end's and a slot's bytes: array's and memoryview's "I")


class RankTable(Mapping[bytes, int]):
    """A token's bytes -> its rank, read from a packed block (see the module's text); and a
    rank's bytes (`token`)."""

    def __init__(self, data: bytes) -> None:
        try:
            mark, order, n, slots, check = _HEAD.unpack_from(data)
        except struct.error:
            raise ValueError("not a rank table") from None
        if mark != _MARK or order.rstrip(b"\0") != sys.byteorder.encode() or slots & (slots - 1):
            raise ValueError("not a rank table of this machine")
        view = memoryview(data)
        start = _HEAD.size
        if len(data) < start + _WIDTH * (n + 1 + slots) or zlib.crc32(view[start:]) != check:
            raise ValueError("a rank table damaged or cut short")
        self._ends = view[start : start + _WIDTH * (n + 1)].cast("I")  # (ends[0] is 0)
        start += _WIDTH * (n + 1)
        self._slots = view[start : start + _WIDTH * slots].cast("I")
        start += _WIDTH * slots
        self._bytes = data[start:]
        if len(self._ends) != n + 1 or len(self._slots) != slots or len(self._bytes) != self._ends[n]:
            raise ValueError("a rank table damaged or cut short")
        self._n: int = n
        self._mask = slots - 1

    def get(self, key: bytes, default: int | None = None) -> int | None:  # type: ignore[override]
        slots, ends, tokens, mask = self._slots, self._ends, self._bytes, self._mask
        at = zlib.crc32(key) & mask
        while True:
            rank: int = slots[at] - 1
            if rank < 0:
                return default
            if tokens[ends[rank] : ends[rank + 1]] == key:
                return rank
            at = (at + 1) & mask

    def __getitem__(self, key: bytes) -> int:
        rank: int | None = self.get(key)
        if rank is None:
            raise KeyError(key)
        return rank

    def __contains__(self, key: object) -> bool:
        return isinstance(key, bytes) and self.get(key) is not None

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[bytes]:
        ends, tokens = self._ends, self._bytes
        return (tokens[ends[rank] : ends[rank + 1]] for rank in range(self._n))

    def items(self) -> Iterator[tuple[bytes, int]]:  # type: ignore[override]
        return zip(self, count())

    def values(self) -> range:  # type: ignore[override]
        return range(self._n)

    def token(self, rank: int) -> bytes:
        """The bytes of the token of this rank."""
        if not 0 <= rank < self._n:
            raise KeyError(rank)
        return self._bytes[self._ends[rank] : self._ends[rank + 1]]

    def lengths(self) -> list[int]:
        """Every token's length in bytes, by rank."""
        ends = self._ends.tolist()
        return [b - a for a, b in zip(ends, ends[1:])]

    def to_dict(self) -> dict[bytes, int]:
        """The ranks as the dict tiktoken's encoding is built from."""
        ends, tokens = self._ends.tolist(), self._bytes
        return dict(zip([tokens[a:b] for a, b in zip(ends, ends[1:])], count()))


def pack(ranks: Mapping[bytes, int]) -> bytes | None:
    """The block a RankTable reads, for ranks that are 0..n-1 in order; else None."""
    if not all(map(int.__eq__, ranks.values(), count())):
        return None
    n = len(ranks)
    slots = 1 << max(1, (2 * n).bit_length())  # (under half full: short probes)
    mask = slots - 1
    table = [0] * slots
    ends = [0]
    for rank, token in enumerate(ranks):
        ends.append(ends[-1] + len(token))
        at = zlib.crc32(token) & mask
        while table[at]:
            at = (at + 1) & mask
        table[at] = rank + 1
    body = b"".join((_array(ends), _array(table), b"".join(ranks)))
    return _HEAD.pack(_MARK, sys.byteorder.encode(), n, slots, zlib.crc32(body)) + body


def _array(values: list[int]) -> bytes:
    return array("I", values).tobytes()
