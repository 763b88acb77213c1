"""A diff's plan: the behaviour's changes first, each under its file, hunk and definition."""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Sequence
from itertools import compress, count, groupby, repeat
from operator import itemgetter
from typing import Final

from ctxguard.git.paths import header_path, line_path
from ctxguard.kinds.definitions import is_comment_or_blank
from ctxguard.kinds.diff.lines import BODY, CONTEXT, PATH_AGAIN, DiffReader, short_commit
from ctxguard.kinds.diff.model import DiffDoc, FileStat
from ctxguard.kinds.diff.numbers import number_of
from ctxguard.plan import NOT_TOLD, Plan, Priorities, Told, ended, units
from ctxguard.tokens.base import Encoded, Tokenizer
from ctxguard.words import mentions

TURN: Final = 1 << 32  # a definition's turn among its file's counts before its place in the diff


def turn_of(seen: dict[float, int], level: float, together: bool) -> int:
    """A changed definition's or error line's turn in its file at its level (`seen`: the turns
    taken so far, per level, in the file): each file's first, then each file's second, …, so a
    tight cut shows what changed across the files rather than all of the first one's. A run of
    them (`-def f(a)` `+def f(a, b)`) takes one turn."""
    if not together:
        seen[level] = seen.get(level, -1) + 1
    return seen.get(level, 0)


def _each_files_turn(levels: Sequence[float], order: array[int], outline: dict[int, str]) -> None:
    """Changed definitions and error lines by turns across files (see turn_of), their order
    among equal levels set so. (outline: the lines that are not plain changes or context, in
    order, each with what it is: the others are neither.)"""
    seen: dict[float, int] = {}
    for i, kind in outline.items():
        if kind == "file":
            seen = {}
        elif kind in ("definition", "error"):
            level = levels[i]
            together = outline.get(i - 1) in ("definition", "error") and levels[i - 1] == level
            order[i] = turn_of(seen, level, together) * TURN + i


def file_listing(stats: Sequence[FileStat], tokenizer: Tokenizer, limit: int) -> str:
    """`Changed files (N):` and one line per file with its +/- counts, for a cut diff, in the
    order given (a plan's: the diff's, the file of the change a cut takes first at the top).

    At most `limit` tokens: when every file does not fit, as many as do, and a count of the rest.
    """
    if not stats:
        return ""
    rows = [f"  {s.path} (+{s.added} -{s.removed}, {s.status})\n" for s in stats]

    def listing(n: int) -> str:
        more = f"  ... and {len(rows) - n} more files\n" if n < len(rows) else ""
        return f"Changed files ({len(stats)}):\n" + "".join(rows[:n]) + more + "\n"

    if tokenizer.count(listing(len(rows))) <= limit:
        return listing(len(rows))
    low, high = 0, len(rows)  # the most rows that fit: binary search, one count per step
    while low < high:
        mid = (low + high + 1) // 2
        if tokenizer.count(listing(mid)) <= limit:
            low = mid
        else:
            high = mid - 1
    return listing(low) if low else ""


def _telling(
    shown: list[str], must: list[bool], edited: dict[int, tuple[int, ...]], outline: dict[int, str]
) -> Callable[[int], Told]:
    """The plan's `alone`: a changed line (a definition or error line too) told on its own by
    first_change, asked by a tier-3 cut whose room cannot show it with its headers; nothing for
    any other line. What it keeps of the plan: the lines as shown, which its units hold already
    (a commit's line shortened, no line first_change reads), a byte a line for its must flag,
    and one for whether it is neither a change nor a definition nor an error."""
    other = bytearray(len(shown))
    for i, kind in outline.items():
        other[i] = kind not in ("definition", "error")
    kept = bytes(must)
    return lambda i: NOT_TOLD if other[i] else first_change(shown, i, kept, edited)


