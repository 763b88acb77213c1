"""The one tokenizer seam: tiktoken encodings loaded once, and an honest offline fallback."""
from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

DEFAULT_ENCODING = "o200k_base"
ENCODINGS = ("o200k_base", "cl100k_base")
HEURISTIC = "heuristic"
HEURISTIC_WARNING = "[WARNING: Token count estimated via heuristic due to tokenizer failure]"

# Runs without whitespace longer than this are encoded in pieces: BPE is superlinear in the
# length of one pre-token, and older tiktoken releases take minutes on a 1 MB base64 line.
# A split can move the count by a token per piece, and only pathological text has such runs.
_RUN_PIECE = 8192
_LONG_RUN = re.compile(r"\S{%d,}" % _RUN_PIECE)


class Encoded(Protocol):
    """One text, encoded once; answers every question the tiers ask about it."""

    @property
    def text(self) -> str: ...

    @property
    def count(self) -> int: ...

    def head(self, n: int) -> str:
        """The longest prefix of the text made of whole characters within the first n tokens."""

    def tokens_within(self, nchars: int) -> int:
        """How many tokens lie wholly inside text[:nchars]."""

    def segment_counts(self, segments: Sequence[str]) -> list[int]:
        """Tokens per segment of the text (segments joined are the text), each token counted in
        the segment where it starts; they sum to count."""


class Tokenizer(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def exact(self) -> bool: ...

    def count(self, text: str) -> int: ...

    def encode(self, text: str) -> Encoded: ...


@dataclass
class _TiktokenEncoded:
    text: str
    tokens: Sequence[int]
    decode_bytes: Callable[[Sequence[int]], bytes]
    token_bytes: Callable[[Sequence[int]], list[bytes]]
    lengths: Callable[[], Sequence[int] | None] = lambda: None  # byte length of each token id
    _ends: list[int] | None = field(default=None, repr=False)

    @property
    def count(self) -> int:
        return len(self.tokens)

    def head(self, n: int) -> str:
        return self.decode_bytes(self.tokens[: max(n, 0)]).decode("utf-8", "ignore")

    def _byte_ends(self, nbytes: int | None = None) -> list[int]:
        """Byte end of every token, computed in chunks only as far as nbytes (None: all)."""
        if self._ends is None:
            self._ends = []
        ends = self._ends
        while len(ends) < len(self.tokens) and (nbytes is None or not ends or ends[-1] <= nbytes):
            chunk = self.tokens[len(ends) : len(ends) + 65536]
            table = self.lengths()  # built on first need, not for every encode
            sizes = (map(table.__getitem__, chunk) if table is not None
                     else map(len, self.token_bytes(chunk)))
            start = ends[-1] if ends else 0
            ends.extend(itertools.islice(itertools.accumulate(sizes, initial=start), 1, None))
        return ends

    def tokens_within(self, nchars: int) -> int:
        nbytes = len(self.text[:nchars].encode("utf-8", "surrogatepass"))
        return bisect.bisect_right(self._byte_ends(nbytes), nbytes)

    def segment_counts(self, segments: Sequence[str]) -> list[int]:
        ends = self._byte_ends()
        counts, start, first = [], 0, 0
        for segment in segments:
            start += len(segment.encode("utf-8", "surrogatepass"))
            # tokens starting before `start`: those whose previous end is below it
            last = min(bisect.bisect_left(ends, start) + 1, len(ends)) if ends else 0
            counts.append(last - first)
            first = last
        return counts


@functools.lru_cache(maxsize=4)
def _token_lengths(enc: Any) -> list[int] | None:
    """Byte length of every token id of an encoding (None if tiktoken hides its ranks)."""
    ranks = getattr(enc, "_mergeable_ranks", None)
    if not isinstance(ranks, dict):
        return None
    table = [0] * (max(ranks.values()) + 1)
    for piece, rank in ranks.items():
        table[rank] = len(piece)
    return table


@dataclass(frozen=True)
class TiktokenTokenizer:
    """Exact counts under one tiktoken encoding; special-token text counts as plain text."""

    name: str
    _encoding: object = field(repr=False, compare=False)

    exact = True

    def _encode(self, text: str) -> list[int]:
        enc = self._encoding
        encode: Callable[[str], list[int]] = enc.encode_ordinary  # type: ignore[attr-defined]
        text = _scrub_surrogates(text)
        if not _has_long_run(text):
            return encode(text)
        tokens: list[int] = []
        pos = 0
        for match in _LONG_RUN.finditer(text):
            tokens += encode(text[pos : match.start()])
            run = match.group()
            for i in range(0, len(run), _RUN_PIECE):
                tokens += encode(run[i : i + _RUN_PIECE])
            pos = match.end()
        tokens += encode(text[pos:])
        return tokens

    def count(self, text: str) -> int:
        return len(self._encode(text))

    def encode(self, text: str) -> Encoded:
        enc = self._encoding
        return _TiktokenEncoded(
            text=text,
            tokens=self._encode(text),
            decode_bytes=enc.decode_bytes,  # type: ignore[attr-defined]
            token_bytes=enc.decode_tokens_bytes,  # type: ignore[attr-defined]
            lengths=functools.partial(_token_lengths, enc),
        )


@dataclass(frozen=True)
class _HeuristicEncoded:
    text: str

    @property
    def count(self) -> int:
        return math.ceil(len(self.text) / 4)

    def head(self, n: int) -> str:
        return self.text[: max(n, 0) * 4]

    def tokens_within(self, nchars: int) -> int:
        return min(nchars, len(self.text)) // 4

    def segment_counts(self, segments: Sequence[str]) -> list[int]:
        return [math.ceil(len(segment) / 4) for segment in segments]


@dataclass(frozen=True)
class HeuristicTokenizer:
    """ceil(characters / 4): used only when no encoding can be loaded, and always labelled."""

    reason: str
    name: str = HEURISTIC
    exact = False

    def count(self, text: str) -> int:
        return math.ceil(len(text) / 4)

    def encode(self, text: str) -> Encoded:
        return _HeuristicEncoded(text)


def _has_long_run(text: str) -> bool:
    # A cheap C-speed pre-check so ordinary text never pays for the regex scan.
    if len(text) < _RUN_PIECE:
        return False
    for start in range(0, len(text), _RUN_PIECE // 2):
        window = text[start : start + _RUN_PIECE // 2]
        if " " not in window and "\n" not in window and "\t" not in window:
            return _LONG_RUN.search(text) is not None
    return False


def _scrub_surrogates(text: str) -> str:
    # Lone surrogates (from JSON "\ud800" escapes) cannot be UTF-8 encoded; count them as U+FFFD.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


@functools.lru_cache(maxsize=None)
def _load(name: str) -> TiktokenTokenizer | HeuristicTokenizer:
    """Load an encoding once per process; on failure warn once and fall back."""
    try:
        import tiktoken

        return TiktokenTokenizer(name, tiktoken.get_encoding(name))
    except Exception as exc:  # network, corrupt cache, missing plugin: all mean "no encoding"
        reason = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
        print(
            f"ctxguard: warning: cannot load tiktoken encoding {name!r} ({reason}); token "
            "counts are estimated as characters/4. Point TIKTOKEN_CACHE_DIR at a folder "
            "holding the encoding files (see README, 'Offline use').",
            file=sys.stderr,
        )
        return HeuristicTokenizer(reason=reason)


def get_tokenizer(encoding: str | None = None) -> Tokenizer:
    """The tokenizer for an encoding name (default o200k_base), loaded once per process."""
    name = encoding or DEFAULT_ENCODING
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; choose one of {', '.join(ENCODINGS)}")
    return _load(name)
