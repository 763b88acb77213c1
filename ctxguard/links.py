"""From failure to cause: the bundle's failures linked to the changed hunks of its diffs.

Two kinds of evidence, strongest first. A **frame**: a place a failure's report goes through
(`more_itertools/more.py:1653`) inside a hunk, or within NEAR lines of it, of a changed file
with the same path (its last parts: a CI workspace, a site-packages copy of the package, `./`
and Windows separators are read past). A **name**: the failing test is named after what it
tests (`WindowedTests.test_basic` -> `def windowed`, `test_parse_amount_rejects_garbage` ->
`parse_amount`): a changed definition whose words run in the test's words. Last, a **file**: the
test's file is named after a changed one (`test_itertoolz.py` -> `itertoolz.py`; a file of more
than FILE_HUNKS hunks is said, but none of them is taken first). Each failure is linked by its
strongest evidence only; a failure with none is said plainly: a different
reading for the reviewer (an environment problem, a flaky test, a test of unchanged code).

What this decides is what each artifact keeps, never how much: the linked hunks' changed lines
are their diff's `focus` (ctxguard.options), which its plan takes before every other change.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from ctxguard.kinds.base import Change, Failure
from ctxguard.literals import holders

NEAR: Final = 3  # lines: a frame this close to a hunk is in it
SHORTEST_NAME: Final = 4  # characters: a shorter definition name (`get`, `run`) links nothing by name
FILE_HUNKS: Final = 3  # a test's file links to at most this many hunks of its namesake before the cut
_PLACE = re.compile(r"^(.+?):(\d+)(?::\d+)?$")  # (a column after the line: `x.js:40:7`)
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


@dataclass(frozen=True)
class Link:
    """A failure and the changed hunk it reaches."""

    test: str  # the failing test (or the failure's first line, when it names no test)
    cause: str  # the failure's first error line
    artifact: str  # the diff it reaches
    place: str  # the hunk: `path:first-last` of the new file
    definition: str | None  # the changed or enclosing definition
    by: str  # `frame path:line`, `name`, or `file`

    def to_dict(self) -> dict[str, str | None]:
        return {
            "test": self.test,
            "cause": self.cause,
            "artifact": self.artifact,
            "change": self.place,
            "definition": self.definition,
            "by": self.by,
        }


@dataclass(frozen=True)
class Linked:
    """The links, the failures no change explains, and per diff (by index) the raw lines of
    the hunks the failures reach."""

    links: tuple[Link, ...] = ()
    unlinked: tuple[tuple[str, Failure], ...] = ()  # (artifact, failure)
    focus: tuple[tuple[int, frozenset[int]], ...] = ()

    def data(self) -> tuple[dict[str, str | None], ...]:
        """The bundle's `links`: each link, then each failure that reaches no changed line."""
        none = [
            {"test": f.tests[0] if f.tests else f.cause, "cause": f.cause, "artifact": None}
            | {"change": None, "definition": None, "by": None}
            for _, f in self.unlinked
        ]
        return (*(link.to_dict() for link in self.links), *none)


def link(
    failures: Sequence[tuple[int, str, Failure]],
    changes: Sequence[tuple[int, str, Change]],
    lines: Callable[[int], Sequence[str]] = lambda _: (),
) -> Linked:
    """Each failure (with the index and name of the artifact it was read in) linked to the
    hunks of the diffs (`changes`: the diff's index, its name, a hunk) by its strongest
    evidence. A frame that links is a focus of its own artifact too: the raw lines (`lines`:
    an artifact's, by index) that name it come first among their equals in its cut.
    (The hunks are looked up by file name, definition word and file stem, and each
    artifact's lines read once for every frame that links: hundreds of failures against a
    diff of thousands of hunks were a search of every hunk, and of every line, per failure.)"""
    if not failures or not changes:
        return Linked()
    hunks = _Hunks(changes)
    found_of = [hunks.by_frames(f) or hunks.by_names(f) or hunks.by_files(f) for _, _, f in failures]
    linking: dict[int, set[str]] = {}  # per artifact, the frames that link (their lines are read once)
    for (at, _, _), found in zip(failures, found_of):
        linking.setdefault(at, set()).update(by.removeprefix("frame ") for _, by in found if by.startswith("frame "))
    naming = {at: _naming(lines(at), frames) for at, frames in linking.items() if frames}
    links: list[Link] = []
    unlinked: list[tuple[str, Failure]] = []
    focus: dict[int, set[int]] = {}
    for (at, artifact, failure), found in zip(failures, found_of):
        frames = {by.removeprefix("frame ") for _, by in found if by.startswith("frame ")}
        if named := set().union(*(naming[at][frame] for frame in frames)) if frames else set():
            focus.setdefault(at, set()).update(named)
        if not found:
            unlinked.append((artifact, failure))
            continue
        test = failure.tests[0] if failure.tests else failure.cause
        if all(by == "file" for _, by in found) and len(found) > FILE_HUNKS:
            # A file's many hunks: said once, and no hunk before the others (it tells none apart).
            (index, name, change), _ = found[0]
            links.append(Link(test, failure.cause, name, f"{change.path} ({len(found)} hunks)", None, "file"))
            continue
        for (index, name, change), by in found:
            links.append(Link(test, failure.cause, name, _place(change), _definition(change), by))
            focus.setdefault(index, set()).update(change.lines)
    return Linked(tuple(dict.fromkeys(links)), tuple(unlinked), tuple((i, frozenset(v)) for i, v in focus.items()))


