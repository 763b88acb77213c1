"""A big JSON file in one streaming pass (ctxguard.engine.stream): its document kept within a
room that grows with the budget, never whole, and cut by the JSON plan like any document.

The pass parses incrementally (ijson's C parser, fed the redacted text block by block) and
keeps, of every array (JSON Lines' rows too): its first items, its failing items (a status that
says so, a filled error field), its last items and an evenly spaced sample of the rest, each
run of items between them a gap that says how many it stands for; of every object its keys,
until the object's share of the room is spent (then a count of the keys left out); of every
string its first STRING_CHARS characters. The kept document goes to the JSON plan, whose cut
says every gap in place (`{"_truncated": "N items omitted"}`), so what the pass left out reads as
what the cut left out. A file that does not parse as JSON is streamed again and cut as text (as the
plan of a small file that does not parse is the text kind's): the pass says so (`instead`).
"""

from __future__ import annotations

import collections
import functools
import json
from collections.abc import Callable, Sequence
from typing import Any

from ctxguard.kinds.base import Facts, Probe
from ctxguard.kinds.json.model import JsonDoc
from ctxguard.kinds.json.plan import plan
from ctxguard.kinds.json.probes import KeyPaths
from ctxguard.kinds.json.units import ERRORS, HEAD, TAIL, Clipped, Gap, facts_of, fails_of
from ctxguard.kinds.sink import ROOM_BYTES_PER_TOKEN, Offered
from ctxguard.options import Options
from ctxguard.plan import Plan
from ctxguard.record import Listed
from ctxguard.tokens.base import Tokenizer
from ctxguard.words import task_words

STRING_CHARS = 4096  # a string's characters kept (over LONG_STRING: the cut shows at most 200 of one)
LEAST_ROOM = 1 << 20  # bytes kept at least, whatever the budget
PATHS = 20_000  # key paths kept for the probes, at most
SLICE = 1 << 18  # bytes parsed at a time
DEEPEST = 512  # levels a kept document may nest (written and cut with Python's recursion)
_GAP_KEY = "_ctxguard_omitted"  # the key an object's left-out keys are counted under (never shown)


class _Room:
    """The bytes kept so far (values as written, roughly) and the most the pass may keep."""

    __slots__ = ("kept", "most")

    def __init__(self, most: int) -> None:
        self.kept = 0
        self.most = most

    def full(self) -> bool:
        return self.kept > self.most


class _Array:
    """One array being read: its first items, its failing items, its last items and a sample of
    the rest spaced `step` apart (the step doubles when the sample outgrows its share). Each of
    the four holds at most a quarter of the room; past the first HEAD and last TAIL items, none
    grows while the room is full."""

    __slots__ = (
        *("room", "share", "n", "head", "head_bytes", "failing", "failing_bytes"),
        *("tail", "tail_bytes", "sample", "sample_bytes", "step"),
    )

    def __init__(self, room: _Room) -> None:
        self.room = room
        self.share = room.most // 4
        self.n = 0
        self.head: list[tuple[int, Any]] = []
        self.head_bytes = 0
        self.failing: list[tuple[int, Any]] = []
        self.failing_bytes = 0
        self.tail: collections.deque[tuple[int, Any, int]] = collections.deque()
        self.tail_bytes = 0
        self.sample: list[tuple[int, Any, int]] = []
        self.sample_bytes = 0
        self.step = 1

    def add(self, value: Any, size: int) -> None:
        """Take the next item, of `size` bytes (counted in the room already)."""
        i = self.n
        self.n += 1
        room = self.room
        if len(self.head) < HEAD or (self.head_bytes + size <= self.share and not room.full()):
            self.head.append((i, value))
            self.head_bytes += size
            return
        if type(value) is dict and self.failing_bytes + size <= self.share and not room.full() and _failing(value):
            self.failing.append((i, value))
            self.failing_bytes += size
            return
        self.tail.append((i, value, size))
        self.tail_bytes += size
        while len(self.tail) > TAIL and (self.tail_bytes > self.share or room.full()):
            j, old, old_size = self.tail.popleft()
            self.tail_bytes -= old_size
            self._sampled(j, old, old_size)

    def _sampled(self, i: int, value: Any, size: int) -> None:
        room = self.room
        if i % self.step:
            room.kept -= size
            return
        self.sample.append((i, value, size))
        self.sample_bytes += size
        while len(self.sample) > 1 and (self.sample_bytes > self.share or room.full()):
            self.step *= 2
            kept = [item for item in self.sample if item[0] % self.step == 0]
            dropped = self.sample_bytes - sum(item[2] for item in kept)
            self.sample, self.sample_bytes = kept, self.sample_bytes - dropped
            room.kept -= dropped

    def done(self) -> tuple[list[Any], int]:
        """The items kept, in order, each run left out a Gap; and their bytes."""
        kept = sorted(
            [*self.head, *self.failing, *((i, v) for i, v, _ in self.sample), *((i, v) for i, v, _ in self.tail)],
            key=lambda item: item[0],
        )
        out: list[Any] = []
        after = 0  # the index after the last item kept
        for i, value in kept:
            if i > after:
                out.append(Gap(i - after))
            out.append(value)
            after = i + 1
        if self.n > after:
            out.append(Gap(self.n - after))
        return out, self.head_bytes + self.failing_bytes + self.sample_bytes + self.tail_bytes


