"""Any other text: lines. Code keeps its definitions first; anything else its first and last
lines, then its head and tail."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from ctxguard.kinds.base import KindOf, Probe, edges
from ctxguard.kinds.definitions import definition_name, is_definition, language
from ctxguard.kinds.log.sink import LogSink
from ctxguard.options import Options
from ctxguard.plan import Plan, ended, ends, units
from ctxguard.tokens.base import Encoded, Tokenizer
from ctxguard.words import mentions

EDGE: Final = 10  # lines at each end taken before the middle

# The levels of a text's lines, lowest first.
ENDS: Final = 0.0  # the first and the last line that say something
DEFINITION: Final = 1.0  # in code, every definition
ASKED: Final = 1.5  # a line naming the task's words
EDGES: Final = 2.0  # the first and last EDGE lines, the outermost first
REST: Final = 3.0  # the rest, from the head


@dataclass(frozen=True)
class TextDoc:
    """A text read once: its lines (ends kept, the last one ended) and its language, if code."""

    text: str
    lines: tuple[str, ...]
    language: str | None
    definitions: frozenset[int]


def read(text: str, name: str = "") -> TextDoc:
    lines = tuple(ended(text.splitlines(keepends=True)))
    lang = language(name)
    return TextDoc(text, lines, lang, frozenset(i for i, line in enumerate(lines) if is_definition(line, lang)))


def plan(
    doc: TextDoc,
    encoded: Encoded,
    tokenizer: Tokenizer,
    task_words: frozenset[str] = frozenset(),
    focus: frozenset[int] = frozenset(),
) -> Plan:
    """Lines. Kept by tier 2 whatever the room: the first and last line and, in code (the file's
    language, or any when unknown), every definition. Then lines naming the task, the first and
    last EDGE lines, then the rest in order, from the head."""
    lines = list(doc.lines)
    n = len(lines)
    rank = [(REST, i) for i in range(n)]
    must = [False] * n
    for i, line in enumerate(lines):
        if i in doc.definitions:
            rank[i], must[i] = (DEFINITION, i), True
        elif task_words and mentions(line, task_words):
            rank[i] = (ASKED, i)
        elif i < EDGE or i >= n - EDGE:
            rank[i] = (EDGES, min(i, n - 1 - i))
    for order, i in enumerate(ends(lines)):
        rank[i], must[i] = (ENDS, order), True
    split = doc.text == encoded.text  # (its lines: its text's, split)
    return Plan(units(lines, lines, rank, must, lambda i: (), encoded, tokenizer, split=split), encoded.count)


def probes(doc: TextDoc) -> Iterator[Probe]:
    """The first and last line, and every definition's name."""

    lines = doc.text.splitlines()
    yield from edges(lines)
    for i in sorted(doc.definitions):
        name = definition_name(doc.lines[i])
        if name:
            yield Probe("definition", name)


def sink(tokenizer: Tokenizer, budget: int, options: Options) -> Any:
    """A big text's streaming sink: a log's, its first and last lines the lines not blank."""

    return LogSink(tokenizer, budget, options)


KIND = KindOf(
    "text",
    read,
    plan,
    probes,
    sink=sink,
    first="the first and last line, definitions in code",
    last="the middle, from the head",
)
