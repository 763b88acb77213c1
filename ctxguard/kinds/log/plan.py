"""A log's plan: its errors and failures first, every error line at tier 2 (see plan)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import Final

from ctxguard.kinds.frames import PYTEST_AT
from ctxguard.kinds.log.failures import (
    NAMES_FAILURE,
    Blocks,
    error_key,
    first_bare_cause,
    message_at,
    named_test,
)
from ctxguard.kinds.log.lines import (
    ARROW,
    DIAGNOSTIC,
    FAILURE_DETAIL,
    PYTEST_E,
    SUMMARY,
    gutter,
    passing,
    rule_of,
    says,
    unstamped,
    wrapped_rule,
)
from ctxguard.kinds.log.model import EDGE, LogDoc, marks
from ctxguard.kinds.mistakes import fresh
from ctxguard.plan import MAX_LINE, Plan, Ranks, earliest, ended, ends, units
from ctxguard.tokens.base import Encoded, Tokenizer
from ctxguard.words import clip, clipped

CONTEXT: Final = 2  # lines shown before the first occurrence of each error template
# How early a log's cut takes a line (lowest first), for the plan and the streaming pass alike.
ENDS: Final = 0.0  # the last line, when it is an error or a summary line: how the run ended
SUMMARY_LEVEL: Final = 0.5  # a run's summary (`5 failed, 623 passed`) …
NAMED: Final = 0.8  # … a line naming a failed test (`FAILED tests/x.py::test_y - Error: …`) …
FOCUSED: Final = 0.95  # a frame through which a failure reaches the change (ctxguard.links) …
FRESH: Final = 0.97  # a report's error that marks a fresh mistake (a typo, a name that does not resolve) …
ERROR: Final = 1.0  # the first occurrence of an error template …
GOES_ON: Final = 1.1  # … (pytest's `E` lines after a failure's first one)
STAMPS_LEFT_OUT: Final = "CI timestamps left out of the lines shown (the full text has them)"
NAMED_SAYS: Final = 1.15  # what a line naming a failed test says after its name (pytest clips it)
LAST: Final = 1.2  # the last line, when it is not an error line
WARNING: Final = 1.5  # … or of a warning template
TRACE: Final = 2.0  # a traceback's start and last frames
FIRST: Final = 2.4  # the first line: after the errors and the failing statements
MARKED: Final = 2.5  # stack frames, sections, lines naming the task
BEFORE: Final = 2.8  # the lines before the first occurrence of a template
EDGES: Final = 3.0  # the first and last EDGE lines
LATER: Final = 4.0  # repeats of a template, the rest of a traceback
REST: Final = 6.0  # everything else, from the end backwards
QUIET: Final = 6.5  # … passing tests and progress lines after it (`PASSED`, `✓`, `....F.. [ 42%]`)
# A diagnostic whose rule the report names many times (a project's standing `Q000` quotes, mypy's
# `[no-untyped-def]`) is taken after one whose rule is rare (`F821`, `[name-defined]`): later within
# its level by up to this much, by the log of its count, so a lint or type report's cut shows the
# news before the noise.
COMMON_RULE: Final = 0.09
# A rule a report names at most this often: each of its diagnostics is taken as a template's
# first (`Name "maxsise" is not defined` after `Name "kwargz" is not defined`: two typos).
RARE_RULE: Final = 3


def template_level(line: str, goes_on: bool = False, rule: str | None = None) -> float:
    """How early the first line of an error or warning template is taken: a run's summary, then
    the lines naming a failed test, then an error that marks a fresh mistake (ctxguard.kinds.
    mistakes: a typo, a name that does not resolve; among a compiler's errors, which are read in
    order, only one that names a rule: `rule`, where the caller has read it, on the line or on
    the line its message wraps onto (see wrapped_rule), else read from the line), then the other
    error lines (pytest's `E` lines that go on from the one before them after the rest), then
    warnings."""
    line = unstamped(line)
    if SUMMARY.search(line):
        return SUMMARY_LEVEL
    if NAMES_FAILURE.match(line):
        return NAMED
    lowered = line.lower()
    if "warn" in lowered and "error" not in lowered:
        return WARNING
    if goes_on:
        return GOES_ON
    in_order = DIAGNOSTIC.match(line) is not None and (rule or rule_of(line)) is None  # (a compiler's error)
    return FRESH if not in_order and fresh(line) else ERROR


def goes_on(line: str, before: str | None) -> bool:
    """A pytest `E` line right after another: the failure's message goes on."""
    return before is not None and PYTEST_E.match(line) is not None and PYTEST_E.match(before) is not None


def end_level(first: bool, error: bool, line: str = "") -> float:
    """How early a log's first or last line is taken: the last first when it is an error line
    or a run's summary (how the run ended), else after the errors; the first after the
    failures' details. A compiler's last diagnostic (`x.c:132:56: error: …`) is not how the run
    ended: a compiler's errors are read in order, the first the likeliest cause of the rest."""
    if first:
        return FIRST
    if SUMMARY.search(line) or error and not DIAGNOSTIC.match(unstamped(line)):
        return ENDS
    return LAST


def occurrences(line: str, count: int) -> str:
    """The first line of a repeated template, with how often it occurs."""
    return line.rstrip("\r\n") + f"  ({count} occurrences)\n" if count > 1 else line


def plan(
    doc: LogDoc,
    encoded: Encoded,
    tokenizer: Tokenizer,
    task_words: frozenset[str] = frozenset(),
    focus: frozenset[int] = frozenset(),
) -> Plan:
    """A log as lines to pack. First taken, and kept by tier 2 whatever the room: the last line when it is
    an error line (pytest's summary), the first occurrence of every error template (with its count),
    the last line when it is not one, the first occurrence of every warning template, the failing
    statements (pytest's `>`, jest's Expected/Received, Go's `    x_test.go:31: …`), the first
    line and the last EDGE lines.
    (The first and last lines are those that say something on their own: not a compiler's source
    gutter or note.) Tier 2 also keeps every other error and warning line, or is not tier 2. Then
    each traceback's start and last frames (never without its `Type: message` end), stack frames,
    sections and lines naming the task, a few lines before each first error; then the first EDGE
    lines (a run's banner); then repeats and the rest of the tracebacks; then everything else, from the end
    backwards. A passing test's line is never an error line, whatever its title says, and a
    compiler's source gutter (` 1069 |   code`, `      |   ^~~~`) is never shown without the
    diagnostic above it."""
    read = doc
    lines = ended(list(read.lines))
    n = len(lines)
    # Shown without a CI runner's timestamp (a tenth of a short line's tokens): the gap lines'
    # numbers lead to the full text, which has them.
    bare = [unstamped(line) for line in lines]
    shown = [line if len(line) <= MAX_LINE + 64 else clip(line, MAX_LINE) for line in bare]
    cut = {s: clipped(b, MAX_LINE) for b, s in zip(bare, shown) if s is not b}  # a line clipped: its rest
    stamped = sum(1 for line, b in zip(lines, bare) if b is not line)
    quiet = [passing(line) for line in lines]  # passing tests and progress lines
    # Everything else from the end backwards, the quiet lines after the rest.
    rank: list[tuple[float, int]] = [(QUIET if q else REST, n - i) for i, q in enumerate(quiet)]
    must = [False] * n
    every = [False] * n
    anchors: dict[int, tuple[int, ...]] = {}

    def lift(i: int, level: float, to: int | None = None) -> None:
        earliest(rank, i, (level, i))
        if to is not None and to != i and i not in anchors:
            anchors[i] = (to,)

    firsts: dict[str, int] = {}
    counts: dict[str, int] = {}
    rules = {i: _rule(bare, i) for i, kind in read.kinds.items() if kind == "error"}
    seen = Counter(rule for rule in rules.values() if rule is not None)
    most = math.log(max(seen.values())) if seen else 0.0  # (the commonest rule's count, as a log)
    trace: list[int] = []
    for i in sorted(read.kinds):
        kind = read.kinds[i]
        if kind in ("start", "inside"):
            trace.append(i)
            continue
        if kind == "end":
            for depth, j in enumerate(reversed(trace)):  # never shown without their end
                lift(j, TRACE if depth < 3 or j == trace[0] else LATER, i)
            trace = []
        key = error_key(lines[i])  # (a failed test's name or a failure's place: a key of its own)
        counts[key] = counts.get(key, 0) + 1
        every[i] = True  # tier 2 keeps every error and warning line, or it is not tier 2
        rule = rules.get(i)
        if key in firsts and (rule is None or seen[rule] > RARE_RULE):
            lift(i, LATER)
            continue
        firsts.setdefault(key, i)  # (a rare rule's every diagnostic is news: taken as a first)
        level = _first_level(lines, i, rule, seen, most)
        lift(i, level)
        must[i] = True
        if i + 1 < n and ARROW.match(lines[i + 1]):  # its place (` --> x.py:3:1`) right after it
            lift(i + 1, level, i)
            must[i + 1] = True
        for j in range(max(0, i - CONTEXT), i):
            if j not in read.kinds and not quiet[j]:  # (nor an error line, nor a quiet one)
                lift(j, BEFORE, i)
    for key, i in firsts.items():
        shown[i] = occurrences(shown[i], counts[key])
    _named_once(lines, firsts.values(), rank, must)  # a test named twice: once among the first
    _names_and_cause(lines, firsts, rank)
    _places(bare, rank, anchors)
    head = None  # stack frames, sections and task lines: each run shown with its first line
    for i in read.marked:  # the failing statement: kept like the errors, before the banner
        if FAILURE_DETAIL.match(lines[i]):
            lift(i, TRACE)
            must[i] = True
    for i, marked in enumerate(marks(read, task_words)):
        head = (i if head is None else head) if marked else None
        if marked and rank[i][0] > MARKED and read.kinds.get(i) not in ("start", "inside"):
            lift(i, MARKED, head)
    _focused(focus, rank, must)
    edges = ends(lines, says)  # the last and the first line that say something
    _banner(read, quiet, rank, must, [lines[i].strip() for i in edges])
    for i in range(max(0, n - EDGE), n):  # its end: the summary, the short test summary
        lift(i, SUMMARY_LEVEL if SUMMARY.search(lines[i]) else EDGES)
        must[i] = True
    for order, i in enumerate(edges):  # the last, then the first
        level = end_level(
            first=order == 1,
            error=read.kinds.get(i) in ("end", "error") and template_level(lines[i]) <= ERROR,
            line=lines[i],
        )
        earliest(rank, i, (level, order))
        must[i] = True
        anchors.pop(i, None)  # the first and the last line stand alone
    for i, j in _gutters(lines):  # a source gutter never without the diagnostic it quotes for
        anchors[i] = (j, *anchors.get(i, ()))
    # Tier 2 keeps every error and warning line and the first EDGE lines too (tier 3 need not).
    tier2 = [m or e or i < EDGE for i, (m, e) in enumerate(zip(must, every))]
    lines, shown, rank, must, tier2, anchors = _names_apart(lines, bare, shown, rank, must, tier2, anchors)
    costs = _costs(shown, encoded, tokenizer) if stamped else None
    left = [cut.get(text, 0) for text in shown] if cut else None
    return Plan(
        units(lines, shown, rank, must, lambda i: anchors.get(i, ()), encoded, tokenizer, costs, left),
        encoded.count,
        tier2_must=tier2,
        notes=(STAMPS_LEFT_OUT,) if stamped else (),
    )


Lines = list[str]


def _costs(shown: Lines, encoded: Encoded, tokenizer: Tokenizer) -> list[int]:
    """The shown lines' tokens, from one encode of them, which the packer's recounts of a
    content made of them learn from too (lines that are not the raw text's: timestamps out)."""
    costed, costs = tokenizer.encode_parts(shown)
    encoded.learn(costed)
    return costs


def _names_apart(
    lines: Lines,
    bare: Lines,
    shown: Lines,
    rank: Ranks,
    must: list[bool],
    tier2: list[bool],
    anchors: dict[int, tuple[int, ...]],
) -> tuple[Lines, Lines, Ranks, list[bool], list[bool], dict[int, tuple[int, ...]]]:
    """Each line naming a failed test with what it says (pytest's `FAILED id - message`) as two
    units: its name, then ` - message` on the same line, taken at NAMED_SAYS and never without
    its name. A tight cut names more failed tests (`FAILED id …`): pytest clips the message on
    that line, and the failure's `E` line says it whole. The other lists follow the lines
    (`bare`: the lines without a CI runner's timestamp)."""
    cuts: dict[int, tuple[int, int]] = {}  # line -> where its line and its shown line are cut
    for i, line in enumerate(lines):
        if rank[i][0] == NAMED and shown[i] == bare[i]:
            at = message_at(bare[i])
            if at is not None:  # (after the space before the dash)
                cuts[i] = (len(line) - len(bare[i]) + at + 1, at + 1)
    if not cuts:
        return lines, shown, rank, must, tier2, anchors
    where: list[int] = []  # per line, its first unit
    out: tuple[Lines, Lines, Ranks, list[bool], list[bool]] = ([], [], [], [], [])
    for i, line in enumerate(lines):
        where.append(len(out[0]))
        cut = cuts.get(i)
        pieces = [line] if cut is None else [line[: cut[0]], line[cut[0] :]]
        out[0].extend(pieces)
        out[1].extend([shown[i]] if cut is None else [shown[i][: cut[1]], shown[i][cut[1] :]])
        out[2].extend([rank[i]] if cut is None else [rank[i], (NAMED_SAYS, rank[i][1])])
        out[3].extend([must[i]] * len(pieces))
        out[4].extend([tier2[i]] * len(pieces))
    moved = {where[i]: tuple(where[j] for j in to) for i, to in anchors.items()}
    moved.update({where[i] + 1: (where[i],) for i in cuts})
    return out[0], out[1], out[2], out[3], out[4], moved


def _places(bare: Lines, rank: Ranks, anchors: dict[int, tuple[int, ...]]) -> None:
    """A pytest failure's place (`more.py:846: ValueError`, below its `E` lines and a blank
    line) taken at its first `E` line's turn, right after it, with the blank line between.
    (`bare`: the lines without a CI runner's timestamp.)"""
    for i, line in enumerate(bare):
        if not PYTEST_AT.match(line.rstrip("\r\n")):
            continue
        j = i - 1
        while j >= 0 and not bare[j].strip():
            j -= 1
        if j < 0 or not PYTEST_E.match(bare[j]):
            continue
        while j > 0 and PYTEST_E.match(bare[j - 1]):
            j -= 1
        if rank[j] < rank[i]:
            rank[i] = rank[j]
            for k in range(i - 1, j, -1):
                if not bare[k].strip() and rank[j] < rank[k]:
                    rank[k] = rank[j]
                    anchors[k] = (i,)


def _focused(focus: frozenset[int], rank: list[tuple[float, int]], must: list[bool]) -> None:
    """The lines naming a frame through which a failure reaches the change (ctxguard.links):
    after the failed tests' names, before the other errors."""
    for i in focus:
        if i < len(rank) and (FOCUSED, i) < rank[i]:
            rank[i], must[i] = (FOCUSED, i), True


def _rule(bare: Lines, i: int) -> str | None:
    """The rule error line i reports: on its line, or at the end of the next one when its
    message wraps (wrapped_rule). (`bare`: the lines without a CI runner's timestamp.)"""
    return rule_of(bare[i]) or (wrapped_rule(bare[i], bare[i + 1]) if i + 1 < len(bare) else None)


def _first_level(lines: list[str], i: int, rule: str | None, seen: Counter[str], most: float) -> float:
    """How early the first line of an error or warning template is taken (template_level), a
    diagnostic of a rule the report names often a little later than one of a rare rule."""
    level = template_level(lines[i], goes_on(lines[i], lines[i - 1] if i else None), rule)
    if rule is not None and level in (ERROR, WARNING) and seen[rule] > 1:
        level += COMMON_RULE * math.log(seen[rule]) / most
    return level


GUTTER_REACH: Final = 8  # lines: a gutter this far below a line that says something quotes for it


def _gutters(lines: list[str]) -> list[tuple[int, int]]:
    """Each compiler gutter line, with the line above its run that it belongs to."""
    found = []
    owner = None
    for i, line in enumerate(lines):
        if gutter(line):
            if owner is not None and i - owner <= GUTTER_REACH:
                found.append((i, owner))
        else:
            owner = i
    return found


def _names_and_cause(lines: list[str], firsts: dict[str, int], rank: list[tuple[float, int]]) -> None:
    """The lines naming a failed test, those nearest the run's summary first (with it, one block
    and no gap line between). When the summary names them bare (`FAILED id`: pytest leaves the
    message out when the id fills the terminal's width), the error line of the first such test
    taken (its failure block's first `E` line, where that template is first seen) comes right
    after its name, before the other names: a cause beside the names that say how far it
    reached."""
    n = len(lines)
    for i in firsts.values():
        if rank[i][0] == NAMED:  # (twice their distance from the end: room for a cause after one)
            rank[i] = (NAMED, 2 * (n - i))
    named = sorted((i for i in firsts.values() if rank[i][0] == NAMED), key=lambda i: rank[i])
    found = first_bare_cause([lines[i] for i in named], lambda: _blocks(lines))
    if found is None:
        return
    bare, j = named[found[0]], firsts.get(error_key(found[1]))
    if j is not None and rank[j] > (NAMED, bare):
        rank[j] = (NAMED, rank[bare][1] + 1)


def _blocks(lines: list[str]) -> Blocks:
    blocks = Blocks()
    for line in lines:
        blocks.take(line)
    return blocks


def _banner(read: LogDoc, quiet: list[bool], rank: list[tuple[float, int]], must: list[bool], edges: list[str]) -> None:
    """A run's first EDGE lines (platform, plugins, the first tests): after the failures'
    details and sections, its passing lines the last taken. Its lines that show a probe are
    kept (its error lines, repeats too, and a line holding the first or the last line's text):
    as fillers they could show a probe that a bigger budget's must units had sealed out."""
    for i in range(min(EDGE, len(rank))):
        if not quiet[i]:
            earliest(rank, i, (EDGES + 0.5, i))
        if i in read.kinds or any(edge and edge in read.lines[i] for edge in edges):
            must[i] = True


def _named_once(lines: list[str], firsts: Iterable[int], rank: list[tuple[float, int]], must: list[bool]) -> None:
    for i in named_again((i, lines[i]) for i in firsts):
        rank[i], must[i] = (LATER, i), False


def named_again(found: Iterable[tuple[int, str]]) -> set[int]:
    """Of the lines naming one failed test (a `-v` line and the summary's `FAILED id -
    message`, a subtest's lines), all but the one that says why (or, when none does, the last:
    the summary's, which stands with the other names): they go with the repeats. `found`:
    (line number, line), for the plan and the streaming sink alike."""
    by_test: dict[str, list[tuple[bool, int]]] = {}
    for i, line in found:
        named = named_test(unstamped(line).rstrip("\r\n"))
        if named is not None:
            by_test.setdefault(named[0], []).append((not named[1], -i))
    return {-i for named in by_test.values() for _, i in sorted(named)[1:]}