def _failing(item: dict[str, Any]) -> bool:
    """An item whose status says it failed, or that fills an error-like field (see outliers)."""
    return any(value if name in ERRORS else fails_of(name, value) for name, value in facts_of(item))


class _Object:
    """One object being read: its keys while the room holds them (its first HEAD whatever the
    room); then a count of the keys left out."""

    __slots__ = ("room", "items", "bytes", "left", "key")

    def __init__(self, room: _Room) -> None:
        self.room = room
        self.items: dict[str, Any] = {}
        self.bytes = 0
        self.left = 0
        self.key = ""

    def add(self, value: Any, size: int) -> None:
        if len(self.items) < HEAD or self.key in self.items or not self.room.full():
            self.items[self.key] = value  # (a repeated key: its last value, as everywhere)
            self.bytes += size
        else:
            self.left += 1
            self.room.kept -= size

    def done(self) -> tuple[dict[str, Any], int]:
        if self.left:
            self.items[_GAP_KEY] = Gap(self.left)
        return self.items, self.bytes


class JsonSink:
    """A big JSON document or JSON Lines read in one pass, kept within a room (see above)."""

    def __init__(self, tokenizer: Tokenizer, budget: int = 0, options: Options = Options()) -> None:
        import ijson  # (only a big JSON file needs it)

        self.task = task_words(options.task)
        self.room = _Room(max(LEAST_ROOM, ROOM_BYTES_PER_TOKEN * budget))
        self._events: list[tuple[str, Any]] = []
        self._parser = ijson.basic_parse_coro(_Events(self._events), multiple_values=True, use_float=True)
        self._stack: list[_Array | _Object] = [_Array(self.room)]  # the top: one value, or rows
        self._where: list[str] = [""]  # the key path of each open container
        self._paths: dict[str, None] = {}
        self.failed: str | None = None  # why the text is not JSON, once it is known
        self.omitted = 0  # entries the pass left out
        self.clipped = 0  # strings it cut to their first STRING_CHARS characters
        self._fed = False

    def take(self, number: int, line: str) -> None:
        """(It reads the text whole, see feed.)"""

    def feed(self, text: str) -> None:
        if self.failed is not None:
            return
        if not self._fed:
            self._fed = True
            text = text.removeprefix("\ufeff")  # (a byte order mark is no JSON: read past, as a small file's)
        data = text.encode("utf-8", "surrogatepass")
        # (A block of indented JSON runs to 16 MB: read a slice at a time, its events stay few.)
        for start in range(0, len(data), SLICE):
            if not self._parsed(functools.partial(self._parser.send, data[start : start + SLICE])):
                return

    def close(self) -> None:
        if self.failed is not None or not self._parsed(self._parser.close):
            return
        top = self._stack[0]
        if len(self._stack) != 1 or type(top) is not _Array or not top.n:
            self.failed = "not valid JSON (it ends inside a value); cut as text"

    def _parsed(self, step: Callable[[], object]) -> bool:
        """Run one step of the parser (a slice sent, or the end) and read the events it gave;
        False once the text is known to be no JSON this sink cuts."""
        try:
            step()
        except Exception as exc:  # (ijson's errors: the text is not JSON)
            self.failed = f"not valid JSON ({type(exc).__name__}); cut as text"
            return False
        self._read()
        return self.failed is None

    def _read(self) -> None:
        """Build what is kept from the events parsed so far."""
        stack, where, paths, room = self._stack, self._where, self._paths, self.room
        for event, value in self._events:
            frame = stack[-1]
            if event == "map_key":
                frame.key = value  # type: ignore[union-attr]
                if len(paths) < PATHS:
                    paths.setdefault(f"{where[-1]}.{value}" if where[-1] else value)
            elif event == "start_map" or event == "start_array":
                if len(stack) > DEEPEST:
                    self.failed = "JSON nested too deeply to cut as JSON; cut as text"
                    break
                if len(stack) == 1:
                    path = ""  # (a top-level value, or a row)
                elif type(frame) is _Array:
                    path = where[-1] + "[]"
                else:
                    path = f"{where[-1]}.{frame.key}" if where[-1] else frame.key  # type: ignore[union-attr]
                where.append(path)
                stack.append(_Object(room) if event == "start_map" else _Array(room))
                room.kept += 2
            elif event == "end_map" or event == "end_array":
                done, size = stack.pop().done()
                where.pop()
                entries = done.values() if type(done) is dict else done
                self.omitted += sum(item.n for item in entries if type(item) is Gap)
                stack[-1].add(done, size + 2)
            else:
                if event == "string" and len(value) > STRING_CHARS:
                    value = Clipped(value[:STRING_CHARS], len(value))  # (the cut counts what it left out)
                    self.clipped += 1
                size = len(value) + 2 if type(value) is str else 8
                room.kept += size
                frame.add(value, size)
        self._events.clear()

    def planned(self, tokens: int, tokenizer: Tokenizer) -> Plan | None:
        """The JSON plan of the kept document, standing for `tokens` raw tokens; None when the
        file is not JSON (its lines are cut as text). (Asked once: the kept document goes with
        the plan, and is let go of with it, before the cut is measured.)"""
        if self.failed is not None:
            return None
        top = self._stack[0]
        assert type(top) is _Array
        values, _ = top.done()
        self._stack = []
        rows = top.n > 1
        try:
            if rows:
                text = "\n".join(json.dumps(v, ensure_ascii=False, default=_gap_note) for v in values) + "\n"
            else:
                text = json.dumps(values[0], ensure_ascii=False, default=_gap_note, separators=(",", ":")) + "\n"
            doc = JsonDoc(text, (values, rows, []))
            return plan(doc, tokenizer.encode(text), tokenizer, self.task).but(total=tokens)
        except RecursionError:  # (as a small file nested too deeply to parse)
            self.failed = "JSON nested too deeply to cut as JSON; cut as text"
            return None

    def instead(self) -> str | None:
        """The text kind, when the file is not JSON after all: the engine streams it again so."""
        return "text" if self.failed is not None else None

    def offered(self, lines: int, mode: str) -> Offered:
        return {}  # (it gives its own plan, or the file is streamed again as text)

    def prefix(self, room: int, tokenizer: Tokenizer, mode: str) -> str:
        return ""

    def probes(self) -> Sequence[Probe]:
        return KeyPaths(set(self._paths))  # (measured as the JSON kind's: parsed, a set of key paths)

    def notes(self) -> list[str]:
        if self.failed is not None:
            return [self.failed]
        said = []
        if self.omitted:
            entries = "1 entry" if self.omitted == 1 else f"{self.omitted} entries"
            said.append(f"{entries} of arrays and objects left out while streaming, said in place")
        if self.clipped:
            strings = "1 string" if self.clipped == 1 else f"{self.clipped} strings"
            said.append(f"{strings} cut to their first {STRING_CHARS} characters while streaming, said in place")
        return said

    def files(self) -> tuple[Listed, ...] | None:
        return None

    def facts(self) -> Facts:
        return Facts()


def _gap_note(value: object) -> object:
    if type(value) is Gap:
        return {"_truncated": f"{value.n} omitted"}
    raise TypeError(type(value).__name__)


class _Events:
    """ijson's target: appends each event to a list (read, then cleared, after each block)."""

    def __init__(self, events: list[tuple[str, Any]]) -> None:
        self.send = events.append
