"""A markdown document's prose as sentences, each with what it says to a reader (a rule, a
decision, an example…), as the plan ranks it: read once per document (MarkdownDoc.paragraphs),
asked by the plan and by what a cut reports of the rules it left out."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, NamedTuple, Protocol

# Where a sentence ends: the white space (group 1) after its `.`, `!` or `?`, before a capital,
# a digit or an opening mark. (The mark matched, not looked behind for: the engine skips to each
# mark at C speed, where a lookbehind in front is tried at every character.)
_SENTENCE = re.compile(r"[.!?](\s+)(?=[A-Z0-9`*\[(\"'])")

# What a reader of a plan or a spec looks for, after the structure: rules (RFC 2119 words in
# capitals), decisions, numbered rules; then each paragraph's first sentence; examples last.
# (Not a keyword in quotes: `The key words "MUST", "SHOULD" … are to be interpreted as …`.)
_MUST = re.compile(r"(?<![\"'“`])\b(?:MUST(?: NOT)?|SHALL(?: NOT)?|REQUIRED)\b(?![\"'”`])")
_SHOULD = re.compile(r"(?<![\"'“`])\b(?:SHOULD(?: NOT)?|RECOMMENDED)\b(?![\"'”`])")
_MAY = re.compile(r"(?<![\"'“`])\b(?:MAY|OPTIONAL)\b(?![\"'”`])")
_DECISION = re.compile(r"\bmust\b", re.I)  # a plan's `must` in its first sentence (or the words of _decided)
_EXAMPLE = re.compile(r"^\W*(?:for example|for instance|e\.g\.|example:)", re.I)
_NUMBERED = re.compile(r"^\s*\d+[.)]\s")
# A numbered item's `2.`, alone on its line before a cut: no sentence ends there (_marker_before).
_MARKER = re.compile(r"[ \t]*\d+[.)]")
_ENDED = re.compile(r"[.!?][\"')\]*_`]*\s*$")  # text that ends a sentence (before a list item)
_LEADS = re.compile(r":[*_]*\s*$")  # prose that leads into the list after it

# Sentences' levels, the plan's priorities for them (lower first): rules in capitals (MUST,
# SHALL, REQUIRED; SHOULD, RECOMMENDED), decisions, numbered rules, MAY; a paragraph's first
# sentence, the others; examples; a rule said again word for word (the plan's to judge).
MUST: Final = 1.3
SHOULD: Final = 1.4
DECISION: Final = 1.45
NUMBERED: Final = 1.5
MAY: Final = 1.9
FIRST: Final = 2.0
OTHER: Final = 3.0
EXAMPLE: Final = 3.5
REPEATED: Final = 3.6


class _Block(Protocol):
    """What a sentence split needs of a block (ctxguard.kinds.markdown.model.Block)."""

    @property
    def kind(self) -> str: ...

    @property
    def text(self) -> str: ...


class Sentence(NamedTuple):
    """One sentence of prose or a list item, whole over as many lines as it runs."""

    text: str
    level: float  # what it says to a reader (MUST, SHOULD, … FIRST, OTHER)
    leads: bool  # prose ending with `:` before a list item: the items are never shown without it


class Paragraph(NamedTuple):
    """Prose and list items up to a blank line: blocks[start:end] of the document, as sentences."""

    start: int
    end: int
    sentences: tuple[Sentence, ...]


def paragraphs(blocks: Sequence[_Block]) -> tuple[Paragraph, ...]:
    """Every paragraph of the blocks (runs of prose and list items), in order."""
    found = []
    b = 0
    while b < len(blocks):
        if blocks[b].kind not in ("prose", "item"):
            b += 1
            continue
        end = b + 1
        while end < len(blocks) and blocks[end].kind in ("prose", "item"):
            end += 1
        found.append(Paragraph(b, end, sentences(blocks[b:end])))
        b = end
    return tuple(found)


def sentences(paragraph: Sequence[_Block]) -> tuple[Sentence, ...]:
    """A paragraph (prose and list items up to a blank line) as its sentences, each whole (over
    as many lines as it runs) with its level, and whether it leads into a list: prose ending
    with `:` before a list item (`… attribute names have the following constraints:`), which
    the sentences after it are never shown without. A list item starts a sentence unless the
    item before it has not ended one (`- Constraints:` leads into the items under it, and takes
    their level)."""
    texts = [block.text for block in paragraph]  # (each block's lines joined once)
    text = "".join(texts)
    starts: dict[int, _Block] = {}  # where each block starts, in text
    leads: set[int] = set()  # where a list item follows prose that leads into it
    at = 0
    before: _Block | None = None
    for block, written in zip(paragraph, texts):
        if before is not None and before.kind == "prose" and block.kind == "item":
            if _LEADS.search(text, max(0, at - 16), at):
                leads.add(at)
        starts[at] = block
        at += len(written)
        before = block
    cuts = sorted(
        {
            m.end()
            for m in _SENTENCE.finditer(text)
            # (a numbered item's marker ends in a digit and `.`: a sentence's end rarely does)
            if not (text[m.start(1) - 2 : m.start(1) - 1].isdigit() and _marker_before(text, m.start(1)))
        }
        | {a for a, block in starts.items() if a and block.kind == "item" and _ENDED.search(text, max(0, a - 16), a)}
        | leads
    )
    found = []
    for a, b in zip([0, *cuts], [*cuts, len(text)]):
        piece, opens = text[a:b], starts.get(a)  # (the block the sentence opens, if it opens one)
        found.append(Sentence(piece, _level(piece, opens is not None, opens), b in leads))
    return tuple(found)


def _marker_before(text: str, end: int) -> bool:
    """Whether the line before end holds only a numbered item's marker (`2.`: _MARKER), read
    back from end over the marker alone (a search for the line's start would read back over
    a whole line at each of its sentences)."""
    at = end - 1
    if at < 0 or text[at] not in ".)":
        return False
    at -= 1
    digits = at
    while at >= 0 and text[at].isdecimal():
        at -= 1
    if at == digits:
        return False  # (no digit)
    while at >= 0 and text[at] in " \t":
        at -= 1
    return at < 0 or text[at] == "\n"


def _level(sentence: str, first: bool, block: _Block | None) -> float:
    # (Plain `in` tests first: the keywords are rare, and each pattern would scan the sentence.)
    if ("MUST" in sentence or "SHALL" in sentence or "REQUIRED" in sentence) and _MUST.search(sentence):
        return MUST
    if ("SHOULD" in sentence or "RECOMMENDED" in sentence) and _SHOULD.search(sentence):
        return SHOULD
    if _EXAMPLE.match(sentence):
        return EXAMPLE
    lowered = sentence.lower()
    if _decided(lowered) or (first and "must" in lowered and _DECISION.search(sentence)):
        return DECISION
    if first and block is not None and block.kind == "item" and _NUMBERED.match(sentence):
        return NUMBERED
    if ("MAY" in sentence or "OPTIONAL" in sentence) and _MAY.search(sentence):
        return MAY
    return FIRST if first else OTHER


def _decided(lowered: str) -> bool:
    """A plan's decision in words (`we will`, `we decided`, `decision:` …), the sentence lowered.
    (Plain `in` tests: asked of every sentence, where a generator over the words costs more.)"""
    return (
        "we will" in lowered
        or "we won't" in lowered
        or "we decided" in lowered
        or "decided to" in lowered
        or "decision:" in lowered
        or "we chose" in lowered
    )
