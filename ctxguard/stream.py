"""Big logs in bounded memory: one streaming pass, then a salient (or head) Tier 3 cut.

A file over STREAM_BYTES is never read whole. It is read in blocks of whole lines (a line
longer than a block is cut into pieces); each block is redacted and counted exactly (blocks end
at line breaks, where no token crosses), and one pass keeps only what the cut can show: the
head, a ring of the last lines, the first occurrence of every error/warning template with its
count, and the end of every traceback. Memory is bounded by those caps, not by the file; time
is one decode, one redaction and one encode per byte.
"""
from __future__ import annotations

import codecs
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ctxguard import probes
from ctxguard.handlers.base import plural
from ctxguard.handlers.log import EDGE, TB_FINAL, is_important, strip_ansi, template
from ctxguard.record import Record
from ctxguard.redact import redact
from ctxguard.tiers import marker
from ctxguard.tokens import HEURISTIC_WARNING, Tokenizer

STREAM_BYTES = 32 * 1024 * 1024  # files larger than this are streamed
BLOCK = 1 << 20  # bytes read at a time
TAIL = 2000  # last lines kept for the cut
MAX_TEMPLATES = 5000  # distinct error/warning templates tracked
MAX_LINE = 2000  # characters of one line shown at most
_TRACE_START = re.compile(r"^\s*Traceback \(most recent call last\):")


@dataclass
class _Seen:
    """The first line of one error template, and how often the template occurs."""

    number: int
    text: str
    count: int = 1


@dataclass
class _Pass:
    """What one pass over the file keeps."""

    lines: int = 0
    tokens: int = 0
    replaced: int = 0
    redacted: dict[str, int] = field(default_factory=dict)
    first: tuple[int, str] | None = None
    head: list[tuple[int, str]] = field(default_factory=list)
    tail: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=TAIL))
    templates: dict[str, _Seen] = field(default_factory=dict)  # first occurrence of each template
    untracked: int = 0
    traces: dict[int, str] = field(default_factory=dict)
    head_budget: int = 0  # for tier3 "head": keep head lines while their tokens fit
    head_tokens: int = 0


def _blocks(path: Path) -> Iterator[bytes]:
    """Whole lines in blocks of about BLOCK bytes; a longer line comes in pieces."""
    with path.open("rb") as handle:
        rest = b""
        while True:
            chunk = handle.read(BLOCK)
            if not chunk:
                if rest:
                    yield rest
                return
            data = rest + chunk
            cut = _safe_break(data)
            if cut < 0:
                if len(data) >= BLOCK:
                    yield data  # one very long line: its pieces are counted one by one
                    rest = b""
                else:
                    rest = data
                continue
            yield data[: cut + 1]
            rest = data[cut + 1 :]


_SAFE_NEXT = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def _safe_break(data: bytes) -> int:
    """The last line break after which a letter or digit follows: no token can cross it, so
    counting the two sides apart gives the exact count of the whole. -1 if there is none."""
    end = len(data)
    while True:
        cut = data.rfind(b"\n", 0, end)
        if cut < 0 or (cut + 1 < len(data) and data[cut + 1] in _SAFE_NEXT):
            return cut
        end = cut


def scan(path: Path, tokenizer: Tokenizer, head_budget: int = 0, secrets: bool = True) -> _Pass:
    """The one pass: exact token count and everything the cut may show."""
    state = _Pass(head_budget=head_budget)
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    recent: deque[tuple[int, str]] = deque(maxlen=5)
    in_trace = False
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
                start, length = partial
                partial = None
                line = start if length <= MAX_LINE else f"{start[:MAX_LINE]}... ({length - MAX_LINE} chars omitted)\n"
            in_trace = _take(state, line, recent, in_trace, tokenizer)
    if partial is not None:
        start, length = partial
        _take(state, start if length <= MAX_LINE else f"{start[:MAX_LINE]}... ({length - MAX_LINE} chars omitted)\n",
              recent, in_trace, tokenizer)
    if carry:
        state.tokens += tokenizer.count(carry)
        state.lines += carry.count("\n")
    return state


def _take(state: _Pass, line: str, recent: deque[tuple[int, str]], in_trace: bool,
          tokenizer: Tokenizer) -> bool:
    """Note one line; returns whether a Python traceback is still open after it."""
    number = state.lines
    state.lines += 1
    shown = strip_ansi(line)
    if state.first is None and shown.strip():
        state.first = (number, shown)
    if state.head_budget:  # tier3 head: the lines that can fit, and one more
        if state.head_tokens <= state.head_budget:
            state.head_tokens += tokenizer.count(shown)
            state.head.append((number, shown))
    elif len(state.head) < EDGE:
        state.head.append((number, shown))
    state.tail.append((number, shown))
    recent.append((number, shown))
    if _TRACE_START.match(shown):
        return True
    final = False
    if in_trace and shown[:1].strip():
        in_trace = False
        final = TB_FINAL.match(shown) is not None
        if final:
            for n, text in recent:
                if len(state.traces) < 4 * MAX_TEMPLATES:
                    state.traces[n] = text
    if final or (not in_trace and is_important(shown)):
        key = template(shown)
        entry = state.templates.get(key)
        if entry is not None:
            entry.count += 1
        elif len(state.templates) < MAX_TEMPLATES:
            state.templates[key] = _Seen(number, shown)
        else:
            state.untracked += 1
    return in_trace


