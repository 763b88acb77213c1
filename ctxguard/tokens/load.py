"""The encodings loaded once a process: from the files shipped with ctxguard (never downloaded
unless TIKTOKEN_CACHE_DIR says where), and an honest estimate when none can be loaded."""

from __future__ import annotations

import functools
import os
import sys
import threading
from pathlib import Path
from typing import Any

from ctxguard.tokens import ranks_cache
from ctxguard.tokens.base import DEFAULT_ENCODING, ENCODINGS, HeuristicTokenizer, Tokenizer
from ctxguard.tokens.exact import TiktokenTokenizer

# The official encoding files, shipped in the package under the names tiktoken gives them in its
# cache (the sha1 of their download URL); tiktoken checks each against its published sha256.
BUNDLED = Path(__file__).parent.parent / "encodings"
_ENV_LOCK = threading.Lock()


@functools.cache
def _load(name: str) -> TiktokenTokenizer | HeuristicTokenizer:
    """Load an encoding once per process: from TIKTOKEN_CACHE_DIR (or tiktoken's download) when
    that is set, else, or when that fails, from the files shipped with ctxguard; when none can be
    loaded, warn once and estimate. A file either folder holds is read through the ranks cache
    (ctxguard.tokens.ranks_cache): a second process loads its ranks, not the file again."""
    import tiktoken

    problems = []
    if folder := os.environ.get("TIKTOKEN_CACHE_DIR"):
        try:
            file = Path(folder) / _BUNDLED_FILES.get(name, "")
            if name in _BUNDLED_FILES and file.is_file():  # (its ranks cached as the shipped files' are)
                return TiktokenTokenizer(name, ranks_cache.load(name, file, lambda: tiktoken.get_encoding(name)))
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


def get_tokenizer(encoding: str | None = None) -> Tokenizer:
    """The tokenizer for an encoding name (default o200k_base), loaded once per process."""
    name = encoding or DEFAULT_ENCODING
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; choose one of {', '.join(ENCODINGS)}")
    return _load(name)
