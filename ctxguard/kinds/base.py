"""What every kind answers, and the facts its answers are made of.

A kind reads an artifact's text once into a document of its own (`read`), and answers every
later question from that document: its plan for a cut (`plan`), its probes (`probes`), what a
record notes about it (`notes`); a kind that streams big files also makes the sink of that pass
(`sink`). The cut
engine (ctxguard.plan, ctxguard.packer, ctxguard.tiers) knows no kind; it asks the registry
(ctxguard.kinds.KINDS).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from ctxguard.literals import held
from ctxguard.options import KindName, Options
from ctxguard.plan import Plan, ends, filled
from ctxguard.record import Listed
from ctxguard.tokens.base import Encoded, Tokenizer


class Probe(NamedTuple):
    """One fact: what kind it is and the text that must be findable. (A named tuple: a JSON
    document has one per key path, tens of thousands, made and hashed fast.)"""

    kind: str
    value: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.value}"


class ProbeSet(Sequence[Probe]):
    """Probes by the thousand, checked together by their kind (a JSON document's key paths: one
    set difference, not a search each): what `probes` returns for such a kind."""

    def kept_in(self, content: str) -> tuple[int, Callable[[], tuple[Probe, ...]]]:
        """How many of the probes a content keeps, and how to list the ones it misses."""
        raise NotImplementedError


class Kind(Protocol):
    """One artifact kind: how it is read, cut and checked."""

    @property
    def name(self) -> KindName:
        """The kind's name, as records and configs write it."""

    def read(self, text: str, name: str) -> Any:
        """The text as this kind's document, read once (its type is the kind's own); name is
        the artifact's (a file name tells a language)."""

    def plan(self, doc: Any, encoded: Encoded, tokenizer: Tokenizer, task_words: frozenset[str]) -> Plan:
        """The units of a cut, with their priorities, must-keep flags and anchors."""

    def probes(self, doc: Any) -> Iterable[Probe]:
        """The facts a reader must still find after a cut, in document order (may repeat)."""

    def hollow(self, content: str) -> bool:
        """A cut's content that shows nothing of the artifact, only what stands for it (a JSON
        cut that is its marker or a note that everything was omitted)."""

    def notes(self, doc: Any) -> tuple[str, ...]:
        """What a record says about the reading whatever its tier (JSON that does not parse)."""

    @property
    def sink(self) -> Callable[[Tokenizer, int, Options], Any] | None:
        """What takes a big file's lines in one streaming pass (ctxguard.sink.Sink), made with
        the tokenizer, the most tokens the cut may take (what it keeps grows with it, so a big
        budget is filled) and the options it is cut with (a head cut, the task); None: the kind
        is read whole."""


@dataclass(frozen=True)
class FileStat:
    """One changed file of a diff: its path, its +/- counts and what happened to it."""

    path: str
    added: int
    removed: int
    status: str  # added | deleted | renamed | modified | binary

    def to_dict(self) -> dict[str, str | int]:
        """The file as an entry of a record's `files` list."""
        return {"path": self.path, "added": self.added, "removed": self.removed, "status": self.status}


@dataclass
class Failure:
    """One root cause: its first error line, where it was raised, the tests that failed of it,
    and the places its tracebacks go through (`path:line`, as the report writes them)."""

    cause: str
    where: str | None = None
    tests: list[str] = field(default_factory=list)
    frames: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Change:
    """One hunk of a diff as data: its file, the new file's lines it spans, the definitions it
    changes or sits in, and the raw lines (0-based, in the diff's text) of its changed lines."""

    path: str
    start: int
    end: int
    definitions: tuple[str, ...] = ()
    lines: tuple[int, ...] = ()


class Facts(NamedTuple):
    """What the digest says of one raw artifact, known before any cut: a diff's changed files
    and hunks, a log's failure causes and its other error lines with their counts, a plan's
    open task items. (Kinds say them in these words; the digest knows no kind.)"""

    files: tuple[FileStat, ...] = ()
    failures: tuple[Failure, ...] = ()
    errors: tuple[tuple[str, int], ...] = ()
    tasks: tuple[str, ...] = ()
    changes: tuple[Change, ...] = ()


def _same(content: str) -> str:
    return content