def first_change(
    lines: Sequence[str], i: int, must: Sequence[bool] | bytes, edited: dict[int, tuple[int, ...]]
) -> Told:
    """Changed line i told on its own, for a cut whose room cannot show it with its file's and
    its hunk's headers: `First change, path:line:` and the change: the line i was edited from,
    or the first kept line added after a removed i in its hunk (`-def f(a)` `+def f(a, b)`),
    and i; the line number of its added line in the new file (of a line only removed, in the
    old one); with the lines it shows. Nothing for a line outside a hunk or a file."""
    shown = [i]
    if edited.get(i):
        shown.insert(0, edited[i][0])
    elif lines[i].startswith("-"):
        for j in range(i + 1, len(lines)):
            if lines[j][:1] not in BODY:
                break  # (the hunk ended)
            if must[j] and lines[j].startswith("+"):
                shown.append(j)
                break
    number = number_of(lines, shown[-1])
    path = _path_above(lines, i) if number is not None else None
    if not path:
        return NOT_TOLD
    return Told(f"First change, {path}:{number}:\n" + "".join(lines[j] for j in shown), tuple(shown))


def _path_above(lines: Sequence[str], i: int) -> str | None:
    """The path of the file line i is in: its `diff --git` line's, else (a diff without git's
    headers) its `+++` line's, or for a deleted file its `---` line's."""
    for j in range(i - 1, 0, -1):
        line = lines[j]
        if line.startswith("diff --"):
            return header_path(line)
        if line.startswith("+++ ") and lines[j - 1].startswith("--- "):
            named = line_path(line, "+++ ").strip()
            if named == "/dev/null":
                named = line_path(lines[j - 1], "--- ").strip().removeprefix("a/")
            return named.removeprefix("b/") or None
    return header_path(lines[0]) if lines and lines[0].startswith("diff --") else None


def _first_units_file_first(
    levels: Sequence[float], order: Sequence[int], must: Sequence[bool], files: Sequence[int], stats: Sequence[FileStat]
) -> list[FileStat]:
    """The files in the diff's order, but the file of the must unit a cut takes first at the
    top: a list shown alone (a room the first change does not fit) names the file that change
    is in, which a bigger room shows; the other rows name files the cut may not show. (The
    diff's order where the lines' files and the parsed files differ in number.) files: the
    `diff --git` lines, in order.)"""
    first = [(float("inf"), i) for i in files]
    k = -1  # the file of line i
    for i in compress(range(len(must)), must):
        while k + 1 < len(files) and files[k + 1] <= i:
            k += 1
        if k >= 0 and i != files[k]:
            first[k] = min(first[k], (levels[i], order[i]))
    if len(first) != len(stats) or not stats:
        return list(stats)
    top = min(range(len(stats)), key=first.__getitem__)
    return [stats[top], *stats[:top], *stats[top + 1 :]]


def _before_the_list(levels: Sequence[float], must: Sequence[bool], outline: dict[int, str]) -> int:
    """How many must units a tight cut shows before the file list: in a `git log -p` (a diff
    with commits), every one a cut takes up to each commit's subject (the first change, the
    subjects: what each commit meant to do, which the list of the log's files does not say);
    else the first."""
    subjects = [levels[i] for i, kind in outline.items() if kind == "subject"]
    if not subjects:
        return 1
    last = max(subjects)
    return max(1, sum(1 for at, kept in zip(levels, must) if kept and at <= last))


REACH: Final = 40  # lines: beyond this distance from a definition or error, body lines rank alike


