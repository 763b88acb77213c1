"""The salient Tier 3 of JSON: a hard cut that stays valid JSON.

Still a Tier 3 cut under the contract (truncated, the `[TRUNCATED: …]` marker, within budget):
arrays and strings shortened, then the key skeleton with types and values filled in
breadth-first, then keys kept breadth-first; the marker is a value. (The other types are
planned and packed: ctxguard.plan, ctxguard.packer.)

The marker's N counts the raw tokens less the tokens of what is shown.
"""
from __future__ import annotations

import bisect
import functools
import json
from collections import deque
from collections.abc import Callable
from typing import Any

from ctxguard.handlers.base import CLOSE_SLACK, ESTIMATE_SLACK, plural
from ctxguard.handlers.json import _LEVELS as JSON_LEVELS
from ctxguard.handlers.json import SHRINK_LEVELS, shrink, shrink_lengths
from ctxguard.handlers.json import values as json_values
from ctxguard.tiers import marker, tokens_per_char
from ctxguard.tokens import Encoded

# A JSON candidate whose estimate (tokens.Encoded.estimate) is this far over room is passed
# over without an exact count: the estimate errs by under 1.5 %, and a compact candidate of a
# big document costs as much to count as half the raw text.
_SURELY_OVER = 1.02


def salient_cut(encoded: Encoded, room: int) -> str | None:
    """The salient cut of a JSON text within room tokens (marker included), or None."""
    try:
        content = _json(encoded, room)
    except RecursionError:
        return None
    if content is None or encoded.recount(content) > room:
        return None
    return content


# --- JSON: always valid JSON, the marker carried as a value ---------------------------------

def _json(encoded: Encoded, room: int) -> str | None:
    text = encoded.text
    found = json_values(text)
    if found is None:
        return None
    values, jsonl = found
    content = _json_first_fit(*_json_candidates(values, jsonl), encoded, room, jsonl)
    if content is None:
        top = _merge(values) if jsonl else values[0]
        content = _json_first_fit(*_json_pruned(top), encoded, room, jsonl)
    return content


def _json_first_fit(makers: list[Callable[[], list[Any]]], lengths: Lengths,
                    encoded: Encoded, room: int, jsonl: bool) -> str | None:
    """The first candidate that fits with its marker, or None. lengths(i) tells candidate i's
    written length without writing it, where it can (else None): never more than the written
    length, and within a few % of it."""
    bodies: dict[int, tuple[list[Any], str]] = {}

    def body(i: int) -> tuple[list[Any], str]:
        if i not in bodies:
            candidate = makers[i]()
            bodies[i] = (candidate, _dump_all(candidate, jsonl))
        return bodies[i]

    # Candidates run from mild to strong and shrink as they go. The first one worth counting
    # (estimated within 1.3 x room) is found by bisection, a handful of builds instead of
    # dozens; from there on, as a linear walk would: count, and estimate the next ones with
    # the density of the last one counted.
    density = tokens_per_char(encoded)
    slack = ESTIMATE_SLACK
    low, high = 0, len(makers) - 1
    while low < high:
        mid = (low + high) // 2
        size = lengths(mid)
        if (len(body(mid)[1]) if size is None else size) * density <= room * slack:
            high = mid
        else:
            low = mid + 1
    for i in range(low, len(makers)):
        size = lengths(i)
        if size is not None and size * density > room * slack:
            continue  # not worth writing
        candidate, dumped = body(i)
        if len(dumped) * density > room * slack:
            continue
        guess = encoded.estimate(dumped)
        if guess > room * _SURELY_OVER:  # as after a count: the next are judged by its density
            density, slack = guess / max(1, len(dumped)), _SURELY_OVER
            continue
        opened = None if jsonl else _opened(candidate[0], dumped)
        if opened is None:
            shown = encoded.recount(dumped)
            content = _dump_all(_attach(candidate, marker(max(1, encoded.count - shown)), jsonl), jsonl)
        else:
            # The marker goes in on a line of its own, so counting the content encodes only
            # that line: the rest is the text just counted as shown.
            shown = encoded.recount(opened)
            content = opened + _marker_entry(candidate[0], marker(max(1, encoded.count - shown)))
        if encoded.recount(content) <= room:
            return content
        density, slack = shown / max(1, len(dumped)), CLOSE_SLACK
    return None


def _opened(value: Any, dumped: str) -> str | None:
    """A dumped object or array reopened for one more entry: its text without the closing
    bracket, ending in a line break (after a comma when it has entries). None for a scalar."""
    if type(value) not in (dict, list):
        return None
    return dumped[: -len("}\n")] + (",\n" if value else "\n")


def _marker_entry(value: Any, note: str) -> str:
    """The marker as the last entry of a reopened object or array, and its closing bracket."""
    if type(value) is dict:
        key = "_truncated" if "_truncated" not in value else "_ctxguard_truncated"
        return f"{json.dumps(key)}:{json.dumps(note, ensure_ascii=False)}}}\n"
    return f"{json.dumps(note, ensure_ascii=False)}]\n"


