"""A markdown document as blocks: headings, code, tables, task items, list items, prose."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from ctxguard.kinds.markdown.prose import Paragraph, paragraphs

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
TOP_HEADING = re.compile(r"^\s{0,3}#{1,2}(\s|$)")
_TABLE = re.compile(r"^\s*\|")
_TASK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[ xX]\]")
OPEN_TASK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[ \]")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
SETEXT = re.compile(r"^\s{0,3}(?:=+|-+)[ \t]*\r?\n?$")  # the underline of a `Title\n=====` heading

BlockKind = Literal["heading", "code", "table", "task", "item", "front", "prose", "blank"]


@dataclass(frozen=True)
class Block:
    """A run of lines of one kind."""

    kind: BlockKind
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "".join(self.lines)


@dataclass(frozen=True)
class MarkdownDoc:
    """A markdown text read once: its blocks in order (their lines are the text's lines)."""

    text: str
    blocks: tuple[Block, ...]

    @cached_property
    def paragraphs(self) -> tuple[Paragraph, ...]:
        """Its prose and list items as sentences, paragraph by paragraph (split when first asked:
        a text that fits its budget is never cut, nor split)."""
        return paragraphs(self.blocks)


def read(text: str, name: str = "") -> MarkdownDoc:
    """Split markdown into blocks, fenced code and front matter taken whole."""
    lines = text.splitlines(keepends=True)
    out: list[Block] = []
    i = 0
    if lines and lines[0].strip() == "---":
        end = next((j for j in range(1, len(lines)) if lines[j].strip() in ("---", "...")), None)
        if end is not None:
            out.append(Block("front", tuple(lines[: end + 1])))
            i = end + 1
    kinds = [_kind(line) for line in lines]  # ("fence" for a fence's line)
    while i < len(lines):
        line = lines[i]
        kind = kinds[i]
        if kind == "fence":
            mark = FENCE.match(line).group(1)  # type: ignore[union-attr]
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith(mark):
                j += 1
            out.append(Block("code", tuple(lines[i : j + 1])))
            i = j + 1
            continue
        if kind == "prose" and i + 1 < len(lines) and _setext(line, lines[i + 1], lines[i - 1] if i else "\n"):
            out.append(Block("heading", (line, lines[i + 1])))  # a setext heading: title and underline
            i += 2
            continue
        j = i + 1
        if kind in ("table", "prose", "blank", "item"):  # (an item goes on over its lazy lines)
            same = "prose" if kind == "item" else kind
            while (
                j < len(lines)
                and kinds[j] == same  # (a fence's line is "fence")
                and not (same == "prose" and j + 1 < len(lines) and _setext(lines[j], lines[j + 1], lines[j - 1]))
            ):
                j += 1
        out.append(Block(kind, tuple(lines[i:j])))
        i = j
    return MarkdownDoc(text, tuple(out))


def _setext(title: str, underline: str, before: str) -> bool:
    """A `Title` line underlined with `===` (or `---`) is a heading. A `---` line is also a
    rule, or front matter's end: under `---` only a title-like line counts (one line after a
    blank, short, not a sentence)."""
    if not SETEXT.match(underline):
        return False
    if underline.strip().startswith("="):
        return True
    text = title.strip()
    return not before.strip() and len(text) <= 80 and not text.endswith((".", ":", ";", ","))


def _kind(line: str) -> BlockKind | Literal["fence"]:
    """A line's kind: the first of FENCE, blank, HEADING, _TABLE, _TASK, _ITEM it matches, else
    prose (one match: _LINE is their alternation)."""
    found = _LINE.match(line)
    return found.lastgroup if found is not None else "prose"  # type: ignore[return-value]


_LINE = re.compile(
    "|".join(
        f"(?P<{name}>{pattern.pattern.removeprefix('^')})"
        for name, pattern in (
            ("fence", FENCE),
            ("blank", re.compile(r"\s*\Z")),  # (what `not line.strip()` says)
            ("heading", HEADING),
            ("table", _TABLE),
            ("task", _TASK),
            ("item", _ITEM),
        )
    )
)