def plan(  # noqa: C901 (one branch per kind of line: files, commits, hunks, changes, context)
    doc: DiffDoc,
    encoded: Encoded,
    tokenizer: Tokenizer,
    task_words: frozenset[str] = frozenset(),
    focus: frozenset[int] = frozenset(),
) -> Plan:
    """A diff as lines. Kept by tier 2 whatever the room: every file header (`diff --git`,
    renames, modes, binary) and hunk header, every changed definition and error line, and every
    line of code in a source file edited in place (see small_edits: a flipped condition); a
    tier-3 cut takes those first as far as they fit (the edits that flip an operator, a number
    or a keyword of logic, then definitions and errors by turns across files (turn_of), then
    the other edits, then definitions
    and errors that only moved, each with its file and hunk header and the unchanged definition
    that encloses it, then the other file headers, then the other hunk headers) after the file
    list; before all of those, the changed lines of the hunks the bundle's failures lead to
    (`focus`: raw line numbers, ctxguard.links). Then the source files' other changed code,
    nearest a definition first, before any other body line.
    Then the `---`/`+++` lines, and the hunk bodies by their distance from a definition or an
    error (or from the hunk's start, in a hunk with none), changed lines before context at the
    same distance, changed comments and blank lines later; `index` lines last. A file's lines
    sink behind other files' when it holds tests or docs, and further when it is a lockfile or
    generated. No line is shown without its file header and its hunk header."""
    lines = ended(list(doc.lines))  # (a copy of the list: the last line may get a line break)
    reader = DiffReader(said=doc.said())  # (what the probes read of its changed lines)
    levels = array("d")  # per line, how early a cut takes it (its priority's level) …
    must: list[bool] = []
    anchors: list[tuple[int, ...]] = []
    file: tuple[int, ...] = ()  # the current file's `diff --git` line (its lines' group)
    naming: tuple[int, ...] = ()  # the line naming the current file, which every line of it needs
    hunk: tuple[int, ...] = ()  # … and the current hunk's
    enclosing: tuple[int, ...] = ()  # … and the unchanged definition above a change in its hunk
    # Hunk lines ranked by distance, in order, and their level at distance 0 (two lists: a
    # dict of a million lines holds ten times their memory).
    body: list[int] = []
    base: list[float] = []
    hunks: list[tuple[int, ...]] = []  # each line's hunk (file and hunk header)
    outline: dict[int, str] = {}  # the lines that are not plain changes or context, in order: what each is
    edited = small_edits(lines)
    quotes = _Quotes(lines)
    quoted = {
        j for i, pair in edited.items() if pair and _in_quotes(lines[i][1:], lines[pair[0]][1:]) for j in (i, *pair)
    }
    keys: dict[tuple[int, ...], list[int]] = {}  # per hunk, where distances are measured from:
    group: list[tuple[int, ...]] = []  # what a line left out holds back: its file's comments, the task's others
    waits: list[tuple[int, ...]] = []  # what a line waits for: its file's code, the task's lines
    # What tier 2 keeps whatever the room, with a task (a tier-3 cut takes the task's lines too;
    # without one, `must`):
    tier2: list[bool] = []
    above: tuple[int, ...] = ()  # the last definition of the hunk so far, changed or not
    commit: tuple[int, ...] = ()  # the current commit's line (`git log -p`), which its subject needs
    in_body, offset, lang = False, 0.0, None  # (the reader's: what a body line is read with)
    special = bool(task_words or focus)  # (without a task or failures, no line is ranked by them)
    for i, line in enumerate(lines):  # its header, its definitions and errors
        if in_body and line[:1] in BODY:  # (most lines: a hunk's body, read without the headers' tests)
            kind, level = reader.body(line)
        else:
            kind, level = reader.read(line)
            in_body, offset, lang = reader.in_body, reader.offset, reader.language
        needs = hunk
        plain = kind == "change" or kind == "context"  # (most lines)
        if plain:
            keep, comment = False, is_comment_or_blank(line, 1)
        else:
            keep = kind in ("file", "hunk", "definition", "error")
            comment = kind == "definition" and is_comment_or_blank(line, 1)
        if special:
            named = bool(task_words) and kind != "file" and mentions(line[1:], task_words)
            task = named and not keep
            # A changed line or definition that names the task's words: first among its equals,
            # and a tier-3 cut takes it with the must units, with its file, hunk and definition.
            asked = named and kind in ("change", "definition") and not comment
            # A changed line of a hunk the bundle's failing tests lead to (ctxguard.links): before
            # every other change, with its file, hunk and definition.
            linked = i in focus and kind in ("change", "definition", "error") and not comment
        else:
            task = asked = linked = False
        if kind == "change" and not task:
            source = not comment and offset == 0 and lang is not None
            # A line of code edited in place: the behaviour changed there (a docstring's line is
            # prose: `On Python 3.12` -> `3.13` flips no condition).
            keep = source and i in edited and not (lang == "python" and _in_docstring(quotes, i))
            body.append(i)
            base.append(EDITED if keep else SOURCE_CODE if source else PROSE if comment else OTHER_CODE + offset)
            if keep and i in quoted:
                other = lines[edited[i][0]][1:] if edited[i] else ""
                base[-1] = FLIPPED if _compared(line[1:], other) else EDITED_QUOTED  # (a value compared: logic)
            elif keep and edited[i] and flipped(lines[edited[i][0]][1:], line[1:]):
                base[-1] = FLIPPED
            if enclosing or i in edited:
                needs = (*hunk, *enclosing, *edited.get(i, ()))
        elif kind == "context" and not task and not line.startswith("\\"):  # (`\ No newline`: below)
            body.append(i)
            base.append(UNCHANGED + offset)
            if level < CONTEXT:  # an unchanged definition: the changes below it in the hunk are in it
                enclosing = above = (i,)
        elif kind == "file":
            file, naming, hunk, needs = (i,), (i,), (), ()
        elif kind == "commit":  # a commit of `git log -p`: its files are its own, its line is kept
            file, naming, hunk, needs, enclosing, above, commit, keep = (), (), (), (), (), (), (i,), True
        elif kind == "subject":  # (and its commit's line never without it: partners)
            keep, needs = True, commit
            if commit:
                anchors[commit[0]] = (i,)
        elif kind == "header":  # renames, modes, binary are the file header; ---/+++ and index repeat it
            keep = bool(file) and not line.startswith(("index ", "--- ", "+++ "))
            needs = file
            if file and names_new_path(line) and not any(must[file[0] + 1 : i]):
                # A file only modified: `+++ b/path` names it for its hunks at half the cost of
                # `diff --git a/path b/path` (and next to the first hunk, without a gap line), and
                # takes that line's place, which comes once none of its file's lines before it
                # was left out, at the level of its `index` and `---` lines (never as a tight
                # cut's filler).
                # (A rename, a mode, a new or deleted file: its `diff --git` line stays.)
                naming, keep, needs, level, header = (i,), True, (), levels[file[0]], file[0]
                levels[header], must[header] = PATH_AGAIN + reader.offset, False
                if task_words:
                    tier2[header] = False
                waits[header:] = [file] * (i - header)
        elif kind == "hunk":
            hunk, needs, enclosing, above = (*naming, i), naming, (), ()
            keys[hunk] = [i]
        elif kind in ("definition", "error"):
            keys[hunk].append(i)
            needs = (*hunk, *enclosing)
            above = (i,) if kind == "definition" else above
        elif line.startswith("\\"):  # "\ No newline at end of file": with the line before it
            level, needs = NO_NEWLINE, (*hunk, i - 1)
        if special:
            if task:  # (a line naming the task is ranked by it, not by its distance)
                level = min(level, TASK_LINE + offset)  # before a source file's other changed code
            if task_words:
                tier2.append(keep)
            if asked or linked:
                if body and body[-1] == i:
                    body.pop()
                    base.pop()
                level = _after_its_added(i, (LINKED if linked else ASKED) + offset, edited)
                needs = tuple(dict.fromkeys((*needs, *enclosing, *(() if kind == "definition" else above))))
                keep = True
        levels.append(level)
        must.append(keep)
        anchors.append(needs)
        hunks.append(hunk)
        if not plain:
            outline[i] = kind
        # Comments and blank lines go first: shown only while none of their file's code is left
        # out; with a task, the other changed lines only while none of the task's lines is.
        quiet = comment and kind != "definition" and not keep
        if quiet:  # (`file` itself, not a tuple a line: a plan of a million lines holds these)
            group.append(())
            waits.append(file)
        else:
            group.append((*file, TASK_GROUP) if asked else file)
            waits.append((TASK_GROUP,) if task_words and kind == "change" and not asked else ())
    for i, at, far in zip(body, base, _distances(body, hunks.__getitem__, keys)):
        if at in EDITS:  # (at their level whatever the distance; the added line brings its removed one)
            levels[i] = _after_its_added(i, at, edited)
        else:  # (source code stays ahead)
            levels[i] = at + (_SOURCE_STEPS if at == SOURCE_CODE else _BODY_STEPS)[far if far < REACH else REACH]
    for i in _moved(lines, outline):  # a definition or error line moved or re-indented: after the edits
        levels[i] = MOVED + levels[i] - 1
    order = array("q", range(len(levels)))  # … and among equal levels: in order, but for turns
    _each_files_turn(levels, order, outline)
    shown = list(lines)
    for i, kind in outline.items():
        if kind == "commit":
            shown[i] = short_commit(lines[i])
    stats = doc.files
    notes = () if stats else ("content is not a parseable diff; its lines are kept in order",)
    # Every header is kept (tier 2 and 3), after the changed definitions and the lines edited in
    # place of its file's rank: a tier-3 cut lists the files first, so a header alone says
    # little, and the behaviour's change comes before it. (Still must: a bigger room keeps every
    # header a smaller one kept.)
    for i, kind in outline.items():
        if stats and must[i] and kind in ("file", "header", "hunk"):
            levels[i] += HEADERS_AFTER_EDITS
    files = [i for i, kind in outline.items() if kind == "file"]
    listed = _first_units_file_first(levels, order, must, files, stats)
    return Plan(
        units(
            lines,
            shown,
            Priorities(levels, order),
            must,
            anchors.__getitem__,
            encoded,
            tokenizer,
            split=doc.text == encoded.text,  # (doc.lines: its text's, split; the same object, most often)
        ),
        encoded.count,
        listing=lambda room: file_listing(listed, tokenizer, room),
        alone=_telling(shown, must, edited, outline),
        listing_after=_before_the_list(levels, must, outline),
        notes=notes,
        waits_for=waits,
        group=group,
        tier2_must=tier2 if task_words else None,
    )


