"""Big files in bounded memory: one streaming pass, then a salient (or head) Tier 3 cut.

A log, text or diff file over STREAM_BYTES is never read whole. It is read in blocks of whole
lines (a line longer than a block arrives in pieces and is shown clipped); each block is
redacted and counted exactly: blocks end at a line break followed by a letter or digit, where
no token crosses, so the sum is the count of the whole file. One pass keeps only what the cut
can show, within fixed caps:

- log/text: the head, a ring of the last lines, the first occurrence of every error/warning
  template with its count, and the end of every traceback;
- diff: every file's path and +/- counts, the file and hunk headers, the added or removed
  definitions and error lines, and the first changed lines of each file.

Memory is bounded by those caps, not by the file; time is one decode, one redaction and one
encode per byte.
"""
from __future__ import annotations

import codecs
import re
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ctxguard import probes
from ctxguard.words import clip, cut_line
from ctxguard.kinds.diff.lines import DiffReader
from ctxguard.kinds.diff.model import FileStat
from ctxguard.kinds.diff.plan import file_listing
from ctxguard.kinds.log.lines import Lines, is_important, says, strip_ansi, template
from ctxguard.kinds.log.model import EDGE
from ctxguard.kinds.log.plan import EDGES, ENDS, ERROR, FIRST, LAST, MAX_LINE, REST, TRACE, occurrences, template_level
from ctxguard.options import Options, Tier3Mode
from ctxguard.packer import pack
from ctxguard.plan import Plan, Unit, filled, hole
from ctxguard.read import BinaryData
from ctxguard.record import Record
from ctxguard.redact import note, redact
from ctxguard.tiers import marker
from ctxguard.tokens import HEURISTIC_WARNING, Tokenizer, last_clean_break

STREAM_BYTES = 32 * 1024 * 1024  # files larger than this are streamed
BLOCK = 1 << 20  # bytes read at a time
TAIL = 2000  # last lines kept for the cut
MAX_TEMPLATES = 5000  # distinct error/warning templates tracked
MAX_OFFERED = 100_000  # diff lines kept as candidates for the cut
MAX_FILES = 200_000  # diff files whose stats are kept
CHANGED_PER_FILE = 30  # changed lines of each diff file kept as candidates
KINDS = ("log", "text", "diff")
# line number -> (priority, rank, text shown, the line numbers it is never shown without)
Offered = dict[int, tuple[float, int, str, tuple[int, ...]]]


class Taker(Protocol):
    """What a scan hands each line to."""

    def take(self, number: int, line: str) -> None: ...


class Sink(Taker, Protocol):
    """Takes the lines of one pass, keeps what the cut may show."""

    def offered(self, lines: int, mode: str) -> Offered: ...

    def probes(self) -> list[probes.Probe]: ...


@dataclass
class Scan:
    """What every pass knows: lines, exact tokens, what reading and redaction changed."""

    lines: int = 0
    tokens: int = 0
    replaced: int = 0
    redacted: dict[str, int] = field(default_factory=dict)


_SAFE_BYTES = re.compile(rb"(?<=[A-Za-z])(?=[0-9])")


def _blocks(path: Path) -> Iterator[bytes]:
    """Whole lines in blocks of about BLOCK bytes; a longer line comes in pieces. A NUL byte
    raises BinaryData: the file was taken for text from its first block only."""
    with path.open("rb") as handle:
        rest = b""
        offset = 0
        while True:
            chunk = handle.read(BLOCK)
            nul = chunk.find(b"\x00")
            if nul >= 0:
                raise BinaryData(offset + nul)
            offset += len(chunk)
            if not chunk:
                if rest:
                    yield rest
                return
            data = rest + chunk
            cut = last_clean_break(data)
            if cut < 0:
                if len(data) >= 16 * BLOCK:  # a huge line: cut where a letter meets a digit
                    safe = _SAFE_BYTES.search(data, len(data) - 8 * BLOCK)  # (tokens.exact_pieces)
                    if safe is None:
                        rest = data  # letters only: no exact place to cut, so none is made
                        continue
                    yield data[: safe.start()]
                    rest = data[safe.start():]
                else:
                    rest = data
                continue
            yield data[: cut + 1]
            rest = data[cut + 1 :]


def _whole(start: str, length: int) -> str:
    return start if length <= MAX_LINE else cut_line(start, length, MAX_LINE)


