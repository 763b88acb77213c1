"""A SARIF 2.1.0 log read once: each run's tool, its results with their rule, level, message and
place, and the short description of each rule that has results.

SARIF is JSON, but what a reviewer needs of it (the results) is outweighed by the rules'
metadata (`runs[].tool.driver.rules`: help texts, properties) and each result's detail
(`fixes`, `codeFlows`, `relatedLocations`, snippets). Read here: a result's `ruleId` (or
`rule.id`), its `level` (a result without one takes its rule's `defaultConfiguration.level`,
else `warning`, as the specification says), its `message.text` (or `markdown`, or the rule's
message string its `message.id` names, with `{0}` arguments filled in), and its first location's
`uri:line:column`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ctxguard.kinds.json.model import loads
from ctxguard.literals import SURROGATE

LEVELS = ("error", "warning", "note", "none")


@dataclass(frozen=True)
class Result:
    rule: str
    level: str
    message: str
    place: str | None

    @property
    def key(self) -> str:
        """How a cut names the result: its rule and place (`F821 src/a.py:12:5`)."""
        return f"{self.rule} {self.place}" if self.place else self.rule


@dataclass
class Run:
    tool: str
    results: list[Result] = field(default_factory=list)
    rules: dict[str, str] = field(default_factory=dict)  # rule id -> its short description


@dataclass(frozen=True)
class SarifDoc:
    text: str
    runs: list[Run] | None  # None: not a SARIF log that parses


def read(text: str, name: str = "") -> SarifDoc:
    try:
        value = loads(text)
    except ValueError:
        return SarifDoc(text, None)
    if not isinstance(value, dict) or not isinstance(value.get("runs"), list):
        return SarifDoc(text, None)
    if _SURROGATE_ESCAPE.search(text):
        value = _escaped(value)
    return SarifDoc(text, [_run(run) for run in value["runs"] if isinstance(run, dict)])


# A lone surrogate's escape (`\ud800`): decoded, a string no UTF-8 output can hold.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _escaped(value: Any) -> Any:
    """The parsed log with each lone surrogate in its strings written back as its escape, as the
    file holds it (a row shows `\ud800`, where UTF-8 could write nothing). (A walk, not a
    recursion: the parse allows deeper nesting than Python's stack.)"""

    def text(s: str) -> str:
        return SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", s)

    def fixed(item: Any) -> Any:
        if isinstance(item, str):
            return text(item)
        if isinstance(item, dict):
            return {text(k): v for k, v in item.items()}
        return list(item) if isinstance(item, list) else item

    top = fixed(value)
    stack = [top]
    while stack:
        node = stack.pop()
        pairs = node.items() if isinstance(node, dict) else enumerate(node)
        for key, item in list(pairs):
            new = fixed(item)
            node[key] = new
            if isinstance(new, (dict, list)):
                stack.append(new)
    return top


def is_sarif(head: str) -> bool:
    """A SARIF log's marks near the start: its `$schema` or `version` "2.1.0", and `runs`."""
    return '"runs"' in head and ("sarif" in head.lower() or _VERSION.search(head) is not None)


_VERSION = re.compile(r'"version"\s*:\s*"2\.1\.0"')


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _text(value: Any) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""


def _run(run: dict[str, Any]) -> Run:
    driver = _get(run, "tool", "driver") or {}
    version = _get(driver, "semanticVersion") or _get(driver, "version")
    tool = _text(_get(driver, "name")) or "(unnamed tool)"
    found = Run(f"{tool} {version}" if isinstance(version, str) and version else tool)
    rules = [r for r in (_get(driver, "rules") or []) if isinstance(r, dict)]
    defaults = {}
    strings: dict[str, dict[str, Any]] = {}
    for rule in rules:
        rid = _text(rule.get("id"))
        defaults[rid] = _get(rule, "defaultConfiguration", "level")
        strings[rid] = rule.get("messageStrings") or {}
        found.rules[rid] = _text(_get(rule, "shortDescription", "text")) or _text(rule.get("name"))
    for result in (r for r in (run.get("results") or []) if isinstance(r, dict)):
        index = result.get("ruleIndex")
        rid = _text(result.get("ruleId")) or _text(_get(result, "rule", "id"))
        if not rid and isinstance(index, int) and 0 <= index < len(rules):
            rid = _text(rules[index].get("id"))
        level = result.get("level") or defaults.get(rid) or "warning"
        found.results.append(
            Result(
                rid or "(no rule)",
                level if level in LEVELS else "warning",
                _message(result, strings.get(rid)),
                _place(result),
            )
        )
    return found


def _message(result: dict[str, Any], strings: dict[str, Any] | None) -> str:
    message = result.get("message") or {}
    said = _text(_get(message, "text")) or _text(_get(message, "markdown"))
    if not said and strings and isinstance(message.get("id"), str):
        said = _text(_get(strings, message["id"], "text"))
    arguments = message.get("arguments") if isinstance(message, dict) else None
    if said and isinstance(arguments, list):
        said = re.sub(
            r"\{(\d+)\}",
            lambda m: str(arguments[int(m.group(1))]) if int(m.group(1)) < len(arguments) else m.group(),
            said,
        )
    return said


def _place(result: dict[str, Any]) -> str | None:
    locations = result.get("locations")
    if not isinstance(locations, list) or not locations:
        return None
    physical = _get(locations[0], "physicalLocation") or {}
    uri = _get(physical, "artifactLocation", "uri")
    if not isinstance(uri, str):
        return None
    uri = uri.removeprefix("file://")
    line, column = _get(physical, "region", "startLine"), _get(physical, "region", "startColumn")
    if isinstance(line, int):
        return f"{uri}:{line}:{column}" if isinstance(column, int) else f"{uri}:{line}"
    return uri
