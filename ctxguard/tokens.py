"""The one tokenizer seam: tiktoken encodings loaded once, and an honest offline fallback."""

from __future__ import annotations

import functools
import math
import os
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ctxguard.tiktoken_counts import TiktokenTokenizer as TiktokenTokenizer
from ctxguard.tiktoken_counts import clean_segments as clean_segments
from ctxguard.tiktoken_counts import exact_pieces as exact_pieces
from ctxguard.tiktoken_counts import last_clean_break as last_clean_break

DEFAULT_ENCODING = "o200k_base"
ENCODINGS = ("o200k_base", "cl100k_base")
HEURISTIC = "heuristic"
HEURISTIC_WARNING = "[WARNING: Token count estimated via heuristic due to tokenizer failure]"


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
        """Tokens per segment of the text (segments joined are the text); they sum to count.
        A token is counted in the segment where it starts, except that the tokens of white
        space ending one line and filling the blank lines after it count with that line."""

    def recount(self, text: str) -> int:
        """The exact count of another text, typically one made from this text's lines: the lines
        it shares with this text are counted from the one encode, only new ones are encoded."""

    def learn(self, other: Encoded) -> None:
        """Take in the segment counts of another encode by the same tokenizer (a rewritten form
        of this text), so that recounts of texts made from its lines are as cheap."""


class Tokenizer(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def exact(self) -> bool: ...

    def count(self, text: str) -> int: ...

    def encode(self, text: str) -> Encoded: ...


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

    def recount(self, text: str) -> int:
        return math.ceil(len(text) / 4)

    def learn(self, other: Encoded) -> None:
        pass  # (counts come from lengths)


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


# The official encoding files, shipped in the package under the names tiktoken gives them in its
# cache (the sha1 of their download URL); tiktoken checks each against its published sha256.
BUNDLED = Path(__file__).parent / "encodings"
_ENV_LOCK = threading.Lock()


@functools.cache
def _load(name: str) -> TiktokenTokenizer | HeuristicTokenizer:
    """Load an encoding once per process: from TIKTOKEN_CACHE_DIR (or tiktoken's download) when
    that is set, else, or when that fails, from the files shipped with ctxguard; when none can be
    loaded, warn once and estimate."""
    import tiktoken

    problems = []
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        try:
            return TiktokenTokenizer(name, tiktoken.get_encoding(name))
        except Exception as exc:  # network, corrupt cache, missing plugin: all mean "not there"
            problems.append(_reason(exc))
    try:
        return TiktokenTokenizer(name, _bundled(name))
    except Exception as exc:
        problems.append(_reason(exc))
        reason = "; ".join(problems)
        print(
            f"ctxguard: warning: cannot load tiktoken encoding {name!r} ({reason}); token "
            "counts are estimated as characters/4. Point TIKTOKEN_CACHE_DIR at a folder "
            "holding the encoding files (see README, 'Offline use').",
            file=sys.stderr,
        )
        return HeuristicTokenizer(reason=reason)


def _reason(exc: Exception) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"


# The shipped files, by encoding: tiktoken names a cached file by the sha1 of its download URL.
_BUNDLED_FILES = {
    "o200k_base": "fb374d419588a4632f3f557e76b4b70aebbca790",
    "cl100k_base": "9b5ad71b2ce5302211f9c61530b329a4922fc6a4",
}


def _bundled(name: str) -> Any:
    """The encoding of the files shipped with ctxguard, from the ranks cached by an earlier
    process when there are (ctxguard.ranks_cache), else as tiktoken reads the file."""
    from ctxguard import ranks_cache

    return ranks_cache.load(name, BUNDLED / _BUNDLED_FILES[name], lambda: _tiktoken_bundled(name))


def tiktoken_encoding(name: str) -> Any:
    """tiktoken's own `Encoding` for a name, read by tiktoken from the files shipped with
    ctxguard, never downloaded: for code that wants tiktoken itself (an independent count in the
    tests and benchmarks), not ctxguard's counting."""
    if name not in _BUNDLED_FILES:
        raise ValueError(f"unknown encoding {name!r}; choose one of {', '.join(ENCODINGS)}")
    return _tiktoken_bundled(name)


@functools.cache
def _tiktoken_bundled(name: str) -> Any:
    """The encoding read by tiktoken from the files shipped with ctxguard: tiktoken reads its
    cache folder from the environment, so it is pointed there for the one call (under a lock,
    and put back)."""
    import tiktoken

    with _ENV_LOCK:
        before = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(BUNDLED)
        try:
            return tiktoken.get_encoding(name)
        finally:
            if before is None:
                del os.environ["TIKTOKEN_CACHE_DIR"]
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = before


def warning_line(tokenizer: Tokenizer) -> str:
    """The line every content starts with when its tokens are only estimated (else nothing)."""
    return "" if tokenizer.exact else HEURISTIC_WARNING + "\n"


def get_tokenizer(encoding: str | None = None) -> Tokenizer:
    """The tokenizer for an encoding name (default o200k_base), loaded once per process."""
    name = encoding or DEFAULT_ENCODING
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; choose one of {', '.join(ENCODINGS)}")
    return _load(name)


__all__ = [
    "DEFAULT_ENCODING",
    "ENCODINGS",
    "Encoded",
    "HEURISTIC_WARNING",
    "HeuristicTokenizer",
    "TiktokenTokenizer",
    "Tokenizer",
    "warning_line",
    "clean_segments",
    "exact_pieces",
    "get_tokenizer",
    "last_clean_break",
    "tiktoken_encoding",
]
