"""Big files in bounded memory: one streaming pass, then a salient (or head) Tier 3 cut.

A log, text, diff or JSON file over read.STREAM_BYTES is never read whole. It is read in blocks of
whole lines (a line longer than a block arrives in pieces and is shown clipped); each block is
redacted and counted exactly: blocks end at a line break followed by a printable character
(after spaces or tabs), where no token crosses, so the sum is the count of the whole file. One
pass keeps only what the cut can show, within fixed caps:

- log/text: the head, a ring of the last lines, the first occurrence of every error/warning
  template with its count, and the end of every traceback;
- diff: every file's path and +/- counts, the file and hunk headers, the added or removed
  definitions and error lines, and the first changed lines of each file;
- JSON: parsed as it is read, each array's first, failing and last items and a sample of the
  rest, each object's keys, each string's start (ctxguard.kinds.json.sink); the sink gives its
  own plan, so the cut is valid JSON.

Memory is bounded by those caps, not by the file; time is one decode, one redaction and one
encode per byte.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ctxguard import read
from ctxguard.engine import probes
from ctxguard.engine.packer import pack
from ctxguard.engine.tiers import marker
from ctxguard.kinds.base import Facts, Probe
from ctxguard.kinds.classify import classify
from ctxguard.kinds.registry import KINDS
from ctxguard.kinds.sink import Offered, Sink, Taker
from ctxguard.options import TYPES, KindName, Options
from ctxguard.plan import MAX_LINE, Plan, Unit, hole
from ctxguard.read import NOT_TEXT_LIMIT, BinaryData, not_text_share
from ctxguard.record import Listed, Record
from ctxguard.secrets.redact import notes as redaction_notes
from ctxguard.secrets.redact import redact
from ctxguard.tokens.base import Tokenizer, warning_line
from ctxguard.tokens.exact import last_clean_break
from ctxguard.words import cut_line

BLOCK = 1 << 20  # bytes read at a time


@dataclass
class Scan:
    """What every pass knows: lines, exact tokens, what reading and redaction changed."""

    lines: int = 0
    tokens: int = 0
    replaced: int = 0
    redacted: dict[str, int] = field(default_factory=dict)
    allowed: int = 0  # values kept on lines marked `ctxguard: allow`


_SAFE_BYTES = re.compile(rb"(?<=[A-Za-z])(?=[0-9])")
# Where a huge line may be cut: a letter meeting a digit inside a short word (`utf8`, `v2`, a
# short key) that is not a value (after `=` or `:`), never inside a long word, where a secret
# could be cut in two and escape the redaction of both blocks.
_WORD = re.compile(rb"(?<![^\s\"'`,;:=(){}\[\]<>])[^\s\"'`,;:=(){}\[\]<>]{1,12}(?=[\s\"'`,;:=(){}\[\]<>])")
_VALUE_BEFORE = re.compile(rb"[=:][ \t]*[\"'`]?$")


def _safe_cut(data: bytes, start: int) -> re.Match[bytes] | None:
    """The first place from start where a huge line can be cut with exact counts (a letter
    meeting a digit) and no secret cut in two (see _WORD); None if there is none."""
    for word in _WORD.finditer(data, start):
        if _VALUE_BEFORE.search(data, max(0, word.start() - 4), word.start()):
            continue
        found = _SAFE_BYTES.search(data, word.start(), word.end())
        if found is not None:
            return found
    return None


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
                    safe = _safe_cut(data, len(data) - 8 * BLOCK)  # (tokens.exact_pieces)
                    if safe is None:
                        rest = data  # no place to cut exactly and safely, so none is made
                        continue
                    yield data[: safe.start()]
                    rest = data[safe.start() :]
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
            state.allowed += found.allowed
        state.tokens += tokenizer.count(text)
        sink.feed(text)
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


def counter(tokenizer: Tokenizer) -> Callable[[str], int]:
    """Exact counts of a streamed file's cut, one clean segment at a time (ctxguard.tokens.exact),
    each distinct segment counted once across the packer's tries: a count of the whole content
    would hold a token list as long as the content (4.5 million numbers for a cut of 32 MB)."""
    return tokenizer.encode("").recount


def cut(
    offered: Offered,
    lines: int,
    tokens: int,
    room: int,
    tokenizer: Tokenizer,
    prefix: str = "",
    count: Callable[[str], int] | None = None,
) -> str:
    """The offered lines packed within room tokens (ctxguard.packer) with the marker, counted by
    count (by default a new counter); the lines not offered are gaps. The offered lines are
    handed over: each leaves the mapping as its unit is made, so a big file's kept lines are not
    held twice while they are packed."""
    numbers = sorted(offered)
    index: dict[int, int] = {}  # line number -> its unit (a run of lines not offered is one unit)
    at, previous = 0, -1
    for number in numbers:
        at += number - previous > 1  # (the gap before it)
        index[number] = at
        at, previous = at + 1, number
    units: list[Unit] = []
    previous = -1
    for number in numbers:
        level, rank, text, needs, clipped = offered.pop(number)
        if number - previous > 1:
            units.append(hole(number - previous - 1))
        cost = tokenizer.count(text)
        anchors = tuple(index[n] for n in needs if n in index)  # (an anchor may be a later line: partners)
        units.append(Unit(text, cost, cost, (level, rank), anchors=anchors, clipped=clipped))
        previous = number
    if lines - 1 > previous:
        units.append(hole(lines - 1 - previous))
    content = pack(Plan(units, tokens, prefix=prefix), room, count or counter(tokenizer), marker)
    return content if content is not None else marker(tokens)


def streamable(path: Path, label: str, artifact_type: str | None) -> KindName | None:
    """The kind to stream this file as, or None when it is read whole (small, binary, other type)."""

    try:
        if not path.is_file() or path.stat().st_size <= read.STREAM_BYTES:
            return None
        with path.open("rb") as handle:
            head = handle.read(65536)
    except OSError:
        return None  # the normal path reports why it cannot be read
    if b"\x00" in head[:8192] or head.startswith((b"\xff\xfe", b"\xfe\xff")) or not_text_share(head) > NOT_TEXT_LIMIT:
        return None  # binary or UTF-16/32: the normal path handles and explains it
    kind = artifact_type or classify(label, head.decode("utf-8", "replace"))
    return kind if kind in TYPES and KINDS[kind].sink is not None else None


def prepare(
    path: Path,
    tokenizer: Tokenizer,
    kind: KindName,
    options: Options = Options(),
    secrets: bool = True,
    budget: int = 0,
) -> tuple[Scan, Sink]:
    """The pass over a big file: its exact count and what its cut may show (the kind's sink),
    which grows with `budget` (the most tokens its cut may take) so a big budget is filled."""
    make = KINDS[kind].sink
    assert make is not None, kind  # (streamable says which kinds stream)
    sink = make(tokenizer, budget, options)
    state = scan(path, tokenizer, sink, secrets=secrets)
    sink.close()
    other = sink.instead()
    if other is not None:  # (JSON that did not parse: streamed again as text, and said)
        make = KINDS[other].sink
        assert make is not None, other
        again = make(tokenizer, budget, options)
        state = scan(path, tokenizer, again, secrets=secrets)
        again.close()
        return state, _Instead(again, sink.notes())
    return state, sink


class _Instead:
    """A file streamed again as another kind: that kind's sink, and what the first pass said."""

    def __init__(self, sink: Sink, said: list[str]) -> None:
        self.sink, self.said = sink, said

    def feed(self, text: str) -> None:
        self.sink.feed(text)

    def take(self, number: int, line: str) -> None:
        self.sink.take(number, line)

    def close(self) -> None:
        self.sink.close()

    def instead(self) -> str | None:
        return None

    def planned(self, tokens: int, tokenizer: Tokenizer) -> Plan | None:
        return self.sink.planned(tokens, tokenizer)

    def offered(self, lines: int, mode: str) -> Offered:
        return self.sink.offered(lines, mode)

    def prefix(self, room: int, tokenizer: Tokenizer, mode: str) -> str:
        return self.sink.prefix(room, tokenizer, mode)

    def probes(self) -> Sequence[Probe]:
        return self.sink.probes()

    def notes(self) -> list[str]:
        return [*self.said, *self.sink.notes()]

    def files(self) -> tuple[Listed, ...] | None:
        return self.sink.files()

    def facts(self) -> Facts:
        return self.sink.facts()


def finish(
    state: Scan,
    sink: Sink,
    path: Path,
    name: str,
    budget: int,
    tokenizer: Tokenizer,
    kind: KindName,
    options: Options = Options(),
) -> Record | None:
    """The Tier 3 record of a prepared file, or None when it fits its budget after all."""
    warning = warning_line(tokenizer)
    room = budget - tokenizer.count(warning)
    if state.tokens <= room:
        return None
    own = sink.planned(state.tokens, tokenizer)  # (a sink that writes its own syntax: JSON)
    count = counter(tokenizer)
    if own is not None:
        content = warning + (pack(own, room, count, marker) or marker(state.tokens))
        del own  # (its units and its document: let go of before the cut is parsed for the probes)
    else:
        prefix = sink.prefix(room, tokenizer, options.tier3)
        content = warning + cut(
            sink.offered(state.lines, options.tier3), state.lines, state.tokens, room, tokenizer, prefix, count
        )
    kept = probes.measure(kind, "", content, sink.probes())
    notes = [
        f"streamed: {path.stat().st_size} bytes in one pass; tier 2 is not attempted for "
        f"artifacts over {read.STREAM_BYTES // (1024 * 1024)} MB"
    ]
    if state.replaced:
        notes.append(f"{state.replaced} invalid UTF-8 sequences replaced with U+FFFD")
    notes += sink.notes()
    notes += redaction_notes(state.redacted, state.allowed)
    return Record(
        artifact_name=name,
        raw_tokens=state.tokens,
        compacted_tokens=count(content),
        truncated=True,
        content=content,
        type=kind,
        tier=3,
        budget=budget,
        encoding=tokenizer.name,
        notes=tuple(notes),
        retention=kept.to_dict(options.missed),
        redacted=tuple(state.redacted.items()),
        files=sink.files(),
        task=options.task,
    )


def compress_stream(
    path: Path,
    name: str,
    budget: int,
    tokenizer: Tokenizer,
    kind: KindName,
    options: Options = Options(),
    secrets: bool = True,
) -> Record | None:
    """A Tier 3 record for a big file, or None when it fits its budget after all."""
    state, sink = prepare(path, tokenizer, kind, options, secrets, budget=budget)
    return finish(state, sink, path, name, budget, tokenizer, kind, options)
