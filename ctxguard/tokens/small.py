"""Exact token ids of small texts without building tiktoken's encoding: a hook's commit is a few
kilobytes, and tiktoken's constructor (which builds three tables the size of the encoding's
200,000 ranks) costs more than counting them in Python does.

`SmallFirst` stands where tiktoken's `Encoding` would (the methods ctxguard.tokens.exact calls:
`encode_ordinary`, `decode_bytes`, `decode_tokens_bytes`, `_mergeable_ranks`). It splits a text
with the encoding's own pattern (the `regex` module, as tiktoken's own Python code does) and
merges each piece by tiktoken's rule: the adjacent pair of lowest rank first, the leftmost of
equal ranks, until no pair is a token; the ids are the ranks. Its answers are tiktoken's, checked
by tests/tokens/test_small.py on every sample and random text and by `python bench/small_counter.py`
on the dev corpus and the needle cases, for both encodings.

Which path answers is decided before any work, by length: once a process has sent LIMIT
characters through it (or one piece is longer than LONGEST bytes: BPE in Python grows with the
square of a piece), the real encoding is built and answers from then on. Either answers alike.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ctxguard.tokens.table import RankTable

LIMIT: Final = 256 * 1024  # characters counted here in one process, then tiktoken's encoding
LONGEST: Final = 256  # bytes of one piece merged here at most


class SmallFirst:
    """An encoding's ids from its ranks in Python for the first LIMIT characters, then from the
    real encoding (`build()`, made once, on demand)."""

    def __init__(self, ranks: Mapping[bytes, int], pattern: str, build: Callable[[], Any]) -> None:
        import regex

        self._mergeable_ranks = ranks  # (read by ctxguard.tokens.exact for each token's bytes)
        self._pat_str = pattern  # (and its pattern, as tiktoken's encoding holds it)
        self._split = regex.compile(pattern).findall
        self._build = build
        self._real: Any = None
        self._lock = threading.Lock()
        self._spent = 0
        self._pieces: dict[str, tuple[int, ...]] = {}  # a piece's ids, once merged
        self._decoder: Callable[[int], bytes] | None = None

    @property
    def real(self) -> Any:
        """tiktoken's encoding, built the first time it is needed."""
        if self._real is None:
            with self._lock:
                if self._real is None:
                    self._real = self._build()
        return self._real

    @property
    def _core_bpe(self) -> Any:
        """What ctxguard.tokens.exact calls for many segments at once: once the real encoding is
        built, its core (no wrapper per call), before that this object."""
        return self._real._core_bpe if self._real is not None else self

    def encode_ordinary(self, text: str) -> list[int]:
        if self._real is None and self._spent + len(text) <= LIMIT:
            found = self._small(text)
            if found is not None:
                self._spent += len(text)
                return found
            self._spent = LIMIT + 1  # (a long piece: the real encoding from now on)
        ids: list[int] = self.real.encode_ordinary(text)
        return ids

    def _small(self, text: str) -> list[int] | None:
        ids: list[int] = []
        known, ranks = self._pieces, self._mergeable_ranks
        for piece in self._split(text):
            found = known.get(piece)
            if found is None:
                data = piece.encode("utf-8")
                rank = ranks.get(data)
                if rank is not None:
                    found = (rank,)
                elif len(data) > LONGEST:
                    return None
                else:
                    found = merge(data, ranks)
                known[piece] = found
            ids.extend(found)
        return ids

    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        return b"".join(self.decode_tokens_bytes(tokens))

    def decode_tokens_bytes(self, tokens: Sequence[int]) -> list[bytes]:
        if self._real is not None:
            return list(self._real.decode_tokens_bytes(tokens))
        if self._decoder is None:
            ranks = self._mergeable_ranks
            if isinstance(ranks, RankTable):
                self._decoder = ranks.token
            else:
                self._decoder = {rank: data for data, rank in ranks.items()}.__getitem__
        return list(map(self._decoder, tokens))


def merge(piece: bytes, ranks: Mapping[bytes, int]) -> tuple[int, ...]:
    """tiktoken's byte-pair merge of one piece: the adjacent pair whose joined bytes have the
    lowest rank is joined first (the leftmost of equal ranks), until no pair is a token."""
    parts = [piece[i : i + 1] for i in range(len(piece))]
    get = ranks.get
    while len(parts) > 1:
        best, at = -1, -1
        for i in range(len(parts) - 1):
            rank = get(parts[i] + parts[i + 1])
            if rank is not None and (best < 0 or rank < best):
                best, at = rank, i
        if at < 0:
            break
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    return tuple(ranks[part] for part in parts)
