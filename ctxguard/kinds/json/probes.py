"""A JSON document's probes: that the output parses, and every distinct key path (array
indices collapsed: `items[].id`), kept as a set (a report has them by the thousand)."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

from ctxguard.kinds.base import Probe, ProbeSet
from ctxguard.kinds.json.model import JsonDoc, parse


def probes(doc: JsonDoc) -> Sequence[Probe]:
    """The document's key paths and that it parses; none when it does not parse."""
    if doc.parsed is None:
        return []
    walked = doc.walked.get("paths")
    paths = set(walked) if walked is not None else _key_paths_of(doc.parsed[0])
    paths.discard("")  # (a top-level key "": nothing to look for)
    return KeyPaths(paths)


def key_paths(value: Any) -> set[str]:
    """Every key path of a JSON value, array indices collapsed to []."""
    paths: set[str] = set()
    add = paths.add
    stack = [(value, "")]
    pop, push = stack.pop, stack.append
    while stack:
        node, path = pop()
        if type(node) is dict:
            for key, item in node.items():
                child = f"{path}.{key}" if path else str(key)
                add(child)
                if type(item) in (dict, list):
                    push((item, child))
        elif type(node) is list:
            child = f"{path}[]"
            for item in node:
                if type(item) in (dict, list):
                    push((item, child))
    return paths


def is_json(text: str) -> bool:
    """Whether a text parses as a JSON document or JSON Lines (the "parses" probe's test)."""
    return _parse_any(text) is not None


def _parse_any(text: str) -> list[Any] | None:
    """A JSON document, or JSON Lines, as a list of values; None if neither parses."""
    found = parse(text)
    return found[0] if found is not None else None


_PARSES = Probe("parses", "output is valid JSON")


class KeyPaths(ProbeSet):
    """A JSON document's probes: that the output parses, and one per distinct key path.

    Held as a set of paths (a big document has tens of thousands): measure compares sets, and
    the Probe objects, sorted by path, are made only when the probes are listed.
    """

    def kept_in(self, content: str) -> tuple[int, Callable[[], tuple[Probe, ...]]]:
        """How many a content keeps: the paths it shows (read leniently when it does not parse:
        what a reader can still see of a cut document) and whether it parses."""
        values = _parse_any(content)
        parsed = values is not None
        shown = _key_paths_of(values) if values is not None else set(prefix_key_paths(content))
        gone = self.paths - shown
        return len(self) - len(gone) - (not parsed), functools.partial(_missed_paths, parsed, gone)

    def __init__(self, paths: set[str]) -> None:
        self.paths = frozenset(paths)

    def __len__(self) -> int:
        return 1 + len(self.paths)

    @overload
    def __getitem__(self, index: int) -> Probe: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Probe]: ...

    def __getitem__(self, index: int | slice) -> Probe | Sequence[Probe]:
        return self._listed[index]

    @functools.cached_property
    def _listed(self) -> list[Probe]:
        return [_PARSES, *(Probe("key", path) for path in sorted(self.paths))]


def _missed_paths(parsed: bool, gone: frozenset[str]) -> tuple[Probe, ...]:
    return (*(() if parsed else (_PARSES,)), *(Probe("key", path) for path in sorted(gone)))


def _key_paths_of(values: list[Any]) -> set[str]:
    """The key paths of every value (as far as the recursion limit lets them be read)."""
    paths: set[str] = set()
    for value in values:
        try:
            paths.update(key_paths(value))
        except RecursionError:
            break
    return paths


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')


def prefix_key_paths(text: str) -> Iterator[str]:
    """Key paths of a JSON text that may be cut off or damaged: what a reader can still see."""
    stack: list[tuple[str, str]] = []  # (container kind, its path)
    pending: str | None = None  # a string that may turn out to be a key
    path = ""
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token == ":" and pending is not None and stack and stack[-1][0] == "{":
            try:
                key = json.loads(pending)
            except ValueError:
                key = pending.strip('"')
            parent = stack[-1][1]
            path = f"{parent}.{key}" if parent else str(key)
            yield path
            pending = None
            continue
        pending = token if token.startswith('"') else None
        if token in "{[":
            if stack and stack[-1][0] == "[":
                child = f"{stack[-1][1]}[]"
            elif stack:
                child = path
            else:
                child = ""
            stack.append((token, child))
        elif token in "}]" and stack:
            stack.pop()
            path = stack[-1][1] if stack else ""
        elif token == "," and stack and stack[-1][0] == "{":
            path = stack[-1][1]
