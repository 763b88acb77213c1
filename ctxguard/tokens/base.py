"""What every tokenizer answers (the protocols the tiers and kinds ask), the encodings' names,
and the labelled estimate used only when no encoding can be loaded."""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import NamedTuple, Protocol

DEFAULT_ENCODING = "o200k_base"

ENCODINGS = ("o200k_base", "cl100k_base")

HEURISTIC = "heuristic"

HEURISTIC_WARNING = "[WARNING: Token count estimated via heuristic due to tokenizer failure]"


class Spans(NamedTuple):
    """A text cut into parts given by where each ends, not as strings: a plan holding its units
    as columns (JSON's keys, values and separators) joins them once, without a string a unit."""

    text: str
    ends: Sequence[int]  # (in characters, each part's end; the last is the text's length)


def spans_of(parts: Sequence[str] | Spans) -> Spans:
    """Parts as Spans: strings joined, and their ends."""
    return parts if isinstance(parts, Spans) else Spans("".join(parts), ends_of(parts))


def ends_of(parts: Sequence[str] | Spans) -> Sequence[int]:
    """Where each part ends (the text is not joined: a text's segment counts need only these)."""
    return parts.ends if isinstance(parts, Spans) else array("q", accumulate(map(len, parts)))


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

    def segment_counts(self, segments: Sequence[str] | Spans) -> list[int]:
        """Tokens per segment of the text (segments joined are the text); they sum to count.
        A token is counted in the segment where it starts, except that the tokens of white
        space ending one line and filling the blank lines after it count with that line."""

    def recount(self, text: str) -> int:
        """The exact count of another text, typically one made from this text's lines: the lines
        it shares with this text are counted from the one encode, only new ones are encoded."""

    def learn(self, other: Encoded) -> None:
        """Take in the segment counts of another encode by the same tokenizer (a rewritten form
        of this text), so that recounts of texts made from its lines are as cheap."""

    def remember(self, text: str, count: int) -> None:
        """Take count as the tokens of this very text (counted already) when it is recounted."""

    def forget_lines(self) -> None:
        """Let go of what is held per line of the text (its segments and the counts recounts
        look up), made again when asked: for a kind whose cuts rewrite the text (JSON), which
        never meets those lines again."""


class Tokenizer(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def exact(self) -> bool: ...

    def count(self, text: str) -> int: ...

    def encode(self, text: str) -> Encoded: ...

    def encode_parts(self, parts: Sequence[str] | Spans) -> tuple[Encoded, list[int]]:
        """The parts joined, encoded, and each part's tokens (as Encoded.segment_counts gives
        them): one encode where encode and segment_counts would encode some lines twice."""


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

    def segment_counts(self, segments: Sequence[str] | Spans) -> list[int]:
        ends = ends_of(segments)
        return [math.ceil((end - start) / 4) for start, end in zip([0, *ends], ends)]

    def recount(self, text: str) -> int:
        return math.ceil(len(text) / 4)

    def learn(self, other: Encoded) -> None:
        pass  # (counts come from lengths)

    def remember(self, text: str, count: int) -> None:
        pass

    def forget_lines(self) -> None:
        pass  # (nothing is held per line)


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

    def encode_parts(self, parts: Sequence[str] | Spans) -> tuple[Encoded, list[int]]:
        spans = spans_of(parts)
        encoded = _HeuristicEncoded(spans.text)
        return encoded, encoded.segment_counts(spans)


def warning_line(tokenizer: Tokenizer) -> str:
    """The line every content starts with when its tokens are only estimated (else nothing)."""
    return "" if tokenizer.exact else HEURISTIC_WARNING + "\n"