def _dump_all(values: list[Any], jsonl: bool) -> str:
    if jsonl:
        return "".join(json.dumps(v, ensure_ascii=False, separators=(",", ":")) + "\n" for v in values)
    return json.dumps(values[0], ensure_ascii=False, separators=(",", ":")) + "\n"


def _attach(values: list[Any], note: str, jsonl: bool) -> list[Any]:
    """JSON Lines get the marker as a last row; a scalar document carries it with its value.
    (Objects and arrays take it as a last entry: _opened and _marker_entry.)"""
    if jsonl:
        return [*values, {"_truncated": note}]
    value = values[0]
    if isinstance(value, str):
        return [f"{value} {note}"]
    return [[value, note]]


# A candidate's written length, worked out without writing it, by its index; None if it cannot be.
Lengths = Callable[[int], int | None]


def _json_candidates(values: list[Any], jsonl: bool) -> tuple[list[Callable[[], list[Any]]], Lengths]:
    """Mild to strong: shortened arrays and strings, then skeletons (all keys kept), then fewer
    keys (_json_pruned). Each is built only when called. With their written lengths (all but
    JSON Lines rows'), each walk done when first asked."""
    makers: list[Callable[[], list[Any]]] = []
    if jsonl:
        for rows in sorted({len(values), min(10, len(values)), min(2, len(values))}, reverse=True):
            for level in (JSON_LEVELS[1], JSON_LEVELS[3], JSON_LEVELS[-1]):
                makers.append(functools.partial(_shrunk_rows, values[:rows], level))
        values = [_merge(values)]
    else:
        makers.extend(functools.partial(_shrunk_rows, values[:1], level) for level in SHRINK_LEVELS)
    shrunk = len(makers)
    top = values[0]
    fills = range(_depth(top), -1, -1)
    makers.extend(functools.partial(_skeletons, top, fill) for fill in fills)
    shrunk_lengths = functools.cache(lambda: shrink_lengths(values[0], SHRINK_LEVELS))
    skeleton_length = functools.cache(lambda: _skeleton_lengths(top))

    def length(i: int) -> int | None:
        if i >= shrunk:
            return skeleton_length()(fills[i - shrunk])
        return None if jsonl else shrunk_lengths()[i] + 1  # and its newline

    return makers, length


def _json_pruned(top: Any) -> tuple[list[Callable[[], list[Any]]], Lengths]:
    """When not even every key fits: keys kept breadth-first, each dict saying how many it lost,
    fewer and fewer, down to an empty container. With their written lengths."""
    skeleton = _skeleton(top, 0)
    order, length = _bfs_order(skeleton)
    makers: list[Callable[[], list[Any]]] = []
    limits: list[int] = []
    limit = len(order)
    while limit > 1:
        limit = int(limit * 0.8)
        makers.append(functools.partial(_pruned, skeleton, order, limit))
        limits.append(limit)
    makers.append(lambda: [{}] if isinstance(top, dict) else [[]])
    return makers, lambda i: _at_most(length, limits[i]) if i < len(limits) else 3


def _shrunk_rows(rows: list[Any], level: Any) -> list[Any]:
    return [shrink(row, level) for row in rows]


def _skeletons(top: Any, fill: int) -> list[Any]:
    return [_skeleton(top, fill)]


def _pruned(skeleton: Any, order: dict[tuple[int, str], int], limit: int) -> list[Any]:
    return [_prune(skeleton, order, limit)]


# _bfs_order's lengths are within this of the written ones, either way (the notes of dicts that
# lost keys vary in length); divided by it, they are never more.
_PRUNED_LENGTH_ERROR = 1.03
_MORE_KEYS = len(',"…":"<5 more keys>"')  # the note a dict that lost keys gets, about


def _at_most(length: Callable[[int], int], limit: int) -> int:
    return int(length(limit) / _PRUNED_LENGTH_ERROR)


def _bfs_order(skeleton: Any) -> tuple[dict[tuple[int, str], int], Callable[[int], int]]:
    """Each (dict, key) of the skeleton numbered in breadth-first order; and the length of the
    skeleton written compactly (newline included) with the keys numbered below a limit kept, as
    _prune keeps them, worked out from each key's share without writing it."""
    order: dict[tuple[int, str], int] = {}
    shares = [0]  # running total: what the keys numbered below i add, each with a comma
    parents: list[int] = []  # per non-empty dict: the number of the key holding it (-1: the top)
    lasts: list[int] = []  # … and the number of its last key (rising: keys are numbered in turn)
    queue = deque([(skeleton, -1)])
    while queue:
        node, parent = queue.popleft()
        if isinstance(node, dict):
            for key, value in node.items():
                order[(id(node), key)] = len(order)
                shares.append(shares[-1] + len(key) + 4 + _flat_length(value))  # "key":value,
                queue.append((value, len(order) - 1))
            if node:
                parents.append(parent)
                lasts.append(len(order) - 1)
        elif isinstance(node, list):
            queue.extend((item, parent) for item in node if isinstance(item, (dict, list)))
    parents.sort()
    top = _flat_length(skeleton) + 1  # its brackets (and a top array's other items), newline

    def length(limit: int) -> int:
        shown = bisect.bisect_left(parents, limit)  # dicts written: one comma fewer than entries
        cut = shown - bisect.bisect_left(lasts, limit)  # of those, dicts that lose keys
        return top + shares[min(limit, len(shares) - 1)] + cut * _MORE_KEYS - shown

    return order, length


