"""What a streaming pass keeps of a big file, for the cut (ctxguard.stream): each kind's sink
(ctxguard.kinds) takes the lines one at a time and offers the few its cut may show."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from ctxguard.kinds.base import Facts, Probe
from ctxguard.plan import MAX_LINE, Plan
from ctxguard.record import Listed
from ctxguard.tokens.base import Tokenizer
from ctxguard.words import clip, clipped

# A sink keeps its optional lines while those it kept hold fewer bytes than this many per token of
# the budget: enough to fill a big budget, and memory that grows with the budget, not the file.
ROOM_BYTES_PER_TOKEN = 8


class Offer(NamedTuple):
    """A line a sink offers the cut."""

    level: float  # its priority, lowest first
    rank: int  # among lines of one level
    text: str  # the line as shown (clipped to MAX_LINE)
    needs: tuple[int, ...] = ()  # the line numbers it is never shown without
    clipped: int = 0  # characters of the line its text leaves out


Offered = dict[int, Offer]  # line number -> what it offers


class Taker(Protocol):
    """What a scan hands each block of text, then each of its lines, to. (A class that names
    it as its base gets the defaults below: most read lines only.)"""

    def feed(self, text: str) -> None:
        """The pass's next block of text, whole (redacted), before its lines are taken: for a
        sink that reads the text itself (JSON's parser); by default, nothing."""
        return None

    def take(self, number: int, line: str) -> None: ...


class Sink(Taker, Protocol):
    """Takes the lines of one pass, keeps what the cut may show."""

    def instead(self) -> str | None:
        """After the pass: the kind to stream the file again as (JSON that did not parse: text),
        or None (the default): this sink cuts it."""
        return None

    def planned(self, tokens: int, tokenizer: Tokenizer) -> Plan | None:
        """The plan of what the sink kept, standing for the file's `tokens`, for a sink that
        cuts in its own syntax (JSON); None (the default): the cut packs the offered lines."""
        return None

    def close(self) -> None:
        """The pass is over (a diff's last file is complete)."""

    def offered(self, lines: int, mode: str) -> Offered:
        """The lines the cut may show, with their priorities and anchors."""

    def prefix(self, room: int, tokenizer: Tokenizer, mode: str) -> str:
        """What the cut shows before the lines, within room (a diff's file list)."""

    def probes(self) -> Sequence[Probe]:
        """The facts of the file the cut should keep, each once."""

    def notes(self) -> list[str]:
        """What the record says about what the pass could not keep."""

    def files(self) -> tuple[Listed, ...] | None:
        """The record's `files` (a diff's), or None."""

    def facts(self) -> Facts:
        """What the digest says of the file, from what the pass kept (a diff's changed files, a
        log's error lines with their counts); by default, nothing."""
        return Facts()


def clip_streamed(line: str) -> str:
    return clip(line, MAX_LINE, slack=64)  # (lines cut while streaming already carry their count)


def offer(
    out: Offered, number: int, level: float, rank: int, line: str, needs: tuple[int, ...] = (), shown: str | None = None
) -> None:
    """Offer a line at a level, unless it is offered at a lower one already: clipped to MAX_LINE,
    or as `shown` (said otherwise, as a line with its count of repeats)."""
    if number not in out or out[number][:2] > (level, rank):
        if shown is not None:
            out[number] = Offer(level, rank, shown, needs)
        else:
            out[number] = Offer(level, rank, clip_streamed(line), needs, clipped(line, MAX_LINE, slack=64))