# A line edited in place (`if n == 0` -> `if n == 1`): the behaviour changed there. After the
# definitions and the source files' headers (what the probes count: paths and names), before
# the other headers and every body line.
EDITED: Final = 1.65
# … before everything else, when the edit flips an operator, a number or a keyword (`if n == 0`
# -> `if n == 1`, `<` -> `<=`, `elif` -> `if`, `True` -> `False`): the one line a reviewer of a
# release must not miss, and a cheap one.
FLIPPED: Final = 0.95
EDITED_QUOTED: Final = 1.7  # … where only a quoted string changed (a version, a date, a message): after those
MOVED: Final = 1.75  # … a definition or error line removed and added again in its file (moved, re-indented)
# The bodies' levels (raised with the distance from a definition or error, up to a span):
SOURCE_CODE: Final = 1.2  # another changed line of code in a source file: before every other body line
TASK_LINE: Final = 1.15  # a line naming the task that is not a change or definition (+ offset): before those
OTHER_CODE: Final = 3.0  # a changed line of code in a file that is not source (+ offset)
UNCHANGED: Final = 3.3  # an unchanged line of a hunk (+ offset)
PROSE: Final = 3.5  # a changed comment or blank line
NO_NEWLINE: Final = 7.0  # `\ No newline at end of file`: with the line before it
SOURCE_SPAN: Final = 0.3  # a source's changed code, far from a definition, stays ahead of the other bodies
BODY_SPAN: Final = 2.0  # the other bodies, far from a definition
REMOVED_AFTER: Final = 0.001  # an edited line's removed line, just after its added line (which brings it)
EDITS: Final = (FLIPPED, EDITED, EDITED_QUOTED)  # a line edited in place: shown with its removed line
ASKED: Final = 0.96  # a changed line or definition naming the task: after the flips, before the rest
LINKED: Final = 0.9  # a changed line of a hunk the failing tests lead to: before every other change
_SOURCE_STEPS: Final = [far / REACH * SOURCE_SPAN for far in range(REACH + 1)]  # (by distance, up to REACH)
_BODY_STEPS: Final = [far / REACH * BODY_SPAN for far in range(REACH + 1)]
TASK_GROUP: Final = -1  # the group of the task's lines (a file's group is its header line's index)
HEADERS_AFTER_EDITS: Final = 0.08  # a source file's header (1.6) after its edits (1.65)


