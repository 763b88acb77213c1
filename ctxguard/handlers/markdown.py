"""Markdown plans and PRDs: headings, tables, code, task items and front matter kept; prose condensed."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from ctxguard.handlers.base import Context, RememberLast

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_TABLE = re.compile(r"^\s*\|")
_TASK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[ xX]\]")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`*\[(\"'])")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]{3,}")
_ACTION = frozenset(
    """must shall should will add adds remove removes implement implements fix fixes build
    builds create creates update updates replace replaces migrate deploy support require
    requires ensure ensures return returns fail fails block blocks deliver ship test tests
    validate measure rollout rollback deprecate delete store send reject accept allow deny""".split()
)
_FILLER = frozenset(
    """this that with from have been were will would there their which about into than then
    also some more most very just such when what your they them only over each other these
    those could should""".split()
)


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


@dataclass(frozen=True)
class _Level:
    share: float  # share of each paragraph's sentences kept (at least one)
    item_sentences: int | None  # list items keep this many sentences (None: all)


_LEVELS = (
    _Level(share=0.75, item_sentences=None),
    _Level(share=0.5, item_sentences=None),
    _Level(share=0.34, item_sentences=2),
    _Level(share=0.0, item_sentences=1),
)


class MarkdownHandler:
    """Outline and hard facts stay; paragraphs keep their most telling sentences."""

    name = "markdown"

    def candidates(self, text: str, ctx: Context) -> Iterator[str]:
        parts = _dedupe(blocks(text))
        keywords = keywords_of(text) | ctx.task_words
        ranked: dict[str, _Ranked] = {}  # each paragraph's sentences ranked once, for every level
        for level in _LEVELS:
            yield "".join(_render(block, level, keywords, ranked) for block in parts)

    def validate(self, raw: str, compressed: str) -> str | None:
        missing = [b.text for b in blocks(raw) if b.kind in ("heading", "task") and b.text not in compressed]
        return f"lost {len(missing)} headings or task items" if missing else None


def _dedupe(parts: list[Block]) -> list[Block]:
    """Drop repeated examples: a code block or paragraph seen before becomes a short note."""
    seen: set[str] = set()
    out: list[Block] = []
    for block in parts:
        if block.kind in ("code", "prose") and len(block.text) > 40:
            key = " ".join(block.text.split())
            if key in seen:
                out.append(Block("note", (f"(repeated {block.kind} omitted)\n",)))
                continue
            seen.add(key)
        out.append(block)
    return out


def _keywords(text: str) -> frozenset[str]:
    """The document's key nouns: its most frequent longer words that are not filler."""
    counts = Counter(map(str.lower, _WORD.findall(text)))
    for word in _FILLER.intersection(counts):  # (insertion order, which breaks ties, is kept)
        del counts[word]
    return frozenset(word for word, _ in counts.most_common(25))


keywords_of = RememberLast(_keywords)  # the tier 2 walk and the cut's structural form both ask

# A paragraph's sentences, and their indices from most to least telling.
_Ranked = tuple[list[str], list[int]]


def _render(block: Block, level: _Level, keywords: frozenset[str], ranked: dict[str, _Ranked]) -> str:
    if block.kind == "prose":
        paragraph = "".join(block.lines)
        if paragraph not in ranked:
            ranked[paragraph] = _rank(paragraph, keywords)
        return _condense(paragraph, *ranked[paragraph], level.share)
    if block.kind == "item" and level.item_sentences is not None:
        line = block.lines[0]
        indent = line[: len(line) - len(line.lstrip())]
        body = line.strip()
        sentences = _SENTENCE.split(body)
        if len(sentences) > level.item_sentences:
            return indent + " ".join(sentences[: level.item_sentences]) + " (…)\n"
    if block.kind == "blank":
        return "\n"
    return block.text


def _rank(paragraph: str, keywords: frozenset[str]) -> _Ranked:
    sentences = _SENTENCE.split(" ".join(paragraph.split()))
    if len(sentences) == 1:
        return sentences, [0]
    return sentences, sorted(range(len(sentences)), key=lambda i: (-_score(sentences[i], keywords), i))


def _condense(paragraph: str, sentences: list[str], ranking: list[int], share: float) -> str:
    keep_n = max(1, round(len(sentences) * share))
    if keep_n >= len(sentences):
        return paragraph
    chosen = sorted(ranking[:keep_n])
    return " ".join(sentences[i] for i in chosen) + " (…)\n"


def _score(sentence: str, keywords: frozenset[str]) -> float:
    words = [w.lower() for w in _WORD.findall(sentence)]
    key = sum(1 for w in words if w in keywords)
    action = sum(1 for w in words if w in _ACTION)
    facts = sentence.count("`") // 2 + len(_DIGIT.findall(sentence)) / 4
    return key + 2 * action + facts


_DIGIT = re.compile(r"\d")
