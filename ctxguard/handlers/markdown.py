"""Markdown plans and PRDs as plans: headings, tables, code and task items first; prose condensed."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ctxguard.handlers.base import RememberLast, mentions
from ctxguard.plan import Plan, units
from ctxguard.tokens import Encoded, Tokenizer

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_TABLE = re.compile(r"^\s*\|")
_TASK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[ xX]\]")
OPEN_TASK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[ \]")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`*\[(\"'])")


@dataclass(frozen=True)
class Block:
    """A run of lines of one kind: heading, code, table, task, item, front, prose or blank."""

    kind: str
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "".join(self.lines)


def _blocks(text: str) -> list[Block]:
    """Split markdown into blocks, fenced code and front matter taken whole."""
    lines = text.splitlines(keepends=True)
    out: list[Block] = []
    i = 0
    if lines and lines[0].strip() == "---":
        end = next((j for j in range(1, len(lines)) if lines[j].strip() in ("---", "...")), None)
        if end is not None:
            out.append(Block("front", tuple(lines[: end + 1])))
            i = end + 1
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            mark = fence.group(1)
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith(mark):
                j += 1
            out.append(Block("code", tuple(lines[i : j + 1])))
            i = j + 1
            continue
        kind = _kind(line)
        j = i + 1
        if kind in ("table", "prose", "blank"):
            while j < len(lines) and _kind(lines[j]) == kind and not _FENCE.match(lines[j]):
                j += 1
        out.append(Block(kind, tuple(lines[i:j])))
        i = j
    return out


blocks = RememberLast(_blocks)  # one split for the handler, its check, the probes and the cut


def _kind(line: str) -> str:
    if not line.strip():
        return "blank"
    if _HEADING.match(line):
        return "heading"
    if _TABLE.match(line):
        return "table"
    if _TASK.match(line):
        return "task"
    if _ITEM.match(line):
        return "item"
    return "prose"


def plan(encoded: Encoded, tokenizer: Tokenizer, name: str = "", task_words: frozenset[str] = frozenset()) -> Plan:
    """A markdown document as units: lines, and the sentences of prose and list items. Kept by
    tier 2 whatever the room: headings, task items, tables and code blocks. Taken first:
    headings, open task items, tables (their header rows before other rows), code (never
    without its fences); then front matter, lines naming the task, the first sentence of each
    paragraph and list item; then the rest in document order. Prose is never shown without its
    section's heading."""
    pieces: list[str] = []
    rank: list[tuple[float, int]] = []
    must: list[bool] = []
    anchors: list[tuple[int, ...]] = []
    heading: tuple[int, ...] = ()

    def add(text: str, level: float, keep: bool = False, to: tuple[int, ...] = ()) -> int:
        if task_words and level > 1.8 and mentions(text, task_words):
            level = 1.8
        pieces.append(text)
        rank.append((level, len(rank)))
        must.append(keep)
        anchors.append(to)
        return len(pieces) - 1

    for block in blocks(encoded.text):
        first = len(pieces)
        last = first + len(block.lines) - 1
        for j, line in enumerate(block.lines):
            if block.kind == "heading":
                heading = (add(line, 0.0, True),)
            elif block.kind == "task":
                add(line, 0.5 if OPEN_TASK.match(line) else 1.0, True)
            elif block.kind == "table":  # header and separator rows first, the others with them
                add(line, 1.0 if j < 2 else 1.5, True, () if j < 2 else (first, first + 1))
            elif block.kind == "code":  # fenced: inner lines never without both fences
                fenced = _FENCE.match(block.lines[-1]) is not None and last > first
                inner = 0 < j < len(block.lines) - 1 or not fenced and j > 0
                level = 1.5 if j > 1 and inner else 1.0  # the fences and the first line first
                add(line, level, True, ((first, last) if fenced else (first,)) if inner else ())
            elif block.kind == "front":
                add(line, 1.6)
            elif block.kind == "blank":
                add(line, 2.5)
            else:  # prose and list items: the first sentence, then the others
                for k, sentence in enumerate(_sentences(line)):
                    add(sentence, 2.0 if k == 0 and (j == 0 or block.kind == "item") else 3.0, to=heading)
    if pieces and not pieces[-1].endswith("\n"):
        pieces[-1] += "\n"
    return Plan(units(pieces, pieces, rank, must, anchors.__getitem__, encoded, tokenizer), encoded.count)


def _sentences(line: str) -> list[str]:
    """A line in sentences, each with the space after it: joined, they are the line."""
    cuts = [m.end() for m in _SENTENCE.finditer(line)]
    return [line[a:b] for a, b in zip([0, *cuts], [*cuts, len(line)]) if a < b]
