"""Artifact type: explicit choice first, then the file name, then the content; each kind
declares its file names (`suffixes`) and how its content is told (`sniff`)."""

from __future__ import annotations

from pathlib import PurePath

from ctxguard.kinds.registry import FALLBACK, KINDS, SNIFFED, SUFFIXES, WITHIN
from ctxguard.options import TYPES, KindName

# (from the registry's tables: telling a kind by its name imports no kind)
_BY_SUFFIX: dict[str, KindName] = {suffix: name for name, suffixes in SUFFIXES.items() for suffix in suffixes}
_WITHIN: dict[str, list[KindName]] = {}
for _name in KINDS:
    for _suffix in WITHIN.get(_name, ()):
        _WITHIN.setdefault(_suffix, []).append(_name)


def classify(name: str, text: str, explicit: str | None = None) -> KindName:
    """The artifact type for a name and its content (an explicit type is one of TYPES: the
    config and the command line check it)."""
    if explicit:
        if explicit not in TYPES:
            raise ValueError(f"type must be one of {', '.join(TYPES)} (got {explicit!r})")
        return KINDS[explicit].name
    suffix = PurePath(name).suffix.lower()
    for told in _WITHIN.get(suffix, ()):  # (a kind told by its content under another's suffix)
        said = KINDS[told].sniff
        if said is not None and said(text[:8192], text):
            return KINDS[told].name
    by_suffix = _BY_SUFFIX.get(suffix)
    if by_suffix:
        return KINDS[by_suffix].name
    return sniff(text)


def sniff(text: str) -> KindName:
    """Guess a type from the first few kilobytes of content."""
    head = text[:8192]
    for name in SNIFFED:
        said = KINDS[name].sniff
        if said is not None and said(head, text):
            return KINDS[name].name
    return KINDS[FALLBACK].name
