"""Probes: facts drawn from a raw artifact that must still be findable in its compressed content.

A probe is deterministic and checkable by plain text search (or by parsing, for JSON), so the
retention score means the same thing for ctxguard, for a baseline and for any other tool:
score = probes kept / probes.

- diff: every changed file's path; the name of every added or removed definition; the message
  of every added raise/throw/panic/error-log line.
- log: the first and the last line; every distinct error or warning template (numbers, ids and
  timestamps normalised), including each traceback's final `ExceptionType: message` line.
- json: every distinct key path (array indices collapsed), and that the output parses.
- markdown: every heading, every table's header row, the first line of every code block, every
  open task item (`- [ ]`).
- text: the first and the last line, and every definition's name.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxguard.kinds.base import Probe as Probe  # (re-exported: probes are this module's subject)
from ctxguard.kinds.base import ProbeSet
from ctxguard.kinds.registry import KINDS
from ctxguard.literals import find_from, one_scan_pays, present
from ctxguard.options import KindName

_TABLE_ROW = re.compile(r"^\s*\|")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_WORD_CHARS = re.compile(r"[\w$]")
_WORD_RUN = re.compile(r"[\w$]+")
WORDS_AFTER = 16  # probes a content does not show before its words are read into a set (see _Finder._find)
_SHORTEST_TOGETHER = 4  # characters: a shorter value is searched for alone (a text holds it in many places)


@dataclass(frozen=True)
class Retention:
    """How many probes a compressed content kept, and which ones it missed (listed on request:
    a cut JSON document can miss tens of thousands of key paths)."""

    probes: int
    kept: int
    list_missed: Callable[[], tuple[Probe, ...]] = field(default=tuple, repr=False, compare=False)
    # What the cut left out, counted by its kind (`{"error and warning lines": [54, 225]}`): probes
    # are facts by kind (a log's templates), so they may all be kept while lines of them are not.
    left_out: dict[str, list[int]] | None = None

    @property
    def missed(self) -> tuple[Probe, ...]:
        return self.list_missed()

    @property
    def score(self) -> float:
        return self.kept / self.probes if self.probes else 1.0

    def to_dict(self, missed: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"probes": self.probes, "kept": self.kept}
        if self.left_out:
            out["left_out"] = self.left_out
        if missed:
            out["missed"] = [str(p) for p in self.missed]
        return out


def extract(kind: KindName, text: str, name: str = "", doc: Any = None) -> Sequence[Probe]:
    """The probes of a raw artifact, deduplicated, in the order they appear (JSON key paths:
    sorted). The name tells the language of a source file (see ctxguard.definitions); `doc` is
    the kind's reading of the text, when the caller has it (else it is read here)."""

    reader = KINDS[kind]
    found = reader.probes(doc if doc is not None else reader.read(text, name))
    return found if isinstance(found, ProbeSet) else unique(found)  # (by the thousand: the kind's own set)


def unique(found: Iterable[Probe]) -> list[Probe]:
    """Probes without repeats or empty values, in order."""
    seen: set[Probe] = set()
    out = []
    for probe in found:
        if probe.value and probe not in seen:
            seen.add(probe)
            out.append(probe)
    return out


def measure(
    kind: KindName, raw: str, content: str, probes: Sequence[Probe] | None = None, doc: Any = None
) -> Retention:
    """Which of raw's probes content keeps (`doc`: the kind's reading of raw, if at hand)."""
    probes = extract(kind, raw, doc=doc) if probes is None else probes
    if isinstance(probes, ProbeSet):  # by the thousand: checked together, as their kind does
        kept, list_missed = probes.kept_in(content)
        return Retention(probes=len(probes), kept=kept, list_missed=list_missed)
    reader = KINDS[kind]
    known = {} if reader.known is None else reader.known(doc if doc is not None else reader.read(raw, ""))
    finder = _Finder(reader.clean(content), known, reader.templates)
    missed: list[Probe] = []
    together = False  # (once many searches missed, the plain probes left are searched for in one scan)
    for k, probe in enumerate(probes):
        if not together and one_scan_pays(finder.spent, len(finder.content), len(probes) - k):
            finder.search_together([p.value for p in probes[k:] if p.kind not in ("template", "definition")])
            together = True
        if not finder.has(probe):
            missed.append(probe)
    return Retention(probes=len(probes), kept=len(probes) - len(missed), list_missed=lambda: tuple(missed))


