"""The library's calls collect less often while they run and leave the caller's collector as
they found it (the command line tunes its whole process)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from ctxguard import compress_text
from ctxguard.tuning import THRESHOLDS, collecting_less


@pytest.fixture(autouse=True)
def _defaults() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


def test_a_call_collects_less_and_gives_the_callers_settings_back() -> None:
    with collecting_less():
        assert gc.get_threshold() == THRESHOLDS
        with collecting_less():  # (nested: still tuned, nothing restored early)
            pass
        assert gc.get_threshold() == THRESHOLDS
    assert gc.get_threshold() == (700, 10, 10)
    gc.set_threshold(500_000, 50, 50)  # (a caller that chose more keeps it)
    with collecting_less():
        assert gc.get_threshold() == (500_000, 50, 50)
    assert gc.get_threshold() == (500_000, 50, 50)


def test_overlapping_calls_in_threads_restore_the_callers_settings_once_all_return() -> None:
    inside, release = threading.Barrier(3), threading.Event()

    def call() -> None:
        with collecting_less():
            inside.wait()
            release.wait(10)

    threads = [threading.Thread(target=call) for _ in range(2)]
    for thread in threads:
        thread.start()
    inside.wait()
    assert gc.get_threshold() == THRESHOLDS
    release.set()
    for thread in threads:
        thread.join()
    assert gc.get_threshold() == (700, 10, 10)


def test_compress_text_leaves_the_collector_as_it_found_it() -> None:
    compress_text("ERROR boom\n" * 2000, 100, name="x.log")
    assert gc.get_threshold() == (700, 10, 10)
