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
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from ctxguard.options import KindName, Options
from ctxguard.plan import Plan, ends, filled
from ctxguard.tokens.base import Encoded, Tokenizer


class Probe(NamedTuple):
    """One fact: what kind it is and the text that must be findable. (A named tuple: a JSON
    document has one per key path, tens of thousands, made and hashed fast.)"""

    kind: str
    value: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.value}"


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


class Facts(NamedTuple):
    """What the digest says of one raw artifact, known before any cut: a diff's changed files
    (ctxguard.kinds.diff.FileStat), a log's failure causes (ctxguard.kinds.log.failures.Failure)
    and its other error lines with their counts, a plan's open task items."""

    files: tuple[Any, ...] = ()
    failures: tuple[Any, ...] = ()
    errors: tuple[tuple[str, int], ...] = ()
    tasks: tuple[str, ...] = ()


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
    (`first`, `last`: the docs' table)."""

    name: KindName
    read: Callable[[str, str], Any]
    plan: Callable[[Any, Encoded, Tokenizer, frozenset[str]], Plan]
    probes: Callable[[Any], Iterable[Probe]]
    notes: Callable[[Any], tuple[str, ...]] = lambda doc: ()
    sink: Callable[[Tokenizer, int, Options], Any] | None = None
    hollow: Callable[[str], bool] = lambda content: False
    suffixes: tuple[str, ...] = ()
    sniff: Callable[[str, str], bool] | None = None  # (the first 8 KB, the whole text)
    fence: str = "text"
    offload: str = "txt"
    head_cut: bool = True
    clean: Callable[[str], str] = _same
    known: Callable[[Any], dict[str, str]] | None = None
    facts: Callable[[Any], Facts] = lambda doc: Facts()
    left_out: Callable[[Any, str], tuple[str, int, int]] | None = None  # (what, left out, of how many)
    first: str = ""
    last: str = ""


def edges(lines: Sequence[str], says: Callable[[str], bool] = filled) -> Iterator[Probe]:
    """The first and the last line that says something (see ctxguard.plan.ends)."""
    found = ends(lines, says)
    if found:
        last, first = found
        yield Probe("first", lines[first].strip())
        yield Probe("last", lines[last].strip())


def missing_lines(wanted: Sequence[str], content: str, clean: Callable[[str], str] = lambda text: text) -> int:
    """How many of `wanted` (lines, stripped) a content does not show: each line counted as often
    as it is wanted, against as often as the content shows it."""
    shown = Counter(line.strip() for line in clean(content).splitlines())
    need = Counter(line.strip() for line in wanted)
    return sum(max(0, n - shown[line]) for line, n in need.items())