def scan(path: Path, tokenizer: Tokenizer, sink: Taker, secrets: bool = True) -> Scan:
    """The one pass: exact token count; every line (redacted, clipped) handed to the sink."""
    state = Scan()
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    partial: tuple[str, int] | None = None
    carry = ""  # an unterminated private-key block waits for its end in the next block
    for block in _blocks(path):
        text = carry + decoder.decode(block)
        carry = ""
        begin = text.rfind("-----BEGIN")
        if secrets and begin >= 0 and "-----END" not in text[begin:] and len(text) - begin < BLOCK:
            text, carry = text[:begin], text[begin:]
        state.replaced += text.count("\ufffd")
        if secrets:
            found = redact(text)
            text = found.text
            for kind, n in found.counts.items():
                state.redacted[kind] = state.redacted.get(kind, 0) + n
        state.tokens += tokenizer.count(text)
        for line in text.splitlines(keepends=True):
            if partial is not None or not line.endswith(("\n", "\r")):
                # A line longer than a block arrives in pieces: keep its start and its length.
                start, length = partial if partial is not None else ("", 0)
                partial = (start + line[: MAX_LINE + 1 - len(start)], length + len(line.rstrip("\r\n")))
                if not line.endswith(("\n", "\r")):
                    continue
                line = _whole(*partial)
                partial = None
            sink.take(state.lines, line)
            state.lines += 1
    if partial is not None:
        sink.take(state.lines, _whole(*partial))
        state.lines += 1
    if carry:  # never shown; counted
        state.tokens += tokenizer.count(carry)
        state.lines += carry.count("\n")
    return state


def _clip(line: str) -> str:
    return clip(line, MAX_LINE, slack=64)  # (lines cut while streaming already carry their count)


def _offer(out: Offered, number: int, level: float, rank: int, text: str, needs: tuple[int, ...] = ()) -> None:
    if number not in out or out[number][:2] > (level, rank):
        out[number] = (level, rank, text, needs)


@dataclass
class _Seen:
    """The first line of one error template, and how often the template occurs."""

    number: int
    text: str
    count: int = 1


class LogSink:
    """Logs and other text: head, tail, error templates, traceback ends."""

    def __init__(self, tokenizer: Tokenizer, head_budget: int = 0, says: Callable[[str], bool] = filled) -> None:
        self.tokenizer = tokenizer
        self.says = says  # a line that may be the first or the last (see ctxguard.plan.ends)
        self.head_budget = head_budget  # tier3 head: keep head lines while they fit
        self.head_tokens = 0
        self.first: tuple[int, str] | None = None
        self.head: list[tuple[int, str]] = []
        self.tail: deque[tuple[int, str]] = deque(maxlen=TAIL)
        self.recent: deque[tuple[int, str]] = deque(maxlen=5)
        self.templates: dict[str, _Seen] = {}
        self.traces: dict[int, str] = {}
        self.untracked = 0
        self.reader = Lines()

    def take(self, number: int, line: str) -> None:
        shown = strip_ansi(line)
        if self.first is None and self.says(shown):
            self.first = (number, shown)
        if self.head_budget:
            if self.head_tokens <= self.head_budget:
                self.head_tokens += self.tokenizer.count(shown)
                self.head.append((number, shown))
        elif len(self.head) < EDGE:
            self.head.append((number, shown))
        self.tail.append((number, shown))
        self.recent.append((number, shown))
        kind = self.reader.kind(shown)
        if kind == "end" and len(self.traces) < 4 * MAX_TEMPLATES:
            self.traces.update(self.recent)  # the traceback's last lines
        if kind in ("end", "error"):
            key = template(shown)
            seen = self.templates.get(key)
            if seen is not None:
                seen.count += 1
            elif len(self.templates) < MAX_TEMPLATES:
                self.templates[key] = _Seen(number, shown)
            else:
                self.untracked += 1

    def offered(self, lines: int, mode: str) -> Offered:
        out: Offered = {}
        if mode == "head":
            for number, text in self.head:
                _offer(out, number, ENDS, number, _clip(text))
            return out
        last = lines - 1
        for number, text in self.tail:
            _offer(out, number, REST, last - number, _clip(text))
        for number, text in self.head:
            _offer(out, number, EDGES, number, _clip(text))
        for number, text in list(self.tail)[-EDGE:]:
            _offer(out, number, EDGES, last - number, _clip(text))
        for number, text in self.traces.items():
            _offer(out, number, TRACE, number, _clip(text))
        for seen in self.templates.values():
            line = occurrences(_clip(seen.text), seen.count)
            _offer(out, seen.number, template_level(seen.text), seen.number, line)
        if self.first is not None:
            _offer(out, self.first[0], FIRST if self.says is not filled else ENDS, 0, _clip(self.first[1]))
        last_filled = self._last()
        if last_filled is not None:
            number, text = last_filled
            error = self.says is not filled and is_important(text) and template_level(text) == ERROR
            _offer(out, number, ENDS if error or self.says is filled else LAST, 1, _clip(text))
        return out

    def _last(self) -> tuple[int, str] | None:
        return next(((n, t) for n, t in reversed(self.tail) if self.says(t)), None)

    def probes(self) -> list[probes.Probe]:
        found = [probes.Probe("first", self.first[1].strip())] if self.first else []
        last = self._last()
        if last is not None:
            found.append(probes.Probe("last", last[1].strip()))
        return found + [probes.Probe("template", key) for key in self.templates]

    def notes(self) -> list[str]:
        if not self.untracked:
            return []
        return [f"{self.untracked} error lines beyond {MAX_TEMPLATES} distinct templates not tracked"]