def _after_its_added(i: int, level: float, edited: dict[int, tuple[int, ...]]) -> float:
    """Line i's level, a hair later when it is an edit's removed line: taken right after the
    added line that brings it (see small_edits), never first and alone."""
    return level + REMOVED_AFTER if edited.get(i) == () else level


def _moved(lines: Sequence[str], outline: dict[int, str]) -> list[int]:
    """The changed definition and error lines whose text (white space aside) is both removed
    and added in their file: code moved or re-indented (`raise ValueError(` one level out), not
    a change of behaviour. Still kept by tier 2; taken by a cut after the lines edited in place.
    (outline: the lines that are not plain changes or context, in order, each with what it is.)"""
    files: list[dict[int, tuple[str, str]]] = [{}]  # per file, its definition and error lines, signed
    first = True  # (the first file's lines are those before its line too)
    for i, kind in outline.items():
        if kind == "file":
            if not first:
                files.append({})
            first = False
        elif kind in ("definition", "error"):
            files[-1][i] = (lines[i][0], " ".join(lines[i][1:].split()))
    moved: list[int] = []
    for signed in files:
        said = set(signed.values())
        moved += [i for i, (sign, text) in signed.items() if ("+" if sign == "-" else "-", text) in said]
    return moved


def small_edits(lines: Sequence[str]) -> dict[int, tuple[int, ...]]:
    """The removed and added lines that are the same line edited a little: a run of `-` lines then a run of
    `+` lines, paired in order, each pair alike (see _alike) but not equal. A flipped condition or a
    changed constant reads like this; new code does not. Each added line maps to its removed line
    (shown with it), each removed line to nothing."""
    found: dict[int, tuple[int, ...]] = {}
    for run in _EDIT_RUN.finditer(_signs(lines)):  # (each run of `-` lines and the `+` lines after it)
        i, minus_end, plus_end = run.start(), run.end(1), run.end()
        if plus_end - minus_end == minus_end - i and minus_end - i <= 8:
            for a, b in zip(range(i, minus_end), range(minus_end, plus_end)):
                old, new = lines[a][1:].strip(), lines[b][1:].strip()
                if old != new and old and _alike(old, new):
                    found[a], found[b] = (), (a,)
    return found


