"""JSON documents and JSON Lines: read once into a JsonDoc; every key kept, failing items of a
report first, always valid JSON."""

from __future__ import annotations

import json

from ctxguard.kinds.base import KindOf, not_shown
from ctxguard.kinds.json.model import JsonDoc, loads, parse, read, valid
from ctxguard.kinds.json.plan import plan
from ctxguard.kinds.json.probes import probes
from ctxguard.kinds.json.sink import JsonSink
from ctxguard.kinds.json.units import outliers
from ctxguard.options import Options
from ctxguard.tokens.base import Tokenizer


def notes(doc: JsonDoc) -> tuple[str, ...]:
    return () if doc.parsed is not None else ("content is not valid json; kept whole as text",)


_NOTES = ("_truncated", "_ctxguard_truncated")


def hollow(content: str) -> bool:
    """A cut that holds nothing but its marker and notes that values were omitted."""

    def empty(value: object) -> bool:
        if isinstance(value, str):
            return value.startswith("[TRUNCATED")
        if isinstance(value, dict):
            return all(key in _NOTES for key in value)
        if isinstance(value, list):
            return all(empty(item) for item in value)
        return False

    try:
        return empty(loads(content))
    except ValueError:
        return False


def sniff(head: str, text: str) -> bool:
    """A document that starts with `{` or `[` and parses whole (JSON Lines too)."""
    stripped = head.lstrip()
    if not stripped or stripped[:1] not in "{[":
        return False
    found = parse(text)
    return found is not None and not found[1]


_IDS = ("nodeid", "id", "name", "fullname", "title", "testname", "ruleid", "file", "path", "filepath")


def _identity(item: object) -> str | None:
    """What names an item in a cut: its id-like string (`nodeid`, `id`, `name`, `title`, …)."""
    if not isinstance(item, dict):
        return None
    for key, value in item.items():
        if key.lower() in _IDS and isinstance(value, str) and value:
            return value
    return None


def _failing(value: object) -> list[str]:
    """The names of the failing items of every array of four or more (ctxguard.kinds.json.units:
    outliers), anywhere in the document."""
    found: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            if len(node) >= 4:
                found += [name for j, fails in outliers(node).items() if fails and (name := _identity(node[j]))]
            stack.extend(node)
    return found


def left_out(doc: JsonDoc, content: str) -> tuple[str, int, int]:
    """The failing items of a report (a failed test, an error) a cut does not name."""
    if doc.parsed is None:
        return "failing items", 0, 0
    values, lines, _ = doc.parsed
    wanted = _failing(values if lines else values[0])
    return "failing items", not_shown([_quoted(name) for name in wanted], content), len(wanted)


def _quoted(text: str) -> str:
    """A string as JSON writes it (quotes included), as a cut shows it."""
    return json.dumps(text, ensure_ascii=False)


def bare(marker: str) -> tuple[str, str]:
    """A cut that fits none of the document: the marker line as a JSON string (it still parses)."""
    return json.dumps(
        marker, ensure_ascii=False
    ), "no part of the JSON fits the budget with its keys; only the marker is shown"


def _sink(tokenizer: Tokenizer, budget: int, options: Options) -> JsonSink:
    """A big JSON file's streaming sink: its document kept within a room, cut by the plan."""
    return JsonSink(tokenizer, budget, options)


KIND = KindOf(
    "json",
    read,
    plan,
    probes,
    notes,
    sink=_sink,  # (not `sink`: the name of the module it comes from)
    hollow=hollow,
    suffixes=(".json", ".jsonl", ".ndjson", ".geojson"),
    sniff=sniff,
    fence="json",
    offload="json",
    head_cut=False,  # (a head cut would not parse: a cut that fits nothing is its marker alone)
    bare=bare,
    valid=valid,
    left_out=left_out,
    first=(
        "every key path; items of an array (of four or more) that differ from their siblings (a rare "
        "`status`/`outcome`/`state`/`level` value, a filled `error`/`crash`/`longrepr`/`failureMessages` "
        "field) with their messages' first lines, the failing ones before those that differ without "
        "failing (`skipped`, `subtests passed`); inside them, what names each and why it differs first "
        "for all of them (a message several of them say, with the first that says it), their "
        "durations, line numbers, tags, passed phases and long tracebacks after"
    ),
    last=(
        "maps keyed by numbers or ids (a coverage report's statement maps and counts: their keys are kept "
        "by tier 2, their values go with an array's middle items); the middle of long uniform arrays, "
        "spread evenly; the rest of long strings"
    ),
)

__all__ = ["KIND", "JsonDoc", "loads", "parse", "read"]
