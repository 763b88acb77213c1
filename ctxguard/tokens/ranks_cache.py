"""An encoding's ranks kept in a form that loads fast, so a hook's start does not parse the 3 MB
`.tiktoken` file every time (about 120 ms of the encoding's 230 ms load): a packed table looked
up where it lies (ctxguard.tokens.table), read in about a millisecond where building the dict of
200,000 ranks costs 35-45 ms.

The cache is the user's (`$CTXGUARD_CACHE_DIR`, else `$XDG_CACHE_HOME/ctxguard`, else
`~/.cache/ctxguard`), one file per encoding file, named by that file's sha256 and the table's
format (a changed file is another name: a cache that does not match is never read); data only,
with its own checksum, written atomically, and skipped without a word when it cannot be read or
written. The encoding made from it is tiktoken's own (its pattern and special tokens come
from tiktoken's constructor, given the cached ranks instead of the parsed file), built only when a
text is too big to count in Python first (ctxguard.tokens.small).
"""

from __future__ import annotations

import binascii
import hashlib
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ctxguard.tokens.table import RankTable, pack

_LOCK = threading.Lock()
_FORMAT = "table1"  # (in the file's name: another format is another file)


def cache_dir() -> Path:
    """Where the ranks are kept."""
    if os.environ.get("CTXGUARD_CACHE_DIR"):
        return Path(os.environ["CTXGUARD_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ctxguard"


def load(name: str, source: Path, build: Callable[[], Any]) -> Any:
    """The encoding `build()` reads from `source` (a `.tiktoken` file), made from the cached
    ranks of that very file when they are there; else from the file, read here as tiktoken
    reads it (its sha256 checked against the one tiktoken's constructor names), its ranks kept
    for next time; else built."""
    try:
        data = source.read_bytes()
    except OSError:
        return build()
    digest = hashlib.sha256(data).hexdigest()
    path = cache_dir() / f"{name}-{digest[:32]}-{_FORMAT}.ranks"
    table = _read(path)
    if table is not None:
        spec = _spec(name, lambda *args, **kwargs: table)
        if spec is not None:
            return _small_first(spec)

    def parsed(_url: str, expected_hash: str | None = None) -> dict[bytes, int]:  # (load_tiktoken_bpe's call)
        return _parsed(data, digest, expected_hash)

    try:
        spec = _spec(name, parsed)
    except ValueError:
        spec = None  # (a file that is not the encoding's: tiktoken's own reading says why)
    if spec is None:
        encoding = build()
        _write(path, getattr(encoding, "_mergeable_ranks", None))
        return encoding
    _write(path, spec["mergeable_ranks"])
    return _small_first(spec)


def _parsed(data: bytes, digest: str, expected: str | None) -> dict[bytes, int]:
    """The ranks of a `.tiktoken` file's bytes (a token in base64 and its rank, a line each),
    as tiktoken's load_tiktoken_bpe reads them, when its sha256 is the one expected (the C
    decoder, a third faster than base64.b64decode a token; the file is the one named)."""
    if expected is not None and digest != expected:
        raise ValueError("the encoding file is not the one tiktoken names")
    words = data.split()
    if len(words) % 2:
        raise ValueError("an encoding file's line without its rank")
    try:
        return dict(zip(map(binascii.a2b_base64, words[::2]), map(int, words[1::2])))
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"an encoding file that does not parse: {exc}") from None


def _read(path: Path) -> RankTable | None:
    try:
        table = RankTable(path.read_bytes())
    except (OSError, ValueError):
        return None
    return table if len(table) else None


def _write(path: Path, ranks: Any) -> None:
    if not isinstance(ranks, dict):
        return  # (a tiktoken that keeps its ranks elsewhere: nothing to cache)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # (before packing: no folder, no work)
        data = pack(ranks)
        if data is None:
            return  # (ranks not listed 0..n-1: not a table's)
        temporary.write_bytes(data)
        os.replace(temporary, path)
    except OSError:
        try:
            temporary.unlink(missing_ok=True)
        except OSError:
            pass  # (no folder to write in: nothing was left behind)


def _spec(name: str, ranks: Callable[..., Mapping[bytes, int]]) -> dict[str, Any] | None:
    """What tiktoken's encoding `name` is made of (its pattern, special tokens), with the ranks
    `ranks` gives (called as tiktoken's load_tiktoken_bpe is, with the file's address and its
    expected sha256) instead of its file's; None for a name tiktoken does not define."""
    import tiktoken_ext.openai_public as public

    constructor = getattr(public, name, None)
    if constructor is None:
        return None
    with _LOCK:  # (the constructor reads the module's loader: swapped for the one call)
        original = public.load_tiktoken_bpe
        public.load_tiktoken_bpe = ranks
        try:
            spec: dict[str, Any] = constructor()
        finally:
            public.load_tiktoken_bpe = original
    return spec


def _small_first(spec: dict[str, Any]) -> Any:
    """The encoding that counts small texts in Python over the ranks and builds tiktoken's own
    only when more is asked (ctxguard.tokens.small); tiktoken's at once without `regex`."""
    import tiktoken

    def real() -> Any:
        ranks = spec["mergeable_ranks"]
        as_dict = ranks.to_dict() if isinstance(ranks, RankTable) else ranks
        return tiktoken.Encoding(**{**spec, "mergeable_ranks": as_dict})

    try:
        from ctxguard.tokens.small import SmallFirst

        return SmallFirst(spec["mergeable_ranks"], spec["pat_str"], real)
    except ImportError:  # (no `regex` module: tiktoken itself does without it)
        return real()
