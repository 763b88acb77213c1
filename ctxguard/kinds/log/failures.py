"""A test run's failures as an index: each root cause once, with its first error line, where it
was raised (`file:line`) and the tests that failed of it.

Read from the failure blocks test runners print: pytest (its summary's `FAILED id - message`,
`-v` lines `id FAILED`, and the `____ test ____` blocks with their `E` lines and crash line),
unittest (`FAIL: test (module.Class)` and the traceback's last line), jest/vitest (`● Suite ›
test` and its first message line), go test (`--- FAIL: TestX` and its `file_test.go:12:` lines)
and cargo (`test name ... FAILED`, `---- name stdout ----` and `panicked at file:line:col:`). A test named twice (a `-v`
line and the summary) counts once; tests whose first error line is the same but for numbers and
ids share a cause.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ctxguard.kinds.base import Failure as Failure  # (the digest's words for a root cause)
from ctxguard.kinds.frames import PYTEST_AT, PYTHON_EXCEPTION, frame_of
from ctxguard.kinds.log.lines import strip_ansi, template, unstamped

# A failing test named, with the message its runner gives on that line, if any.
_PYTEST_SUMMARY = re.compile(r"^(?:FAILED|ERROR|SUBFAILED|SUBERROR)(\([^)]*\))? (\S+?::\S+?|\S+?\.py)(?: - (.+))?$")
_PYTEST_VERBOSE = re.compile(r"^(\S+::\S+?) (?:FAILED|ERROR)\b")
_UNITTEST = re.compile(r"^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)")
_UNITTEST_VERBOSE = re.compile(r"^(\w+) \(([\w.]+)\) \.\.\. (?:FAIL|ERROR)$")  # (`-v`: before the `FAIL:` block)
_JEST = re.compile(r"^\s*● (.+?)\s*$")
_GO = re.compile(r"^\s*--- FAIL: (\S+)")
_CARGO = re.compile(r"^---- (\S+) stdout ----$")
_LIBTEST = re.compile(r"^test (\S+) \.\.\. FAILED$")
# The other lines naming a failed test, with the groups that make its id.
_NAMERS = (
    (_PYTEST_VERBOSE, (1,)),
    (_UNITTEST, (2, 1)),
    (_UNITTEST_VERBOSE, (2, 1)),
    (_JEST, (1,)),
    (_GO, (1,)),
    (_LIBTEST, (1,)),
)
# A line naming a failed test, whichever runner wrote it (what a log's cut takes right after
# the run's summary).
NAMES_FAILURE = re.compile("|".join(f"(?:{p.pattern})" for p in (_PYTEST_SUMMARY, *(p for p, _ in _NAMERS))))
# Inside a failure block: its first error line, and where it was raised (frames.PYTEST_AT).
_PYTEST_BLOCK = re.compile(r"^_{3,} (.+?) _{3,}$")
_PYTEST_E = re.compile(r"^E\s+(\S.*)$")
_PYTEST_FRAME = re.compile(r"^(\S+?:\d+): in \S+$")  # `--tb=short`: a frame, the innermost last
_PY_FILE = re.compile(r'^\s*File "([^"]+)", line (\d+)')
_AT_PAREN = re.compile(r"\(([^()\s]+:\d+)(?::\d+)?\)\s*$")
_GO_LINE = re.compile(r"^\s+(\S+\.go:\d+): (.+)$")
_JEST_SUITE = re.compile(r"^FAIL\s+\S+$")
_GO_RUN = re.compile(r"^=== RUN\s+(\S+)")
_PANIC = re.compile(r"panicked at (?:'(.*)', )?(\S+?:\d+)(?::\d+)?:?\s*$")
_HINT = re.compile(
    r"FAIL|ERROR|=== RUN|●|---- |^_{3,} |^E |panicked|\.go:\d+:|:\d+: |File \"|:\d+:\d+\)|^[A-Za-z_][\w.]*:"
)
_TRUNCATED = re.compile(r"\.\.\.$")


def message_at(line: str) -> int | None:
    """Where the message of a pytest summary line (`FAILED id - message`) starts, as ` - `'s
    place in the line, or None for a line without one."""
    match = _PYTEST_SUMMARY.match(line.rstrip("\r\n"))
    return match.start(3) - 3 if match is not None and match.group(3) else None


def named_test(line: str) -> tuple[str, bool] | None:
    """The failed test a line names, and whether the line says why (pytest's summary `FAILED id
    - message`): a `-v` line, the summary and a subtest's lines name one test."""
    if match := _PYTEST_SUMMARY.match(line):
        return match.group(2), match.group(3) is not None
    for pattern, groups in _NAMERS:
        if match := pattern.match(line):
            return ".".join(match.group(g) for g in groups), False
    return None


def unexplained(line: str) -> str | None:
    """The title of the failure block (`Class.test[param]`, a subtest's with its `(n=1)`) of the
    test a pytest summary line names bare (`FAILED id`, no message: pytest leaves it out when
    the id fills the terminal's width)."""
    match = _PYTEST_SUMMARY.match(line)
    if match is None or match.group(3):
        return None
    title = block_title(match.group(2))
    return f"{title} {match.group(1)}" if match.group(1) else title


def block_title(test: str) -> str:
    """The title of a pytest test id's failure block: `tests/x.py::Class::test_y[1]` ->
    `Class.test_y[1]`."""
    return test.split("::", 1)[1].replace("::", ".") if "::" in test else test


def first_bare_cause(named: Sequence[str], blocks: Callable[[], Blocks]) -> tuple[int, str] | None:
    """Of the lines naming failed tests, in the order a cut takes them: the first that names its
    test bare (see unexplained), by its place in `named`, with its failure block's first `E`
    line, if it has one (the blocks are read only then). For the plan and the streaming sink
    alike."""
    for at, line in enumerate(named):
        title = unexplained(unstamped(line).rstrip("\r\n"))
        if title is not None:
            cause = blocks().first.get(title)
            return (at, cause) if cause is not None else None
    return None


class Blocks:
    """pytest's failure blocks (`____ Class.test ____`), read line by line: each title and its
    block's first `E` line (for the plan and the streaming sink alike)."""

    def __init__(self, most: int | None = None) -> None:
        self.first: dict[str, str] = {}  # title -> the block's first `E` line
        self.most = most  # titles kept at most (a streamed log's are bounded)
        self._title: str | None = None  # the block being read, until its first `E` line

    def take(self, raw: str) -> None:
        if "___ " not in raw and "E " not in raw:
            return  # (neither a block's title nor an `E` line: most lines)
        line = unstamped(strip_ansi(raw).rstrip("\r\n"))
        if match := _PYTEST_BLOCK.match(line):
            self._title = match.group(1)
        elif self._title is not None and _PYTEST_E.match(line):
            if self.most is None or len(self.first) < self.most:
                self.first.setdefault(self._title, raw)
            self._title = None


def error_key(line: str) -> str:
    """What makes an error line a repeat of another: its template (numbers and ids normalised),
    but the line itself for a line naming a failed test or where a failure was raised
    (`tests/test_x.py:536: AssertionError`): each of those is a fact of its own, never one
    template for `test_case_1` … `_9` or for line 536 … 732. (A CI runner's timestamp in front
    is read past.)"""
    bare = unstamped(line)
    return bare if NAMES_FAILURE.match(bare) or PYTEST_AT.match(bare) else template(line)


@dataclass
class _Seen:
    message: str | None = None
    where: str | None = None
    frames: list[str] = field(default_factory=list)  # the places its traceback goes through


def failures(lines: Sequence[str]) -> list[Failure]:  # noqa: C901 (a branch per runner's line)
    """The failures of a test run's log, one per root cause, in the order first seen."""
    found: dict[str, _Seen] = {}  # test id -> what its block says
    order: list[str] = []
    blocks: dict[str, _Seen] = {}  # pytest block title (`Class.test`) -> its E line and crash line
    block: _Seen | None = None  # the block being read (pytest, unittest, jest, cargo)
    go_lines: dict[str, _Seen] = {}  # go test: a test's first `file_test.go:N: message` line
    go_test: str | None = None
    want_message = False  # jest/cargo: the next line that says something is the message

    def name(test: str, message: str | None = None) -> _Seen:
        if test not in found:
            found[test] = _Seen()
            order.append(test)
        seen = found[test]
        if message and not seen.message:
            seen.message = message
        return seen

    for raw in lines:
        line = unstamped(strip_ansi(raw).rstrip("\r\n"))
        if not _HINT.search(line) and not want_message and go_test is None:
            continue
        stripped = line.strip()
        if block is not None and (place := frame_of(line)) is not None and place not in block.frames:
            block.frames.append(place)
        if want_message and block is not None:
            if stripped:
                panic = _PANIC.search(stripped)
                if panic:
                    block.where = panic.group(2)
                    if panic.group(1):
                        block.message, want_message = panic.group(1), False
                    continue
                block.message, want_message = stripped, False
            continue
        if match := _PYTEST_SUMMARY.match(line):  # (a subtest's id carries its parameters)
            name(match.group(2) + (f" {match.group(1)}" if match.group(1) else ""), match.group(3))
        elif match := _PYTEST_VERBOSE.match(line):
            name(match.group(1))
        elif match := _PYTEST_BLOCK.match(line):
            block = blocks.setdefault(match.group(1), _Seen())
        elif block is not None and (match := _PYTEST_E.match(line)):
            block.message = block.message or match.group(1).strip()
        elif block is not None and (match := PYTEST_AT.match(line)):
            block.where = block.where or match.group(1)
        elif block is not None and not block.message and (match := _PYTEST_FRAME.match(line)):
            block.where = match.group(1)  # (before the `E` line: the innermost frame so far)
        elif match := _UNITTEST.match(line):
            block = name(f"{match.group(2)}.{match.group(1)}")
        elif block is not None and (match := _PY_FILE.match(line)):
            block.where = f"{match.group(1)}:{match.group(2)}"
        elif block is not None and not line.startswith(" ") and PYTHON_EXCEPTION.match(line) and not block.message:
            block.message = stripped
        elif match := _JEST.match(line):
            block, want_message = name(match.group(1)), True
        elif block is not None and (match := _AT_PAREN.search(line)) and stripped.startswith("at "):
            block.where = block.where or match.group(1)
        elif match := _LIBTEST.match(line):
            name(match.group(1))
        elif match := _CARGO.match(line):
            block, want_message = name(match.group(1)), True
        elif match := _GO_RUN.match(line):
            go_test = match.group(1)
        elif go_test is not None and (match := _GO_LINE.match(line)):
            go_lines.setdefault(go_test, _Seen(match.group(2).strip(), match.group(1)))
        elif match := _GO.match(line):
            seen = name(match.group(1))
            said = go_lines.get(match.group(1))
            if said is not None:
                seen.message, seen.where = seen.message or said.message, seen.where or said.where
            go_test = None
    return _grouped(found, order, blocks)


def _grouped(found: dict[str, _Seen], order: list[str], blocks: dict[str, _Seen]) -> list[Failure]:
    causes: dict[str, Failure] = {}
    for test in order:
        seen = found[test]
        title = block_title(test)
        detail = blocks.get(title) or blocks.get(title.rsplit(".", 1)[-1])
        message, where = seen.message, seen.where
        if detail is not None:
            # pytest's summary cuts a long message to the terminal (`ValueError: step m...`):
            # the block's E line holds it whole.
            if detail.message and (not message or detail.message.startswith(_TRUNCATED.sub("", message))):
                message = detail.message
            where = where or detail.where
        message = message or "(no message)"
        key = template(_own_name_out(message, test))
        failure = causes.setdefault(key, Failure(message, where))
        failure.where = failure.where or where
        failure.tests.append(test)
        for place in [*seen.frames, *(detail.frames if detail is not None else ()), *([where] if where else [])]:
            if place not in failure.frames:
                failure.frames.append(place)
    return list(causes.values())


def _own_name_out(message: str, test: str) -> str:
    """The message with the test's own names left out (`ReplaceTests.test_basic.<locals>…`),
    so tests that fail of one cause share it."""
    for part in sorted(set(re.split(r"[^\w]+", test)) - {""}, key=len, reverse=True):
        if len(part) > 3:
            message = message.replace(part, "#")
    return message


def covered(line: str, index: Sequence[Failure]) -> bool:
    """Whether an error line of a log with a failure index belongs to it: a failing test's
    name, a failure block's error line (pytest's `E` lines) or a cause's line saying where it
    was raised."""
    stripped = line.strip()
    if not index:
        return False
    if any(
        p.match(stripped)
        for p in (_PYTEST_SUMMARY, _PYTEST_VERBOSE, _UNITTEST, _GO, _CARGO, _LIBTEST, _JEST, _JEST_SUITE)
    ):
        return True
    if _PYTEST_E.match(stripped):
        return True  # (a failure block's error lines: the index has each block's first)
    key = template(stripped)
    return any(key == template(f.cause) or (f.where is not None and stripped.startswith(f.where)) for f in index)