class _Finder:
    """Answers `is this probe findable in the content?` with the content prepared once."""

    def __init__(self, content: str, known: dict[str, str], templates: Callable[[str], str] | None = None) -> None:
        self.content = content  # (as the kind cleans it: a log's without ANSI codes)
        self._known = known  # templates of the raw log's error lines, by line
        self._read_templates = templates  # the kind's: a content's lines as templates
        self._shown: set[str] | None = None
        self._templates: str | None = None
        self._cursor = 0
        self.misses = 0  # probes not found so far: past WORDS_AFTER, the content's words are read
        self.spent = 0  # characters the searches read (see ctxguard.literals.SCANS_FIRST)
        self._asked: set[str] = set()  # plain values searched for together (see search_together) …
        self._present: set[str] = set()  # … and those the content holds

    def search_together(self, values: Sequence[str]) -> None:
        """Search for many plain values in one scan of the content (an Aho-Corasick automaton,
        every match): each value a cut lost would otherwise be searched for in all of it, and a
        diff of thousands of files has thousands of paths (one search each was quadratic). Not
        without the automaton's wheel, nor values shorter than _SHORTEST_TOGETHER."""
        wanted = [value for value in dict.fromkeys(values) if len(value) >= _SHORTEST_TOGETHER]
        found = present(wanted, self.content)
        if found is not None:
            self._asked, self._present = set(wanted), found

    def has(self, probe: Probe) -> bool:
        if probe.kind == "template":
            if self._shown is None:  # templates of the raw error lines the content shows as is
                known = self._known
                self._shown = {known[line] for line in self.content.splitlines() if line in known}
            if probe.value in self._shown:
                return True
            if self._templates is None:  # template() of every line, in one substitution
                stripped = "\n".join([line.strip() for line in self.content.splitlines()])
                self._templates = self._read_templates(stripped) if self._read_templates is not None else stripped
            return probe.value in self._templates
        if probe.value in self._asked and probe.kind != "definition":
            return probe.value in self._present
        return self._find(probe.value, word=probe.kind == "definition")

    @functools.cached_property
    def words(self) -> frozenset[str]:
        """Every run of word characters in the content, read once."""
        return frozenset(_WORD_RUN.findall(self.content))

    def _find(self, value: str, word: bool) -> bool:
        """Once WORDS_AFTER probes were not found, a probe that is one word is looked up in the
        content's words, and any other is first checked against them (each word inside it,
        between two other characters, must be a whole word of the content): most probes a cut
        lost are then told in time linear in the probe, not the content (a content that keeps
        its probes never pays for reading its words). Then probes mostly come in the order the
        content shows them, so each search starts where the last hit was and only a miss there
        searches the part before it."""
        if self.misses >= WORDS_AFTER:
            if _WORD_RUN.fullmatch(value):
                if word:
                    return value in self.words
            elif not all(
                m.group() in self.words for m in _WORD_RUN.finditer(value) if m.start() > 0 and m.end() < len(value)
            ):
                return False
        found = self._search(value, word)
        self.misses += not found
        return found

    def _search(self, value: str, word: bool) -> bool:
        at, read = find_from(self.content, value, self._cursor, _word_at if word else str.find)
        self.spent += read
        if at < 0:
            return False
        self._cursor = at
        return True


def _word_at(content: str, word: str, start: int = 0, end: int | None = None) -> int:
    """Where word first stands as a whole word in content[start:end], or -1."""
    while True:
        i = content.find(word, start, end)
        if i < 0:
            return -1
        before = content[i - 1] if i else " "
        after = content[i + len(word)] if i + len(word) < len(content) else " "
        if not _WORD_CHARS.match(before) and not _WORD_CHARS.match(after):
            return i
        start = i + 1


__all__ = ["Probe", "Retention", "extract", "measure", "unique"]