@dataclass(frozen=True)
class KindOf:
    """A kind made of one package's functions and facts, listed in the registry (see kinds/log).
    As a pygments lexer declares its `filenames` and `analyse_text`, a kind declares the file
    names that are it (`suffixes`), how its content is told (`sniff`), how the bundle shows it
    (`fence`, `offload`), whether a literal head cut is a cut of it (`head_cut`: not of JSON,
    which would no longer parse), how probes are looked for in a cut (`clean`, `known`), what the
    digest says of it (`facts`), what a cut of it left out, counted (`left_out`: a log's error
    and warning lines, a diff's changed lines, a spec's rules, a report's failing items) and
    what it keeps first and last
    (`first`, `last`: the docs' table); a kind that cannot be head-cut declares its `bare` cut."""

    name: KindName
    read: Callable[[str, str], Any]
    plan: Callable[[Any, Encoded, Tokenizer, frozenset[str], frozenset[int]], Plan]
    probes: Callable[[Any], Iterable[Probe]]
    notes: Callable[[Any], tuple[str, ...]] = lambda doc: ()
    sink: Callable[[Tokenizer, int, Options], Any] | None = None
    hollow: Callable[[str], bool] = lambda content: False
    suffixes: tuple[str, ...] = ()
    # Suffixes of other kinds' files (or of none) under which this kind is told by its content:
    # a `.xml` file is JUnit XML when it holds a report, a `.json` one SARIF when it holds a log.
    within: tuple[str, ...] = ()
    sniff: Callable[[str, str], bool] | None = None  # (the first 8 KB, the whole text)
    fence: str = "text"
    offload: str = "txt"
    head_cut: bool = True
    clean: Callable[[str], str] = _same
    known: Callable[[Any], dict[str, str]] | None = None
    facts: Callable[[Any], Facts] = lambda doc: Facts()
    left_out: Callable[[Any, str], tuple[str, int, int]] | None = None  # (what, left out, of how many)
    # A content's probes of kind `template` (a log's error templates): the templates of its lines.
    templates: Callable[[str], str] | None = None
    # What a cut that fits nothing of the artifact shows, for a kind that cannot be head-cut: the
    # marker line in the kind's own syntax, and the note that says so (JSON: a JSON string).
    bare: Callable[[str], tuple[str, str]] | None = None
    # Whether a content is still in the kind's syntax (JSON: it parses); None: any text is.
    valid: Callable[[str], bool] | None = None
    # What a record lists of the artifact besides its content (a diff's changed files, each with
    # how much of it a cut shows: `rows(doc, content, tier)`), and the order a short list keeps
    # them in (`row_rank(path)`: source before tests before docs); a kind that lists its files
    # in the record does not list them again at the head of a cut.
    rows: Callable[[Any, str, int], list[Listed]] | None = None
    row_rank: Callable[[str], float] = lambda path: 0
    # The content with its lines numbered as the raw text numbers them (a diff's new-file line
    # numbers), for an entry with `line_numbers: true`: `numbered(content, raw)`.
    numbered: Callable[[str, str], str] | None = None
    first: str = ""
    last: str = ""


def edges(lines: Sequence[str], says: Callable[[str], bool] = filled) -> Iterator[Probe]:
    """The first and the last line that says something (see ctxguard.plan.ends)."""
    found = ends(lines, says)
    if found:
        last, first = found
        yield Probe("first", lines[first].strip())
        yield Probe("last", lines[last].strip())


def not_shown(wanted: Sequence[str], content: str) -> int:
    """How many of `wanted` (texts, each counted as often as it is listed) the content does not
    hold anywhere: searched for one by one, the rest in one scan once many were missed (a
    search of the content for each was quadratic in a report of thousands of failures; see
    ctxguard.literals.held)."""
    return held(wanted, content).count(False)


def missing_lines(wanted: Sequence[str], content: str, clean: Callable[[str], str] = lambda text: text) -> int:
    """How many of `wanted` (lines, stripped) a content does not show: each line counted as often
    as it is wanted, against as often as the content shows it."""
    shown = Counter(line.strip() for line in clean(content).splitlines())
    need = Counter(line.strip() for line in wanted)
    return sum(max(0, n - shown[line]) for line, n in need.items())
