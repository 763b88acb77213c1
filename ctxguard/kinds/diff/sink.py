"""A big diff's streaming sink: every file's path and +/- counts, the file and hunk headers, the
added or removed definitions and error lines, the first changed lines of each file, and, while
what it keeps is within what the budget could show, the other changed and context lines too."""

from __future__ import annotations

from dataclasses import dataclass

from ctxguard.kinds.base import Facts, Probe
from ctxguard.kinds.definitions import definition_name
from ctxguard.kinds.diff.lines import DiffReader, error_message, short_commit
from ctxguard.kinds.diff.model import FileStat
from ctxguard.kinds.diff.plan import ASKED, TURN, file_listing, turn_of
from ctxguard.kinds.sink import ROOM_BYTES_PER_TOKEN, Offered, Sink, offer
from ctxguard.plan import shown_listing
from ctxguard.record import Listed
from ctxguard.tokens.base import Tokenizer
from ctxguard.words import mentions

MAX_OFFERED = 100_000  # diff lines kept as candidates for the cut
MAX_FILES = 200_000  # diff files whose stats are kept
MAX_SURE = 4 * MAX_OFFERED  # headers and lines naming the task kept at most, past the other caps
CHANGED_PER_FILE = 30  # changed lines of each diff file kept as candidates, and more within ROOM_BYTES_PER_TOKEN


@dataclass
class _Count:
    path: str
    added: int = 0
    removed: int = 0
    status: str = "modified"


class DiffSink(Sink):
    """Diffs: file stats and headers, definitions and error lines, the first changes of each file."""

    def __init__(self, budget: int = 0, task: frozenset[str] = frozenset()) -> None:
        self.room = budget * ROOM_BYTES_PER_TOKEN  # bytes of lines a big budget could show
        self.task = task  # a changed line naming the task's words is kept, as the plan asks for it
        self.kept = 0
        self.sure = 0  # headers and lines naming the task kept
        self.stats: list[FileStat] = []
        self.more_files = 0
        self.out: Offered = {}
        self.found: dict[Probe, None] = {}
        self.reader = DiffReader(context_definitions=False)
        self.changed = 0
        self.stat: _Count | None = None
        self.header: tuple[int, ...] = ()  # the current file's `diff --git` line, and hunk header
        self.hunk: tuple[int, ...] = ()
        self.commit: tuple[int, ...] = ()  # the current commit's line (`git log -p`)
        self.turns: dict[float, int] = {}  # the file's definitions and errors: turns taken, per level
        self.before: tuple[int, float] | None = None  # the last definition or error line: (number, level)

    def _keep(
        self, number: int, level: float, line: str, needs: tuple[int, ...], rank: int | None = None, sure: bool = False
    ) -> None:
        # A line whose file or hunk header was not kept (the cap) is not kept either. `sure`: a
        # header or a line naming the task, kept past the cap up to MAX_SURE lines.
        if sure:
            room = self.sure < MAX_SURE
            self.sure += room
        else:
            room = len(self.out) < MAX_OFFERED or self.kept < self.room
        if room and all(n in self.out for n in needs):
            offer(self.out, number, level, self.reader.index if rank is None else rank, line, needs)
            self.kept += len(line)

    def _probe(self, kind: str, value: str) -> None:
        if len(self.found) < MAX_OFFERED:
            self.found[Probe(kind, value)] = None

    def close(self) -> None:
        """The last file's stats are final: call after the pass."""
        if self.stat is not None:
            if len(self.stats) < MAX_FILES:
                s = self.stat
                self.stats.append(FileStat(s.path, s.added, s.removed, s.status))
            else:
                self.more_files += 1
        self.stat = None

    def take(self, number: int, line: str) -> None:

        kind, level = self.reader.read(line)
        needs, rank, sure = self.hunk, None, kind in ("file", "hunk", "header", "commit", "subject")
        if kind in ("commit", "subject"):
            needs = self._commit(kind, number)
            line = short_commit(line) if kind == "commit" else line
        elif kind == "file":
            self.close()
            self.stat, self.changed, self.turns = _Count(self.reader.path), 0, {}
            self._probe("path", self.reader.path)
            self.header, self.hunk, needs = (number,), (), ()
        elif kind == "hunk":
            self.hunk, needs = (*self.header, number), self.header
        elif kind == "header" and self.stat is not None:
            needs = self.header
            for start, status in (
                ("new file mode", "added"),
                ("deleted file mode", "deleted"),
                ("rename from", "renamed"),
                ("Binary files", "binary"),
            ):
                if line.startswith(start):
                    self.stat.status = status
        elif kind == "context":
            if self.kept >= self.room:
                return  # (beyond what the budget could show: never worth a place)
        elif kind in ("definition", "error", "change"):
            if self.stat is not None:
                if line.startswith("+"):
                    self.stat.added += 1
                else:
                    self.stat.removed += 1
            if kind == "definition":
                name = definition_name(line[1:])
                if name:
                    self._probe("definition", name)
            elif kind == "error" and line.startswith("+"):
                self._probe("error", error_message(line[1:]))
            elif kind == "change":
                if self.task and mentions(line, self.task):
                    level, sure = min(level, ASKED), True
                elif self.changed >= CHANGED_PER_FILE and self.kept >= self.room:
                    return
                self.changed += 1
            if kind in ("definition", "error"):  # by turns across files, as the plan ranks them
                together = self.before == (number - 1, level)
                self.before = (number, level)
                rank = turn_of(self.turns, level, together) * TURN + number
        self._keep(number, level, line, needs, rank, sure)

    def _commit(self, kind: str, number: int) -> tuple[int, ...]:
        """A commit's line of `git log -p` (the files after it are its own) or its subject (the
        two are partners: neither is shown without the other); what the line needs."""
        if kind == "commit":
            self.close()
            self.header, self.hunk, self.commit = (), (), (number,)
            return ()
        if self.commit and self.commit[0] in self.out:
            self.out[self.commit[0]] = self.out[self.commit[0]]._replace(needs=(number,))
        return self.commit

    def offered(self, lines: int, mode: str) -> Offered:
        if mode == "head":
            return {n: kept._replace(level=0.0, rank=n) for n, kept in self.out.items()}
        return self.out

    def probes(self) -> list[Probe]:
        return list(self.found)

    def notes(self) -> list[str]:
        if not self.more_files:
            return []
        return [f"{self.more_files} files beyond {MAX_FILES} are not in the file list"]

    def prefix(self, room: int, tokenizer: Tokenizer, mode: str) -> str:
        """The file list, with the share of the room the packer gives a plan's list."""
        if mode != "salient":
            return ""
        return shown_listing(lambda share: file_listing(self.stats, tokenizer, share), room, tokenizer.count)

    def files(self) -> tuple[Listed, ...] | None:
        return tuple(Listed(s.path, s.added, s.removed, s.status) for s in self.stats)

    def facts(self) -> Facts:
        return Facts(files=tuple(self.stats))
