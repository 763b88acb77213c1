"""A markdown document's plan: what a reader of a plan or a spec looks for, first."""

from __future__ import annotations

import heapq
from collections import Counter
from typing import Final

from ctxguard.kinds.base import not_shown
from ctxguard.kinds.markdown.model import FENCE, OPEN_TASK, Block, MarkdownDoc
from ctxguard.kinds.markdown.prose import MUST, OTHER, REPEATED, SHOULD
from ctxguard.plan import Plan, UnitTable, omitted_lines, units
from ctxguard.tokens.base import Encoded, Tokenizer
from ctxguard.words import mentions, squeezed

# The levels of a document's lines, lowest first (its sentences' levels: ctxguard.kinds.markdown.prose).
# The document's first heading (its title) is taken first; the others come after the open task
# items and rules, each of which takes its section's heading and the headings above it.
TITLE: Final = 0.0
OPEN_ITEM: Final = 0.5  # a task item not done (`- [ ] …`)
HEADING: Final = 1.42
OUTLINE: Final = 1.43  # a table's header rows, a task item done: with the outline, after the headings
CODE: Final = 1.45  # a code block's fences and first line: after the rules, before the bodies
BODY: Final = 1.5  # a table's other rows, a code block's other lines
FRONT: Final = 1.6  # front matter
ASKED: Final = 1.8  # a line naming the task's words, when its own level is later
BLANK: Final = 2.5
LONG_PIECE: Final = 12  # lines: a prose piece longer than this is cut into its lines
SHARED: Final = 2  # rules a heading path's cost is shared among, at most, when rules are ordered


def plan(
    doc: MarkdownDoc,
    encoded: Encoded,
    tokenizer: Tokenizer,
    task_words: frozenset[str] = frozenset(),
    focus: frozenset[int] = frozenset(),
) -> Plan:
    """A markdown document as units: lines, and the sentences of prose and list items. Kept by tier 2
    whatever the room: headings, task items, tables, code blocks and sentences with RFC 2119 words in
    capitals (a code block or a rule that repeats an earlier one is not). Taken first: the title,
    open task items, sentences with RFC 2119 words in capitals (MUST, SHALL, REQUIRED, SHOULD; the
    cheapest to add first, see _rules_in_order), then the other headings, tables' header rows and
    task items done, code (never without its fences), table rows, decisions, numbered rules, MAY;
    front matter, lines naming the task, the first sentence of each paragraph and list item; then
    the rest in document order, examples, repeated rules and repeated code blocks last. Nothing is
    shown without its section's heading and the headings above it, nor a list's items without
    the prose that leads into the list."""
    pieces: list[str] = []
    rank: list[tuple[float, int]] = []
    must: list[bool] = []
    anchors: list[tuple[int, ...]] = []
    heading: tuple[int, ...] = ()
    seen_code: set[str] = set()
    seen_rules: set[str] = set()
    outline: list[tuple[int, int]] = []  # the headings the current one is under: (depth, unit)
    paths: dict[int, tuple[int, ...]] = {}  # a heading's unit: the units showing it takes (underlines too)

    def add(text: str, level: float, keep: bool = False, to: tuple[int, ...] = ()) -> int:
        if task_words and level > ASKED and mentions(text, task_words):
            level = ASKED
        pieces.append(text)
        rank.append((level, len(rank)))
        must.append(keep)
        anchors.append(to)
        return len(pieces) - 1

    blocks = doc.blocks
    paragraphs = {paragraph.start: paragraph for paragraph in doc.paragraphs}
    b = 0
    while b < len(blocks):
        block = blocks[b]
        first = len(pieces)
        last = first + len(block.lines) - 1
        if b in paragraphs:  # a paragraph: its prose and list items up to a blank
            lead: tuple[int, ...] = ()  # the sentence that leads into the list (`… constraints:`)
            for piece, level, leads in paragraphs[b].sentences:  # a rule is kept like the structure (tier 2 or 3)
                if level in (MUST, SHOULD):
                    said = " ".join(piece.split())
                    level = REPEATED if said in seen_rules else level  # (said again word for word)
                    seen_rules.add(said)
                # A "sentence" of many lines (a wall of badges or links with no full stop): its
                # lines, each after the one before, so a cut can show its head, not all or none.
                parts = _parts(piece, level)
                unit = add(parts[0], level, level in (MUST, SHOULD), to=lead or heading)
                for part in parts[1:]:
                    add(part, max(level, OTHER), False, to=(len(pieces) - 1,))
                lead = (unit,) if leads else lead
            b = paragraphs[b].end
            continue
        b += 1
        repeated = block.kind == "code" and block.text in seen_code
        if block.kind == "code":
            seen_code.add(block.text)
        for j, line in enumerate(block.lines):
            if block.kind == "heading":
                if j == 0:
                    depth = _depth(block)
                    while outline and outline[-1][0] >= depth:
                        outline.pop()
                    parent = (outline[-1][1],) if outline else ()
                    heading = (add(line, TITLE if not pieces else HEADING, True, parent),)
                    outline.append((depth, heading[0]))
                    paths[heading[0]] = paths.get(parent[0], ()) + heading if parent else heading
                else:  # its underline, with it
                    paths[heading[0]] += (add(line, rank[heading[0]][0], True, heading),)
            elif block.kind == "task":
                add(line, OPEN_ITEM if OPEN_TASK.match(line) else OUTLINE, True, heading)
            elif block.kind == "table":  # header and separator rows first, the others with them
                add(line, OUTLINE if j < 2 else BODY, True, heading if j < 2 else (first, first + 1))
            elif block.kind == "code":  # fenced: inner lines never without both fences
                fenced = FENCE.match(block.lines[-1]) is not None and last > first
                inner = 0 < j < len(block.lines) - 1 or not fenced and j > 0
                level = REPEATED if repeated else BODY if j > 1 and inner else CODE  # fences, first line first
                add(line, level, not repeated, _code_anchors(j, first, last, fenced, inner, heading))
            elif block.kind == "front":
                add(line, FRONT)
            else:  # blank
                add(line, BLANK)
    if pieces and not pieces[-1].endswith("\n"):
        pieces[-1] += "\n"
    return Plan(
        _rules_in_order(
            units(pieces, pieces, rank, must, anchors.__getitem__, encoded, tokenizer),
            paths,
            tokenizer.count(omitted_lines(10, 100)),
        ),
        encoded.count,
    )