@dataclass
class _Count:
    path: str
    added: int = 0
    removed: int = 0
    status: str = "modified"


class DiffSink:
    """Diffs: file stats and headers, definitions and error lines, the first changes of each file."""

    def __init__(self) -> None:
        self.files: list[FileStat] = []
        self.more_files = 0
        self.out: Offered = {}
        self.found: dict[probes.Probe, None] = {}
        self.reader = DiffReader(context_definitions=False)
        self.changed = 0
        self.stat: _Count | None = None
        self.header: tuple[int, ...] = ()  # the current file's `diff --git` line, and hunk header
        self.hunk: tuple[int, ...] = ()

    def _keep(self, number: int, level: float, line: str, needs: tuple[int, ...]) -> None:
        # A line whose file or hunk header was not kept (the cap) is not kept either.
        if len(self.out) < MAX_OFFERED and all(n in self.out for n in needs):
            _offer(self.out, number, level, self.reader.index, _clip(line), needs)

    def _probe(self, kind: str, value: str) -> None:
        if len(self.found) < MAX_OFFERED:
            self.found[probes.Probe(kind, value)] = None

    def close(self) -> None:
        """The last file's stats are final: call after the pass."""
        if self.stat is not None:
            if len(self.files) < MAX_FILES:
                s = self.stat
                self.files.append(FileStat(s.path, s.added, s.removed, s.status))
            else:
                self.more_files += 1
        self.stat = None

    def take(self, number: int, line: str) -> None:
        kind, level = self.reader.read(line)
        needs = self.hunk
        if kind == "file":
            self.close()
            self.stat, self.changed = _Count(self.reader.path), 0
            self._probe("path", self.reader.path)
            self.header, self.hunk, needs = (number,), (), ()
        elif kind == "hunk":
            self.hunk, needs = (*self.header, number), self.header
        elif kind == "header" and self.stat is not None:
            needs = self.header
            for start, status in (("new file mode", "added"), ("deleted file mode", "deleted"),
                                  ("rename from", "renamed"), ("Binary files", "binary")):
                if line.startswith(start):
                    self.stat.status = status
        elif kind == "context":
            return  # context lines are never worth a place in a cut of a huge diff
        elif kind in ("definition", "error", "change"):
            if self.stat is not None:
                if line.startswith("+"):
                    self.stat.added += 1
                else:
                    self.stat.removed += 1
            if kind == "definition":
                name = probes.definition_name(line[1:])
                if name:
                    self._probe("definition", name)
            elif kind == "error" and line.startswith("+"):
                self._probe("error", probes.error_message(line[1:]))
            elif kind == "change":
                if self.changed >= CHANGED_PER_FILE:
                    return
                self.changed += 1
        self._keep(number, level, line, needs)

    def offered(self, lines: int, mode: str) -> Offered:
        if mode == "head":
            return {n: (0.0, n, t, needs) for n, (_, _, t, needs) in self.out.items()}
        return self.out

    def probes(self) -> list[probes.Probe]:
        return list(self.found)

    def notes(self) -> list[str]:
        if not self.more_files:
            return []
        return [f"{self.more_files} files beyond {MAX_FILES} are not in the file list"]


