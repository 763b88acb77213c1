"""One packer for every cut: a plan and a room in tokens -> the content.

Which units are kept at a limit of estimated tokens is ctxguard.choose's answer; the packer
searches the limit: it renders the chosen units (each run left out replaced by the plan's gap
line), counts the content exactly, and chooses again at a smaller limit while it is over the
room, at a bigger one while the room left unused could hold a unit left out. Tier 2 keeps every
must unit or gives no content. A tier-3 cut goes in two steps: the longest run of must units
(in priority order) that fits shown alone, searched by its length with each content counted,
then the other units around them (each gap estimated at what the first step's gap lines cost,
see _as_written), so a bigger room never keeps fewer must units than a smaller one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress
from operator import and_, not_
from typing import NamedTuple

from ctxguard.engine.choose import choose
from ctxguard.plan import NOT_TOLD, Omitted, Plan, Told, listing_room
from ctxguard.words import cut_line

_TRIES = 6
_UNUSED = 0.03  # a share of the room left unused that is not worth packing again for


class Fit(NamedTuple):
    """A content that fits, the units it shows, and the limit they were chosen at."""

    content: str
    chosen: list[bool]
    limit: float  # (a tier-3 cut's first step: the run's length, in must units)
    estimated: float  # the units' estimated cost (at most limit)
    size: int  # the content's tokens
    omitted: Omitted | None = None  # a tier-2 content's count of what it left out (render's tally)


class Cut(NamedTuple):
    """A tier-2 content and what it left out, counted as it was written (by its gaps, its
    clipped lines, the notes a kind writes in place): `(("line", 120), ("key", 3))`."""

    content: str
    omitted: tuple[tuple[str, int], ...]


def pack(plan: Plan, room: int, count: Callable[[str], int], marker: Callable[[int], str] | None = None) -> str | None:
    """The content of plan within room tokens, or None.

    Without a marker (tier 2) every `must` unit is kept, or there is no content (None). With
    one (tier 3) the must units are kept as far as they fit, and the marker line, given the raw
    tokens not shown, ends the content.
    """
    if marker is None:
        found = tier2(plan, room, count)
        return found.content if found is not None else None
    order, gap = _order(plan), _widest_gap(plan, count)
    return _tier3(plan, order, gap, room, count, marker)


def tier2(plan: Plan, room: int, count: Callable[[str], int]) -> Cut | None:
    """Tier 2's content of plan within room tokens, every `must` unit in, and what it left out;
    or None."""
    whole = plan.lossless(room) if plan.lossless is not None else None
    if whole is not None and count(whole) <= room:
        return Cut(whole, ())
    order, gap = _order(plan), _widest_gap(plan, count)
    limit = room - count(plan.prefix)
    for level in plan.levels or (None,):  # tier 2: the first must set that fits
        base = plan.tier2_must if plan.tier2_must is not None else plan.musts
        must = list(base) if level is None else [m or before < level for before, m in zip(plan.table.level, base)]
        if sum(compress(plan.columns[0], must)) > limit:
            continue  # (sure not to fit, without choosing)
        found = _fit(plan, order, must, gap, limit, room, count, None)
        if found is not None:
            return Cut(found.content, tuple((found.omitted or {}).items()))
    return None


def _order(plan: Plan) -> Sequence[int]:
    """The units in the order a cut takes them (the plan's, worked out once)."""
    return plan.order


def _widest_gap(plan: Plan, count: Callable[[str], int]) -> int:
    """About the widest gap line's tokens."""
    lines = max(2, plan.line_ends)  # (every raw line end the units stand for)
    return count(plan.gap(lines, lines))


def _tier3(
    plan: Plan, order: Sequence[int], gap: int, room: int, count: Callable[[str], int], marker: Callable[[int], str]
) -> str | None:
    """A tier-3 cut in two steps. First the longest run of must units, in order, that fits shown
    alone (what the probes are made of) in the room the plan's list (a cut diff's file list)
    leaves; then the list, and around those units the other units that fit. Neither the list's
    share nor the first step depends on what the second takes, and both grow with the room, so
    a bigger room never keeps fewer must units, nor list rows, than a smaller one. A room too
    small for the first must unit with what it needs (or with the units the plan puts before its
    list: a `git log -p`'s subjects) shows that unit told alone (the plan's `alone`: a diff's
    first change by its place), when that fits, and the run goes on from the next must unit."""
    listing, alone, prefix = plan.listing, plan.alone, plan.prefix
    plan = plan.but(listing=None, alone=None)
    must = plan.musts
    first = bare = 0  # the content showing the first must unit alone (with what it needs); showing none
    if listing or alone:
        first = _showing(plan, order, must, gap, count, marker, 1)
        bare = count(render(plan, [False] * len(plan.units), marker))
    more = plan.listing_after > 1 and (listing or alone)  # (units before the list beyond the first)
    ahead = _showing(plan, order, must, gap, count, marker, plan.listing_after) if more else 0
    told, told_size = _told(alone, order, must, room, max(first, ahead), bare, count)
    if told.text:
        plan = plan.but(prefix=prefix + told.text)
        if ahead:  # (the units before the list: the run goes on from the next one)
            must = list(must)
            for i in told.units:
                must[i] = False
    if listing:
        # (told beside the units before the list: the list waits for them, as when they are shown)
        shown_first = 0 if told.text and ahead else first
        listed = listing_room(listing, room, count, shown_first, bare + told_size, ahead)
    else:
        listed = 0
    found = _longest_run(plan, order, must, gap, room - listed, count, marker)
    if found is None:
        return None
    if listing is not None and listed:
        rows = listing(listed)
        plan = plan.but(prefix=prefix + rows + told.text)
        room_left = room - count(rows) - found.size  # (what the run and the list leave)
    else:
        room_left = room - found.size
    fixed = bytes(map(and_, must, found.chosen))  # the must units kept; the others left out (a byte a unit)
    # Around them, the room left: from their estimated cost on, each gap line at its cost in
    # the first step's content, a little under the room.
    written, estimated, margin = _as_written(found, gap, room)
    base = (estimated, room - room_left)  # (the run's estimated cost, its content's size with the list)
    start = (found.chosen, estimated)  # (every try goes on from them: see choose)
    skip = plan.musts  # (a unit told is left to its telling)
    filled = _fit(plan, order, fixed, written, estimated + room_left - margin, room, count, marker, skip, base, start)
    result = filled or found
    if not any(result.chosen) and order and listing is None:  # no unit fits: the first one's start
        return _clipped_first(plan, order[0], room, count, marker) or result.content
    return result.content


def _told(
    alone: Callable[[int], Told] | None,
    order: Sequence[int],
    must: Sequence[bool],
    room: int,
    first: int,
    bare: int,
    count: Callable[[str], int],
) -> tuple[Told, int]:
    """The first must unit told on its own (the plan's `alone`) and its tokens, when the room
    cannot show that unit with what it needs (`first`: the content that does, or that shows the
    units before the list) and the telling fits beside the content showing no unit (`bare`);
    else nothing."""
    if alone is None or room >= first:
        return NOT_TOLD, 0  # (a plan without must units: first is 0)
    told = alone(next(i for i in order if must[i]))
    size = count(told.text) if told.text else 0
    return (told, size) if told.text and size + bare <= room else (NOT_TOLD, 0)


_SAYS_GAP = 16  # gaps in a content enough to tell what a gap line costs (not the marker line's share)
_MARGIN = 512  # the fill's aim under the room, as a share of it: 1/512, about 0.2 %


def _as_written(found: Fit, gap: int, room: int) -> tuple[float, float, int]:
    """The gap for the second step of a tier-3 cut, the first step's cost at that gap, and how
    far under the room to aim. The first step's content (found) is counted: where it left out
    _SAYS_GAP runs or more, a gap line costs what its gap lines cost on average (between one
    token and the widest gap line, `gap`, which is too high on the gaps the fill closes and
    made it overshoot), and the fill aims a little under the room, as its estimate is still
    off by a little (docs/design.md, how the packer finds what fits). Fewer runs: the widest
    gap line, at the room."""
    runs = sum(map(and_, map(not_, found.chosen), (True, *found.chosen)))  # (a unit left out after one shown)
    if runs < _SAYS_GAP:
        return gap, found.estimated, 0
    written = min(gap, max(1.0, gap - (found.estimated - found.size) / runs))
    return written, found.estimated - runs * (gap - written), room // _MARGIN


def _showing(
    plan: Plan,
    order: Sequence[int],
    must: Sequence[bool],
    gap: int,
    count: Callable[[str], int],
    marker: Callable[[int], str],
    most: int,
) -> int:
    """The tokens of the content showing the first `most` must units in order (with what they
    need) and no other unit; 0 when it shows none."""
    found = choose(plan, order, must, gap, 0, fill=False, most=most)
    return count(render(plan, found[0], marker)) if found is not None and any(found[0]) else 0


def _longest_run(
    plan: Plan,
    order: Sequence[int],
    must: Sequence[bool],
    gap: int,
    room: int,
    count: Callable[[str], int],
    marker: Callable[[int], str],
) -> Fit | None:
    """The content of the longest run of must units, in order, that fits room, found by its
    length, each content counted (not estimated: gap lines vary, and a unit shown can close
    one): growing it fourfold while it fits, then halving the interval between the longest
    that fit and the shortest that did not, until their estimated costs differ by a 64th (what
    the second step fills). First, when all of them are estimated to fit, all of them, counted:
    if they fit, that is the run. The lengths tried depend only on which of those tried fit,
    and a length that fits a room fits every bigger one, so a bigger room never ends on a
    shorter run, even where a longer run's content is shorter (it closes a gap)."""

    def chosen(length: int) -> tuple[list[bool], float]:
        found = choose(plan, order, must, gap, room, fill=False, most=length)
        assert found is not None  # (its must units are forced: nothing fails to fit)
        return found

    def run(length: int, found: tuple[list[bool], float] | None = None) -> Fit:
        kept, estimated = found or chosen(length)
        content = render(plan, kept, marker)
        return Fit(content, kept, length, estimated, count(content))

    fitted = run(0)
    most = sum(must)
    if fitted.size > room:
        return None
    if most and (every := chosen(most))[1] <= room:  # (estimated to fit: often all do; one try, not many)
        whole = run(most, every)
        if whole.size <= room:
            return whole
    while fitted.limit < most:
        over = run(min(most, max(1, int(fitted.limit) * 4)))
        if over.size > room:
            break
        fitted = over
    else:
        return fitted
    while over.limit - fitted.limit > 1 and over.estimated - fitted.estimated > max(gap, fitted.estimated // 64):
        found = run(int(fitted.limit + over.limit) // 2)
        if found.size > room:
            over = found
        else:
            fitted = found
    return fitted


def _fit(
    plan: Plan,
    order: Sequence[int],
    must: Sequence[bool | int],
    gap: float,
    limit: float,
    room: int,
    count: Callable[[str], int],
    marker: Callable[[int], str] | None,
    skip: Sequence[bool] | None = None,
    base: tuple[float, int] | None = None,
    start: tuple[list[bool], float] | None = None,
) -> Fit | None:
    """Choose and render, packing again into a smaller limit while the content is over room,
    and into a bigger one while the room left unused could hold a unit left out (the gaps' cost
    is estimated: a plan's gap lines vary), keeping the content of the biggest limit that fit.
    While every limit tried fits, the next is as much bigger as the room left, or more where the
    sizes grow slower than the limits (base: the limit and size of what every try keeps, a
    tier-3 cut's must units; see _toward; start: the units it chose, which every try goes on
    from, and their estimated cost). Once a limit that fits and one over are known, the
    next lies where the line between the two sizes meets the room (but not in the outer quarters
    of the interval: sizes jump where a big unit comes in)."""
    fitted: Fit | None = None  # the best content
    below = base  # the last fit's (limit, size): with the next, the slope _toward follows
    over_at, over_size = None, 0  # the least limit over, and its size

    def between(fits: Fit, over: float) -> float:
        if over_size <= fits.size:
            return (fits.limit + over) // 2
        guess = fits.limit + (room - fits.size) * (over - fits.limit) // (over_size - fits.size)
        quarter = max(1, (over - fits.limit) // 4)  # (never near an end: the sizes can jump)
        return min(max(guess, fits.limit + quarter), over - quarter)

    for _ in range(_TRIES):
        found = choose(plan, order, must, gap, limit, True, skip, start=start)
        if found is None:
            return fitted
        chosen, estimated = found
        tally: Omitted | None = {} if marker is None else None  # (tier 2 says what it left out)
        content = render(plan, chosen, marker, tally)
        size = count(content)
        over = size - room
        if over > 0:
            if over_at is None or limit < over_at:
                over_at, over_size = limit, size
            if fitted is not None:
                if over_at - fitted.limit <= 1:
                    return fitted  # (no limit between the last fit and this one)
                limit = between(fitted, over_at)
                continue
            # Tier 2: the fillers cost more than estimated; without a few, the must units stand
            # (a smaller limit might not hold them all). A tier-3 cut's must units are fixed first.
            trimmed = _trim(plan, order, must, chosen, room, count, limit) if marker is None else None
            if trimmed is not None:
                return trimmed
            limit -= over + 2
        elif -over <= room * _UNUSED or -over < min(compress(plan.columns[0], map(not_, chosen)), default=room + 1):
            # (little is left, or no unit left out would fit there)
            return Fit(content, chosen, limit, estimated, size, tally)
        else:
            before, fitted = below, Fit(content, chosen, limit, estimated, size, tally)
            below = (limit, size)
            if over_at is not None and over_at - fitted.limit <= 1:
                return fitted
            limit = _toward(fitted, before, room) if over_at is None else between(fitted, over_at)
    return fitted


def _toward(fits: Fit, before: tuple[float, int] | None, room: int) -> float:
    """The next limit while every one tried fit: a token of limit per token of room left, or
    further when the sizes grow slower than the limits (gaps estimated as the widest gap line
    and written as `…`): where the line through the fit before (limit, size) and this one
    reaches halfway into the share of room not worth packing again for."""
    step: float = room - fits.size
    if before is not None and fits.limit > before[0] and fits.size > before[1]:
        aim = room - int(room * _UNUSED / 2)
        step = max(step, (aim - fits.size) * (fits.limit - before[0]) // (fits.size - before[1]))
    return fits.limit + step


LEAST_CLIP = 24  # characters: a clipped line shorter than this says too little to be worth showing
CLIP_REACH = 4  # a first unit up to this many times the room is clipped to fit


def _clipped_first(
    plan: Plan, first: int, room: int, count: Callable[[str], int], marker: Callable[[int], str]
) -> str | None:
    """The content showing only the first unit taken, its line cut to what fits (`start...
    (N chars omitted)`, as a line over MAX_LINE is shown), when the unit alone is over the room
    (the first error of a compiler's log at 64 tokens): the start of what matters most says
    more than gap lines alone. None for a plan that writes its own syntax, a unit that is not
    one whole line (or one clipped already), or one needing others shown with it."""
    unit = plan.units[first]
    if plan.write is not None or unit.anchors or unit.cost > CLIP_REACH * room or unit.text.count("\n") != 1:
        return None  # (a line many times the room is a wall of text: the tiers' head cut shows it)
    if not unit.text.endswith("\n") or unit.clipped:
        return None  # (a line clipped already: the tiers' head cut shows more of it)
    body = unit.text.rstrip("\r\n")
    chosen = [i == first for i in range(len(plan.units))]
    texts = list(plan.texts)  # (one copy: only the first unit's text changes between tries)
    clipped = plan.showing(texts)

    def content(chars: int) -> str:
        texts[first] = cut_line(body, len(body), chars)  # (a line still: the plan's line ends stand)
        return render(clipped, chosen, marker)

    low, high = 0, len(body) - 1  # the most characters that fit
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if count(content(middle)) <= room else (low, middle - 1)
    return content(low) if low >= LEAST_CLIP and count(content(low)) <= room else None


def _trim(
    plan: Plan,
    order: Sequence[int],
    must: Sequence[bool | int],
    chosen: list[bool],
    room: int,
    count: Callable[[str], int],
    limit: float,
) -> Fit | None:
    """A tier-2 content without the last few units taken after the must units (an inline gap, a
    join, made it longer than estimated), if that fits: a smaller limit might not hold every must
    unit, and tier 2 keeps them all or is not tier 2."""
    kept = list(chosen)
    needed = {j for anchors in compress(plan.columns[1], kept) for j in anchors}
    for i in [i for i in reversed(order) if kept[i] and not must[i] and i not in needed][:_TRIES]:
        kept[i] = False
        tally: Omitted = {}
        content = render(plan, kept, None, tally)
        size = count(content)
        if size <= room:
            return Fit(content, kept, limit, limit, size, tally)
    return None


def render(
    plan: Plan, chosen: Sequence[bool], marker: Callable[[int], str] | None = None, tally: Omitted | None = None
) -> str:
    """The chosen units in order, each run left out marked, and the marker; with a tally, what
    is left out counted into it (the gap lines' counts, the clipped lines' characters).

    A run of whole lines is the plan's gap line, given how many lines it stands for and the
    first one's number in the raw text; a run inside a line (sentences of a paragraph) is `…`
    in place. A plan that writes its own syntax (JSON) is given the marker line. (A walk over
    the units shown, not all of them: the packer renders a plan several times.)
    """
    if plan.write is not None:
        shown = sum(compress(plan.raws, chosen))
        return plan.write(chosen, marker(max(1, plan.total - shown)) if marker is not None else None, tally)
    texts, clips, starts = plan.texts, plan.clips, plan.starts
    n = len(texts)
    kept = list(compress(range(n), chosen))
    out = [plan.prefix]
    mid = False  # the output so far ends inside a line

    def close(first: int, end: int) -> None:
        """Mark the run of units first..end-1 left out."""
        nonlocal mid
        ends = starts[end] - starts[first]  # line ends among the run's units
        if mid and ends:
            out.append("…\n")  # the rest of the line that was being shown
            mid, ends = False, ends - 1
        if ends:
            out.append(plan.gap(ends, starts[end] - ends + 1))
            if tally is not None:
                for what, n in plan.says(ends, starts[end] - ends + 1):
                    tally[what] = tally.get(what, 0) + n
        last = texts[end - 1]
        if last and not last.endswith("\n"):
            out.append("… ")  # the next unit shown starts inside a line, or goes on in one
            mid = True

    after = 0  # the unit after the last one shown
    for i in kept:
        if i > after:
            close(after, i)
        text = texts[i]
        out.append(text)
        mid = not text.endswith("\n")
        after = i + 1
        if tally is not None and clips[i]:
            tally["char"] = tally.get("char", 0) + clips[i]
    if after < n:
        close(after, n)
        if mid:
            out.append("\n")
    if marker is not None:
        out.append(marker(max(1, plan.total - sum(compress(plan.raws, chosen)))))
    return "".join(out)