_EDIT_RUN = re.compile(r"(-+)\+*")


def _signs(lines: Sequence[str]) -> str:
    """One character per line: its first (`-` a removed line, `+` an added one), but `=` for a
    line starting `---` or `+++` (a file's header, not an edit) and for an empty one."""
    signs = [line[:1] or "=" for line in lines] if "" in lines else list(map(itemgetter(0), lines))
    for i in compress(count(), map(str.startswith, lines, repeat(_HEADS))):
        signs[i] = "="
    return "".join(signs)


_HEADS: Final = ("---", "+++")


_TOKEN = re.compile(r"\w+|[^\w\s]")
_FLIPS = re.compile(r"\d|[<>=!+\-*/%&|^~]|(?:if|elif|else|and|or|not|is|in|True|False|None|true|false|null|nil)\Z")


def flipped(old: str, new: str) -> bool:
    """An edit that flips a condition or a constant: the tokens that differ, a few on each side,
    include a number, an operator or a keyword of logic (`==` -> `!=`, `0` -> `1`, `elif` ->
    `if`, `and` -> `or`), and none is a word of prose or a name (a typo fixed, a rename). A
    comma or a bracket alone (a reformat) is not a flip."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    changed = a[head : len(a) - tail] + b[head : len(b) - tail]
    if not changed or len(changed) > 6:
        return False
    flips = [t for t in changed if _FLIPS.match(t)]
    words = [t for t in changed if t[0].isalpha() or t[0] == "_"]
    return bool(flips) and all(_FLIPS.match(t) for t in words)


def _alike(old: str, new: str) -> bool:
    """Two lines that share most of their text at both ends (over 60 % of their length): one
    edited in the middle (`if n == 0:` / `if n == 1:`), not one rewritten."""
    head = _common_head(old, new)
    tail = _common_tail(old, new, min(len(old), len(new)) - head)
    return (head + tail) * 2 > 0.6 * (len(old) + len(new))


def _common_head(a: str, b: str) -> int:
    """How many characters a and b share at their start (a binary search comparing slices: a
    step a character in Python cost more than the rest of the diff's edits)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_tail(a: str, b: str, most: int) -> int:
    """How many characters a and b share at their end, at most `most`."""
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle :] == b[len(b) - middle :]:
            low = middle
        else:
            high = middle - 1
    return low


