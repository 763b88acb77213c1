"""A file's text as read is let go of once its secrets are redacted: a big artifact is not held
twice while it is cut."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

import pytest

import ctxguard.api as api


class _Read(str):
    """The text as read, which a weak reference can follow (a str cannot)."""


def test_the_text_as_read_is_let_go_of_before_the_cut_once_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "app.log"
    path.write_text("starting\nDB_PASSWORD=Zq8vN3kLp0aR7sWd\nERROR: boom\n" + "INFO ok\n" * 50)
    read: list[weakref.ref[_Read]] = []

    def reading(where: Any) -> api.Loaded:
        text = _Read(Path(where).read_text())
        read.append(weakref.ref(text))
        return api.Loaded(text)

    held_at_cut: list[bool] = []
    real = api.compress

    def compress(text: str, *args: Any, **kwargs: Any) -> Any:
        gc.collect()
        held_at_cut.append(read[0]() is not None)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(api, "read_artifact", reading)
    monkeypatch.setattr(api, "compress", compress)
    record = api.compress_file_record(path, 64)
    assert "[REDACTED:password]" in record.content and "Zq8vN3kLp0aR7sWd" not in record.content
    assert held_at_cut == [False]
