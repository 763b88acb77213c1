"""What a JSON cut must keep at tier 2, checked on what it wrote: every key of every object it
shows, and each long array's first and last items (the seed's must set). A cut that breaks it
is not tier 2 but tier 3, marked as such (the engine asks through `Plan.tier2_check`)."""

from __future__ import annotations

from typing import Any

from ctxguard.kinds.json.units import HEAD, TAIL

_GAP_KEYS = ({"_truncated"}, {"_ctxguard_truncated"})


def broken(original: Any, shown: Any, path: str = "$") -> str | None:
    """Where `shown` (a cut's parsed content) breaks the must set of `original`, in a sentence;
    None when it keeps it."""
    if isinstance(original, dict):
        if not isinstance(shown, dict):
            return f"{path} is no longer an object"
        for key, value in original.items():
            if key not in shown:
                return f"{path} lost its key {key!r}"
            found = broken(value, shown[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(original, list):
        if not isinstance(shown, list):
            return f"{path} is no longer an array"
        return _array(original, shown, path)
    return None


def _array(original: list[Any], shown: list[Any], path: str) -> str | None:
    at = 0
    kept: set[int] = set()
    for item in shown:
        left = _omitted(item)
        if left is not None:
            at += left
            continue
        if at >= len(original):
            return f"{path} shows more items than it has"
        found = broken(original[at], item, f"{path}[{at}]")
        if found is not None:
            return found
        kept.add(at)
        at += 1
    n = len(original)
    if n > HEAD + TAIL and not ({*range(HEAD), *range(n - TAIL, n)} <= kept):
        return f"{path} (an array of {n}) does not keep its first {HEAD} and last {TAIL} items"
    return None


def _omitted(item: Any) -> int | None:
    """How many items a gap note (`{"_truncated": "N items omitted"}`) stands for, else None."""
    if not isinstance(item, dict) or set(item) not in _GAP_KEYS:
        return None
    says = next(iter(item.values()))
    words = says.split() if isinstance(says, str) else []
    if len(words) == 3 and words[0].isdigit() and words[1] in ("item", "items") and words[2] == "omitted":
        return int(words[0])
    return None