def _parts(piece: str, level: float) -> list[str]:
    """A prose piece as the units it is shown in: itself, or its lines when it runs over more
    than LONG_PIECE lines and is not a rule (a rule is kept whole)."""
    lines = piece.splitlines(keepends=True)
    return lines if len(lines) > LONG_PIECE and level not in (MUST, SHOULD) else [piece]


def _code_anchors(
    j: int, first: int, last: int, fenced: bool, inner: bool, heading: tuple[int, ...]
) -> tuple[int, ...]:
    """What line j of a code block (its units first..last) is never shown without: an inner line
    both fences; a fence its heading and its partner (one alone turns the rest into code)."""
    if inner:
        return (first, last) if fenced else (first,)
    if fenced:
        return (*heading, last if j == 0 else first)
    return heading


def _rules_in_order(planned: UnitTable, paths: dict[int, tuple[int, ...]], gap: int) -> UnitTable:
    """Rules (MUST and SHOULD sentences) ordered so that a cut keeps as many as its room holds,
    from the whole document: each next rule is the one that costs least to add to those before
    it. A rule's cost is its own tokens, what it is shown with and is not shown yet (its
    heading path, the sentence leading into its list), shared among the rules shown with the
    same (at most SHARED of them: in a tight room the first rule of a deep section pays its
    path alone), and a gap line unless it sits next to a rule already taken. A SHOULD counts a
    quarter dearer than a MUST of the same cost. The order is the plan's, whatever the room: a
    bigger room keeps every rule a smaller one kept."""
    level, costs, anchors = planned.level, planned.cost, planned.anchors
    rules = [i for i, at in enumerate(level) if at in (MUST, SHOULD)]
    context = {i: _context(planned, paths, i) for i in rules}
    waiting = Counter(anchors[i] for i in rules)  # rules not yet ordered, by what they are shown with
    under: dict[int, list[int]] = {}  # a unit: the rules shown with it
    for i in rules:
        for h in context[i]:
            under.setdefault(h, []).append(i)
    shown: set[int] = set()  # the units the rules ordered so far are shown with
    taken: set[int] = set()

    def cost(i: int) -> int:
        opens = sum(costs[h] for h in context[i] if h not in shown)
        near = i - 1 in taken or i + 1 in taken or i - 1 in shown
        own = costs[i] + opens // min(waiting[anchors[i]], SHARED) + (0 if near else gap)
        return own * (5 if level[i] == SHOULD else 4) // 4

    heap = [(cost(i), i) for i in rules]
    heapq.heapify(heap)
    keyed: dict[int, tuple[float, int]] = {}  # the rules' priorities: in the order taken
    while heap:
        key, i = heapq.heappop(heap)
        if i in taken:
            continue
        now = cost(i)
        if now > key:  # (its group's share grew): back, at its cost now
            heapq.heappush(heap, (now, i))
            continue
        keyed[i] = (MUST, len(taken))
        taken.add(i)
        waiting[anchors[i]] -= 1
        opened = [h for h in context[i] if h not in shown]
        shown.update(opened)
        for j in {j for h in opened for j in under[h]} | {i - 1, i + 1}:  # cheaper now: again
            if j in context and j not in taken:
                heapq.heappush(heap, (cost(j), j))
    return planned.with_priorities(keyed)


def _context(planned: UnitTable, paths: dict[int, tuple[int, ...]], i: int) -> list[int]:
    """The units unit i is shown with: its anchors and theirs, a heading with its path."""
    found: list[int] = []
    for a in planned.anchors[i]:
        found += paths[a] if a in paths else [a, *_context(planned, paths, a)]
    return found


def _depth(block: Block) -> int:
    """A heading's depth: its `#`s, or 1 and 2 for a setext `===` and `---` underline."""
    if len(block.lines) == 2:
        return 1 if block.lines[1].strip().startswith("=") else 2
    return len(block.lines[0].strip()) - len(block.lines[0].strip().lstrip("#"))


def rules(doc: MarkdownDoc) -> list[str]:
    """The document's rules: its sentences with RFC 2119 words in capitals (MUST, SHALL,
    REQUIRED, SHOULD, RECOMMENDED), each whole, white space squeezed."""
    return [
        " ".join(sentence.text.split())
        for paragraph in doc.paragraphs
        for sentence in paragraph.sentences
        if sentence.level in (MUST, SHOULD)
    ]


def left_out(doc: MarkdownDoc, content: str) -> tuple[str, int, int]:
    """The rules a cut does not show whole."""
    shown = squeezed(content)
    wanted = rules(doc)
    return "rules (MUST/SHOULD sentences)", not_shown(wanted, shown), len(wanted)