Found = list[tuple[tuple[int, str, Change], str]]


def _naming(lines: Sequence[str], frames: set[str]) -> dict[str, set[int]]:
    """Per frame, the lines that name it: `path:line` as written, or a Python traceback's
    `File "path", line N`."""
    said = {frame: [frame] for frame in frames}
    for frame in frames:
        place = _PLACE.match(frame)
        if place is not None:
            said[frame].append(f'"{place.group(1)}", line {place.group(2)}')
    holding = holders([s for spellings in said.values() for s in spellings], lines)
    return {frame: set().union(*(holding[s] for s in spellings)) for frame, spellings in said.items()}


class _Hunks:
    """The diffs' hunks, in order, looked up by their file's name, their definitions' first
    words and their file's stem (each evidence's candidates; each is then checked whole)."""

    def __init__(self, changes: Sequence[tuple[int, str, Change]]) -> None:
        self.changes = changes
        self.named: dict[str, list[int]] = {}  # a file's name (its path's last part): its hunks
        self.worded: dict[str, list[int]] = {}  # a definition's first word: the hunks changing it
        self.stems: dict[str, list[int]] = {}
        for k, (_, _, change) in enumerate(changes):
            self.named.setdefault(_name(change.path), []).append(k)
            self.stems.setdefault(_stem(change.path), []).append(k)
            for first in dict.fromkeys(words(name)[0] for name in change.definitions if words(name)):
                self.worded.setdefault(first, []).append(k)

    def by_frames(self, failure: Failure) -> Found:
        found: Found = []
        for frame in failure.frames or ([failure.where] if failure.where else []):
            place = _PLACE.match(frame)
            if place is None:
                continue
            path, line = place.group(1), int(place.group(2))
            for k in self.named.get(_name(path), ()):  # (same_file holds only for the same name)
                item = self.changes[k]
                change = item[2]
                if same_file(path, change.path) and change.start - NEAR <= line <= change.end + NEAR:
                    found.append((item, f"frame {frame}"))
        return found

    def by_names(self, failure: Failure) -> Found:
        found: Found = []
        for test in failure.tests:
            said = _test_words(test)
            for k in sorted({k for word in set(said) for k in self.worded.get(word, ())}):
                item = self.changes[k]
                if any(_runs_in(words(name), said) for name in item[2].definitions if len(name) >= SHORTEST_NAME):
                    found.append((item, "name"))
        return found

    def by_files(self, failure: Failure) -> Found:
        found: Found = []
        for test in failure.tests:
            stem = _tested_stem(test)
            if stem is None:
                continue
            found += [(self.changes[k], "file") for k in self.stems.get(stem, ())]
        return found


def same_file(frame: str, changed: str) -> bool:
    """A frame's path and a changed file's are one file: the changed path's last parts (its
    name and folder, or the whole of it when it has no folder) end the frame's."""
    parts = _parts(frame)
    wanted = _parts(changed)
    if parts[-len(wanted) :] == wanted:
        return True
    tail = wanted[-2:]  # (a src/ layout's package installed elsewhere: `src/pkg/mod.py` in site-packages)
    return len(tail) == 2 and parts[-2:] == tail


def _name(path: str) -> str:
    """A path's last part (its file's name), or "" for a path of none."""
    parts = _parts(path)
    return parts[-1] if parts else ""


def _parts(path: str) -> list[str]:
    """A path's parts, past `./`, empty parts and Windows separators."""
    return [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]


def words(name: str) -> list[str]:
    """A name's words, lower-cased: `parse_amount` and `parseAmount` -> parse, amount."""
    return [w.lower() for w in _WORDS.findall(name)]


def _test_words(test: str) -> list[str]:
    """The words of a test's class and function names (not its file's, nor `test` itself)."""
    named = test.split("::", 1)[1] if "::" in test else test
    return [w for w in words(re.sub(r"\[.*?\]|\(.*?\)", " ", named)) if w not in ("test", "tests")]


def _runs_in(needle: list[str], hay: list[str]) -> bool:
    n = len(needle)
    return n > 0 and any(hay[k : k + n] == needle for k in range(len(hay) - n + 1))


def _tested_stem(test: str) -> str | None:
    """`tests/test_itertoolz.py::test_diff` -> itertoolz (the file a test file is named after)."""
    if "::" not in test:
        return None
    name = test.split("::", 1)[0].replace("\\", "/").rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0]
    for affix in ("test_", "_test", "tests_", "_tests", ".test", ".spec"):
        stem = stem.removeprefix(affix) if affix.endswith("_") else stem.removesuffix(affix)
    return stem or None


def _stem(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]


def _place(change: Change) -> str:
    return f"{change.path}:{change.start}" + (f"-{change.end}" if change.end > change.start else "")


def _definition(change: Change) -> str | None:
    return change.definitions[0] if change.definitions else None