def _flat_length(value: Any) -> int:
    """Length of a value written compactly, less its dicts' keys (counted on their own), and
    strings taken as needing no escapes."""
    kind = type(value)
    if kind is str:
        return len(value) + 2
    if kind is dict:
        return 2
    if kind is list:
        return 2 + sum(map(_flat_length, value)) + max(0, len(value) - 1)
    return len(json.dumps(value))


def _prune(node: Any, order: dict[tuple[int, str], int], limit: int) -> Any:
    if isinstance(node, dict):
        kept = {k: _prune(v, order, limit) for k, v in node.items() if order[(id(node), k)] < limit}
        if len(kept) < len(node):
            kept["…"] = f"<{plural(len(node) - len(kept), 'more key')}>"
        return kept
    if isinstance(node, list):
        return [_prune(item, order, limit) for item in node]
    return node


def _depth(value: Any) -> int:
    """How deep values nest (a scalar 0, {"a": 1} 1), looking at the first 50 items of arrays.
    Walked level by level through containers only: scalars, most of a document, are not visited."""
    depth, level = 0, [value]
    while level:
        below: list[Any] = []
        nested = False
        for node in level:
            items = node.values() if isinstance(node, dict) else node[:50] if isinstance(node, list) else ()
            if items:
                nested = True
                below.extend(item for item in items if isinstance(item, (dict, list)))
        depth += nested
        level = below
    return depth


def _merge(items: list[Any]) -> Any:
    """One element standing for all of an array's: the union of their keys, merged."""
    if not items:
        return None
    dicts = [item for item in items if isinstance(item, dict)]
    if dicts:
        keys: dict[str, list[Any]] = {}
        for item in dicts:
            for key, value in item.items():
                keys.setdefault(key, []).append(value)
        return {key: _merge(vals) for key, vals in keys.items()}
    lists = [item for item in items if isinstance(item, list)]
    if lists:
        return [_merge([x for sub in lists for x in sub])] if any(lists) else []
    return items[0]


_TYPE = {str: "<string>", int: "<number>", float: "<number>", bool: "<boolean>"}


def _skeleton_lengths(top: Any) -> Callable[[int], int]:
    """The length of _skeleton(top, fill) written compactly (newline included), for any fill,
    worked out in one walk: the frame (brackets, keys, notes) is the same at every fill, and
    each value is written as itself above depth fill, as its type name below."""
    as_value: dict[int, int] = {}  # by depth: the values' lengths written as themselves …
    as_type: dict[int, int] = {}  # … and as type names

    def frame(value: Any, depth: int) -> int:
        if isinstance(value, dict):
            return 1 + sum(len(key) + 4 + frame(item, depth + 1) for key, item in value.items()) + (not value)
        if isinstance(value, list):
            if not value:
                return 2
            more = len(f',"<{len(value) - 1} more items>"') if len(value) > 1 else 0
            return 2 + frame(_merge(value), depth + 1) + more
        if value is None:
            return 4
        kind = type(value)  # (strings taken as needing no escapes)
        written = min(len(value), 41) + 2 if kind is str else len(json.dumps(value))
        as_value[depth] = as_value.get(depth, 0) + written
        as_type[depth] = as_type.get(depth, 0) + len(_TYPE.get(kind, "<value>")) + 2
        return 0

    fixed = frame(top, 0) + 1

    def length(fill: int) -> int:
        return (fixed + sum(n for depth, n in as_value.items() if depth < fill)
                + sum(n for depth, n in as_type.items() if depth >= fill))

    return length


def _skeleton(value: Any, fill: int, limit: int | None = None, depth: int = 0) -> Any:
    """Keys everywhere; values down to depth `fill`, type names below; nothing past `limit`."""
    if isinstance(value, dict):
        if limit is not None and depth >= limit:
            return f"<object with {plural(len(value), 'key')}>"
        return {k: _skeleton(v, fill, limit, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        if not value:
            return []
        if limit is not None and depth >= limit:
            return f"<array of {plural(len(value), 'item')}>"
        merged = _skeleton(_merge(value), fill, limit, depth + 1)
        return [merged] if len(value) == 1 else [merged, f"<{len(value) - 1} more items>"]
    if value is None:
        return None
    if depth < fill:
        return value[:40] + "…" if isinstance(value, str) and len(value) > 40 else value
    return _TYPE.get(type(value), "<value>")
