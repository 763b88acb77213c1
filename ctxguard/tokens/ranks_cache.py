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

import hashlib
import os
import threading
from collections.abc import Callable
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
    ranks of that very file when they are there; else built, and its ranks kept for next time."""
    try:
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
    except OSError:
        return build()
    path = cache_dir() / f"{name}-{digest[:32]}-{_FORMAT}.ranks"
    ranks = _read(path)
    if ranks is not None:
        spec = _spec(name, ranks)
        if spec is not None:
            return _small_first(spec)
    encoding = build()
    _write(path, getattr(encoding, "_mergeable_ranks", None))
    return encoding


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


def _spec(name: str, ranks: RankTable) -> dict[str, Any] | None:
    """What tiktoken's encoding `name` is made of (its pattern, special tokens), with these
    ranks instead of its file's; None for a name tiktoken does not define."""
    import tiktoken_ext.openai_public as public

    constructor = getattr(public, name, None)
    if constructor is None:
        return None
    with _LOCK:  # (the constructor reads the module's loader: swapped for the one call)
        original = public.load_tiktoken_bpe
        public.load_tiktoken_bpe = lambda *args, **kwargs: ranks
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
        return tiktoken.Encoding(**{**spec, "mergeable_ranks": ranks.to_dict()})

    try:
        from ctxguard.tokens.small import SmallFirst

        return SmallFirst(spec["mergeable_ranks"], spec["pat_str"], real)
    except ImportError:  # (no `regex` module: tiktoken itself does without it)
        return real()
