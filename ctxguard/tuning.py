"""The garbage collector, tuned for a run: it makes millions of objects that live to its end
(units, token arrays, a JSON document's values) and few cycles, and CPython's default (the
youngest generation collected every 700 allocations) spent a third of a JSON run collecting them
(mypy's command line sets the same thresholds for the same reason)."""

from __future__ import annotations

import contextlib
import gc
import platform
import threading
from collections.abc import Iterator
from typing import Final

THRESHOLDS: Final = (200_000, 30, 30)
_CPYTHON: Final = platform.python_implementation() == "CPython"


class _Running:
    """The calls inside collecting_less, and the caller's thresholds before the first."""

    lock = threading.Lock()
    calls = 0
    before: tuple[int, int, int] = (700, 10, 10)


def tune_gc() -> None:
    """The command line's choice, for its whole process (the MCP server's too)."""
    if _CPYTHON:
        gc.set_threshold(*THRESHOLDS)


@contextlib.contextmanager
def collecting_less() -> Iterator[None]:
    """The library's calls (`compress_text`, `compress_file`): the same thresholds while any of
    them runs, in any thread, and the caller's own back when the last returns (a caller that set
    higher ones keeps them throughout)."""
    if not _CPYTHON:
        yield
        return
    with _Running.lock:
        if _Running.calls == 0:
            _Running.before = gc.get_threshold()
            if _Running.before[0] < THRESHOLDS[0]:
                gc.set_threshold(*THRESHOLDS)
        _Running.calls += 1
    try:
        yield
    finally:
        with _Running.lock:
            _Running.calls -= 1
            if _Running.calls == 0:
                gc.set_threshold(*_Running.before)