def cut(offered: Offered, lines: int, tokens: int, room: int, tokenizer: Tokenizer,
        prefix: str = "") -> str:
    """The offered lines packed within room tokens (ctxguard.packer) with the marker; the lines
    not offered are gaps."""
    units: list[Unit] = []
    index: dict[int, int] = {}  # line number -> unit
    previous = -1
    for number in sorted(offered):
        level, rank, text, needs = offered[number]
        if number - previous > 1:
            units.append(hole(number - previous - 1))
        count = tokenizer.count(text)
        index[number] = len(units)
        units.append(Unit(text, count, count, (level, rank), anchors=tuple(index[n] for n in needs if n in index)))
        previous = number
    if lines - 1 > previous:
        units.append(hole(lines - 1 - previous))
    content = pack(Plan(units, tokens, prefix=prefix), room, tokenizer.count, marker)
    return content if content is not None else marker(tokens)


def streamable(path: Path, label: str, artifact_type: str | None) -> str | None:
    """The kind to stream this file as, or None when it is read whole (small, binary, other type)."""
    from ctxguard.classify import classify

    try:
        if not path.is_file() or path.stat().st_size <= STREAM_BYTES:
            return None
        with path.open("rb") as handle:
            head = handle.read(65536)
    except OSError:
        return None  # the normal path reports why it cannot be read
    if b"\x00" in head[:8192] or head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None  # binary or UTF-16/32: the normal path handles and explains it
    kind = artifact_type or classify(label, head.decode("utf-8", "replace"))
    return kind if kind in KINDS else None


def prepare(path: Path, tokenizer: Tokenizer, kind: str, tier3: Tier3Mode = "salient",
            secrets: bool = True, head_budget: int = 0) -> tuple[Scan, LogSink | DiffSink]:
    """The pass over a big file: its exact count and what its cut may show."""
    sink: LogSink | DiffSink = DiffSink() if kind == "diff" else LogSink(
        tokenizer, head_budget=head_budget if tier3 == "head" else 0, says=says if kind == "log" else filled)
    state = scan(path, tokenizer, sink, secrets=secrets)
    if isinstance(sink, DiffSink):
        sink.close()
    return state, sink


def finish(state: Scan, sink: LogSink | DiffSink, path: Path, name: str, budget: int,
           tokenizer: Tokenizer, kind: str, options: Options = Options()) -> Record | None:
    """The Tier 3 record of a prepared file, or None when it fits its budget after all."""
    warning = "" if tokenizer.exact else HEURISTIC_WARNING + "\n"
    room = budget - tokenizer.count(warning)
    if state.tokens <= room:
        return None
    prefix = ""
    if isinstance(sink, DiffSink) and options.tier3 == "salient":  # (the share the packer gives a list)
        prefix = file_listing(sink.files, tokenizer, room // 3) or file_listing(sink.files, tokenizer, room // 2)
    content = warning + cut(sink.offered(state.lines, options.tier3), state.lines, state.tokens, room, tokenizer,
                            prefix)
    kept = probes.measure(kind, "", content, list(dict.fromkeys(sink.probes())))
    notes = [f"streamed: {path.stat().st_size} bytes in one pass; tier 2 is not attempted for "
             f"artifacts over {STREAM_BYTES // (1024 * 1024)} MB"]
    if state.replaced:
        notes.append(f"{state.replaced} invalid UTF-8 sequences replaced with U+FFFD")
    notes += sink.notes()
    if state.redacted:
        notes.append(note(state.redacted))
    extra: dict[str, object] = {"redacted": state.redacted} if state.redacted else {}
    if isinstance(sink, DiffSink):
        extra["files"] = [s.to_dict() for s in sink.files[:1000]]
    return Record(
        artifact_name=name, raw_tokens=state.tokens, compacted_tokens=tokenizer.count(content),
        truncated=True, content=content, type=kind, tier=3, budget=budget, encoding=tokenizer.name,
        notes=tuple(notes), retention=kept.to_dict(options.missed), extra=extra,
    )


def compress_stream(path: Path, name: str, budget: int, tokenizer: Tokenizer, kind: str,
                    options: Options = Options(), secrets: bool = True) -> Record | None:
    """A Tier 3 record for a big file, or None when it fits its budget after all."""
    state, sink = prepare(path, tokenizer, kind, options.tier3, secrets, head_budget=budget)
    return finish(state, sink, path, name, budget, tokenizer, kind, options)