def _in_quotes(line: str, other: str) -> bool:
    """Whether the text where two lines differ lies inside a quoted string of `line` (a
    version or a date bumped, a message reworded), not in its code."""
    before = line[: _common_head(line, other)]
    return any(before.count(q) % 2 == 1 for q in ("'", '"', "`"))


_COMPARES = re.compile(r"(?:==|!=|<=|>=|<|>|\bin|\bis|\bcase|\bwhen)\s*$")


def _compared(line: str, other: str) -> bool:
    """Whether the quoted string two lines differ in is a value the code compares
    (`if sign == "-"` -> `if sign == "+"`, `case 'fill':`): logic, not a message or a version."""
    before = line[: _common_head(line, other)]
    opening = max(before.rfind(q) for q in ("'", '"', "`"))
    return opening > 0 and _COMPARES.search(line[:opening].rstrip(" ([{,")) is not None


def _in_docstring(quotes: _Quotes, i: int) -> bool:
    """Whether changed line i of a Python hunk is inside a triple-quoted string (a docstring:
    prose), read from its hunk's new side: the nearest triple quote below it closes one (a lone
    triple quote, or text ending with one) and the nearest above opens one (one starting with
    it, not closed on its line) or there is none (the hunk starts inside it)."""
    below = quotes.nearest(i, 1)
    if below is None or not _closes(below):
        return False
    above = quotes.nearest(i, -1)
    return above is None or _opens(above)


_TRIPLE = ('"""', "'''")


class _Quotes:
    """The nearest line of a hunk above or below a line (new side) holding a triple quote, each
    line of a diff walked at most once each way: a hunk of thousands of edited Python lines
    asks for every one of them (a walk from each was quadratic)."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self.past: tuple[dict[int, int | None], dict[int, int | None]] = ({}, {})  # per way: line -> nearest

    def nearest(self, i: int, step: int) -> str | None:
        lines, past = self.lines, self.past[step < 0]
        walked = [i]
        found = None
        j = i + step
        while 0 <= j < len(lines) and lines[j][:1] in (" ", "+", "-"):
            if lines[j][0] != "-" and any(q in lines[j] for q in _TRIPLE):
                found = j
                break
            if j in past:  # (the nearest past j: j itself holds none)
                found = past[j]
                break
            walked.append(j)
            j += step
        for k in walked:
            past[k] = found
        return lines[found][1:].strip() if found is not None else None


def _closes(text: str) -> bool:
    return text in _TRIPLE or text.endswith(_TRIPLE) and not text.startswith(_TRIPLE)


def _opens(text: str) -> bool:
    body = text.lstrip("rbuRBUfF")
    return body in _TRIPLE or body.startswith(_TRIPLE) and not (len(body) > 3 and body.endswith(_TRIPLE))


def names_new_path(line: str) -> bool:
    """A `+++ b/path` line of a file that is not deleted (`+++ /dev/null`)."""
    return line.startswith("+++ ") and line_path(line, "+++ ").strip() != "/dev/null"


def _distances(
    asked: Sequence[int], hunk_of: Callable[[int], tuple[int, ...]], keys: dict[tuple[int, ...], list[int]]
) -> list[int]:
    """How many lines from each line asked (in order, a hunk's lines together) the nearest of
    its hunk's key lines (in order) is, REACH in a hunk without one: a walk along each hunk's
    keys, not a search per line. (Most hunks' only key is their header, above every line.)"""
    out: list[int] = []
    for hunk, group in groupby(asked, hunk_of):
        lines = list(group)
        marks = keys.get(hunk)
        if not marks:
            out += [REACH] * len(lines)
        elif lines[0] >= marks[-1]:  # (every line below the last key)
            last = marks[-1]
            out += [i - last for i in lines]
        else:
            at, n = 0, len(marks)  # the first key at or after the line
            for i in lines:
                while at < n and marks[at] < i:
                    at += 1
                above = i - marks[at - 1] if at else marks[at] - i  # (none above: the key below)
                out.append(above if at == n else min(above, marks[at] - i))
    return out
