"""Words the kinds share: a task's key words, plurals, a long line clipped, white space squeezed."""

from __future__ import annotations

import re
from collections.abc import Iterator

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_STOPWORDS = frozenset(
    """the and for with that this from into are was were will would should could have has had
    not but all any its our their there then than them they you your keep keeping preserve
    make sure each every only also such when what which while about over under more most less
    like just very some other these those been being does done can may might must""".split()
)


def task_words(task: str | None) -> frozenset[str]:
    """The key words of a task description, lower-cased, without filler."""
    if not task:
        return frozenset()
    return frozenset(w.lower() for w in _WORD.findall(task) if w.lower() not in _STOPWORDS)


def mentions(line: str, words: frozenset[str]) -> bool:
    """True if the line contains one of the task's key words (case-insensitive)."""
    if not words:
        return False
    lowered = line.lower()
    return any(word in lowered for word in words)


def clip(line: str, limit: int, slack: int = 0) -> str:
    """The line, ending in "\n", its text cut to `limit` characters (with a count of the rest)
    when it is longer than limit + slack. (A line that needs neither is the line itself, not a
    copy: a stream holds its lines and the cut's units at once.)"""
    if line.endswith("\n") and not line.endswith(("\r\n", "\n\n")) and len(line) <= limit + slack + 1:
        return line
    body = line.rstrip("\r\n")
    return cut_line(body, len(body), limit) if len(body) > limit + slack else body + "\n"


def clipped(line: str, limit: int, slack: int = 0) -> int:
    """The characters clip(line, limit, slack) leaves out: 0 when it cuts nothing."""
    length = len(line.rstrip("\r\n"))
    return length - limit if length > limit + slack else 0


def cut_line(start: str, length: int, limit: int) -> str:
    """A line of `length` characters, of which `start` holds at least the first `limit`, shown
    as those and the count of the rest."""
    return f"{start[:limit]}... ({length - limit} chars omitted)\n"


def plural(n: int, word: str) -> str:
    """'1 line', '2 lines'."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


_SQUEEZE_PIECE = 1 << 20  # characters squeezed at a time: a content's words are listed a piece at a time
_SPACE = re.compile(r"\s")


def squeezed(text: str) -> str:
    """text's words joined by single spaces, `" ".join(text.split())`, without a list of every
    word of a content of megabytes at once: a piece at a time, each cut after white space."""
    return " ".join(filter(None, (" ".join(piece.split()) for piece in pieces(text, _SQUEEZE_PIECE, _SPACE))))


def pieces(text: str, size: int, after: re.Pattern[str]) -> Iterator[str]:
    """text in pieces of about `size` characters, each cut just after the first match of
    `after` past its size (the last at the end): what a reader of a text of megabytes holds at
    once, where a piece's reading does not depend on the text beyond the cut."""
    start = 0
    while len(text) - start > size:
        found = after.search(text, start + size)
        if found is None:
            break
        yield text[start : found.end()]
        start = found.end()
    yield text[start:] if start else text