def _clip(line: str) -> str:
    body = line.rstrip("\r\n")
    if len(body) > MAX_LINE + 64:  # (lines cut while streaming already carry their count)
        body = f"{body[:MAX_LINE]}... ({len(body) - MAX_LINE} chars omitted)"
    return body + "\n"


def _candidates(state: _Pass, mode: str) -> dict[int, tuple[float, int, str]]:
    """line number -> (priority, rank, text) of every line the cut may show."""
    out: dict[int, tuple[float, int, str]] = {}

    def offer(number: int, level: float, rank: int, text: str) -> None:
        if number not in out or out[number][:2] > (level, rank):
            out[number] = (level, rank, text)

    if mode == "head":
        for number, text in state.head:
            offer(number, 0.0, number, _clip(text))
        return out
    last = state.lines - 1
    for number, text in state.tail:
        offer(number, 6.0, last - number, _clip(text))
    for number, text in state.head:
        offer(number, 3.0, number, _clip(text))
    for number, text in list(state.tail)[-EDGE:]:
        offer(number, 3.0, last - number, _clip(text))
    for number, text in state.traces.items():
        offer(number, 2.0, number, _clip(text))
    for seen in state.templates.values():
        line = _clip(seen.text)
        if seen.count > 1:
            line = f"{line.rstrip()}  ({seen.count} occurrences)\n"
        level = 1.5 if "warn" in seen.text.lower() and "error" not in seen.text.lower() else 1.0
        offer(seen.number, level, seen.number, line)
    if state.first is not None:
        offer(state.first[0], 0.0, 0, _clip(state.first[1]))
    tail_filled = [(n, t) for n, t in state.tail if t.strip()]
    if tail_filled:
        offer(tail_filled[-1][0], 0.0, 1, _clip(tail_filled[-1][1]))
    return out


def _gap(n: int) -> str:
    return f"... ({plural(n, 'line')} omitted)\n"


def cut(state: _Pass, room: int, tokenizer: Tokenizer, mode: str) -> tuple[str, int]:
    """The cut within room tokens, and how many raw tokens it leaves out."""
    offered = _candidates(state, mode)
    counts = {n: tokenizer.count(text) for n, (_, _, text) in offered.items()}
    order = sorted(offered, key=lambda n: offered[n][:2])
    gap_cost = tokenizer.count(_gap(max(state.lines, 2)))
    limit = room - tokenizer.count(marker(state.tokens)) - 1
    last = state.lines - 1
    for _ in range(4):
        chosen: set[int] = set()
        used = gap_cost
        for n in order:
            left = n == 0 or (n - 1) in chosen
            right = n == last or (n + 1) in chosen
            delta = counts[n] + (-gap_cost if left and right else 0 if left or right else gap_cost)
            if used + delta <= limit:
                chosen.add(n)
                used += delta
        out: list[str] = []
        previous = -1
        for n in sorted(chosen):
            if n - previous > 1:
                out.append(_gap(n - previous - 1))
            out.append(offered[n][2])
            previous = n
        if previous < last:
            out.append(_gap(last - previous))
        omitted = max(1, state.tokens - sum(counts[n] for n in chosen))
        content = "".join(out) + marker(omitted)
        over = tokenizer.count(content) - room
        if over <= 0:
            return content, omitted
        limit -= over + 2
    text = marker(state.tokens)
    return text, state.tokens


def compress_stream(path: Path, name: str, budget: int, tokenizer: Tokenizer, kind: str,
                    tier3: str = "salient", secrets: bool = True, missed: bool = False) -> Record | None:
    """A Tier 3 record for a big file, or None when it fits its budget after all."""
    warning = "" if tokenizer.exact else HEURISTIC_WARNING + "\n"
    room = budget - tokenizer.count(warning)
    state = scan(path, tokenizer, head_budget=room if tier3 == "head" else 0, secrets=secrets)
    if state.tokens <= room:
        return None
    content, _ = cut(state, room, tokenizer, tier3)
    content = warning + content
    found = [probes.Probe("first", state.first[1].strip())] if state.first else []
    tail_filled = [t for _, t in state.tail if t.strip()]
    if tail_filled:
        found.append(probes.Probe("last", tail_filled[-1].strip()))
    found += [probes.Probe("template", key) for key in state.templates]
    found = list(dict.fromkeys(found))
    kept = probes.measure(kind, "", content, found)
    notes = [f"streamed: {path.stat().st_size} bytes in one pass; tier 2 is not attempted for "
             f"artifacts over {STREAM_BYTES // (1024 * 1024)} MB"]
    if state.replaced:
        notes.append(f"{state.replaced} invalid UTF-8 sequences replaced with U+FFFD")
    if state.untracked:
        notes.append(f"{state.untracked} error lines beyond {MAX_TEMPLATES} distinct templates not tracked")
    return Record(
        artifact_name=name, raw_tokens=state.tokens, compacted_tokens=tokenizer.count(content),
        truncated=True, content=content, type=kind, tier=3, budget=budget, encoding=tokenizer.name,
        notes=tuple(notes), retention=kept.to_dict(missed),
        extra={"redacted": state.redacted} if state.redacted else {},
    )
