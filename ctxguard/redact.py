"""Secret redaction, before anything is counted, compressed, written or offloaded.

A match becomes `[REDACTED:<kind>]`; only the counts per kind are reported, never the values.
A replacement never changes a text's structure: every line keeps its place and its line ending,
so a redacted diff still parses and a redacted JSON string is still a JSON string (the
replacement holds no quote or backslash). Detectors come from the vendors' documented formats
(`ctxguard.secrets`), plus assignments to secret-looking names; random-looking values are
redacted only where a name says they are secret, so lockfile hashes, UUIDs, commit ids and
base64 test data pass untouched.
"""
from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass

from ctxguard.secrets import (ASSIGNED, HINTS, PEM_BEGIN, PEM_END, RULES, Rule, looks_random, placeholder,
                              reference)


@dataclass(frozen=True)
class Redacted:
    """The text with secrets replaced, and how many of each kind were found."""

    text: str
    counts: dict[str, int]


def note(counts: dict[str, int]) -> str:
    """One sentence for a record's notes: how many values of which kinds were redacted."""
    total = sum(counts.values())
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
    return f"redacted {total} secret value{'s' if total != 1 else ''} ({kinds})"


def marker(kind: str) -> str:
    """What a secret of this kind is replaced by."""
    return f"[REDACTED:{kind}]"


def redact(text: str) -> Redacted:
    """Replace every recognised secret with [REDACTED:<kind>], line structure unchanged."""
    counts: Counter[str] = Counter()
    if "PRIVATE KEY" in text:
        text = _private_keys(text, counts)
    for rule in RULES:
        if not any(literal in text for literal in rule.literals):
            continue

        def replace(match: re.Match[str], rule: Rule = rule) -> str:
            value = match.group(rule.group)
            if (rule.group and placeholder(value)) or (rule.check is not None and not rule.check(value)):
                return match.group(0)
            return _splice(match, rule.group, rule.kind, counts)

        text = rule.pattern.sub(replace, text)
    lowered = text.lower()
    if any(hint in lowered for hint in HINTS):
        text = _assignments(text, counts)
    return Redacted(text, dict(sorted(counts.items())))


def _splice(match: re.Match[str], group: int | str, kind: str, counts: Counter[str]) -> str:
    """The match with its `group` replaced by the marker, counted."""
    counts[kind] += 1
    start, end = match.span(group)
    whole = match.group(0)
    return whole[: start - match.start()] + marker(kind) + whole[end - match.start():]


_ENDING = re.compile(r"(?:\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029])\Z")


def _split(line: str) -> tuple[str, str]:
    """A line (as splitlines keeps it) as its body and its line ending."""
    found = _ENDING.search(line)
    return (line[: found.start()], found.group(0)) if found else (line, "")


def _assignments(text: str, counts: Counter[str]) -> str:
    """Values assigned to secret-looking names, one line body at a time (endings kept aside)."""
    replacers = [(pattern, functools.partial(_assigned, counts=counts, random_only=random_only, mid_line=mid_line))
                 for pattern, random_only, mid_line in ASSIGNED]
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        lowered = line.lower()
        if not any(hint in lowered for hint in HINTS):
            continue
        body, ending = _split(line)
        for pattern, replacer in replacers:
            body = pattern.sub(replacer, body)
        lines[i] = body + ending
    return "".join(lines)


_LAST_WORD = re.compile(r"[._-]")
_WORD = re.compile(r"[a-z_]+")


def _assigned(match: re.Match[str], counts: Counter[str], random_only: bool, mid_line: bool) -> str:
    """Replace the value of one `name = value` match, if it is a literal secret."""
    name, value = match.group("name"), match.group("value")
    kind = _kind(name)
    if kind is None or placeholder(value) or value.lower() == _LAST_WORD.split(name.lower())[-1]:
        return match.group(0)  # `self.token = token` is code
    if match.groupdict().get("q") is None and reference(value):  # unquoted: `token = new_token` is code
        return match.group(0)
    if mid_line and _WORD.fullmatch(value):  # `f(secrets=redact, …)`: a keyword argument
        return match.group(0)
    if kind == "secret?" or random_only:  # then only a random-looking value counts
        if not looks_random(value):
            return match.group(0)
        kind = "secret" if kind == "secret?" else kind
    return _splice(match, "value", kind, counts)


_PASSWORD = re.compile(r"passw(?:or)?d|pwd|passphrase|passcode", re.I)
_API_KEY = re.compile(r"api[_.-]?key", re.I)
_TOKEN = re.compile(r"token", re.I)
_SECRET = re.compile(r"secret|private[_.-]?key|access[_.-]?key", re.I)
_MAYBE = re.compile(r"key|auth|cred|signature|salt|session|cookie|private", re.I)
_NOT_SECRET = re.compile(r"public|hash|sha\d*|digest|checksum|integrity|fingerprint|etag|commit|tokeni[sz]|"
                         r"continuation|pagination|next_?token|page_?token|"
                         r"revision|id$|ids$|type$|name$|url$|uri$|path$|file$|count$|len|size$|max|min", re.I)


def _kind(name: str) -> str | None:
    """The kind of secret a name holds: a sure kind, "secret?" (only if random-looking), or None."""
    if _NOT_SECRET.search(name):
        return None
    if _PASSWORD.search(name):
        return "password"
    if _API_KEY.search(name):
        return "api_key"
    if _TOKEN.search(name):
        return "token"
    if _SECRET.search(name):
        return "secret"
    return "secret?" if _MAYBE.search(name) else None


def _private_keys(text: str, counts: Counter[str]) -> str:
    """PEM private-key blocks: the BEGIN line's tag becomes the marker, the base64 runs of the
    lines after it are removed up to the END tag (or, without one, while lines hold base64), and
    everything else on those lines (a diff mark, a log prefix, a closing quote) and every line
    ending stays."""
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        body, ending = _split(lines[i])
        begin = PEM_BEGIN.search(body)
        if begin is None:
            i += 1
            continue
        counts["private_key"] += 1
        end = PEM_END.search(body, begin.end())
        if end is not None:  # the whole block on one line (a JSON string, an env value)
            lines[i] = body[: begin.start()] + marker("private_key") + body[end.end():] + ending
            continue  # the same line may hold another block
        lines[i] = body[: begin.start()] + marker("private_key") + ending
        closing = next((j for j in range(i + 1, min(len(lines), i + 400)) if PEM_END.search(lines[j])), None)
        mark = body[0] if body[:1] in ("+", "-", " ") and begin.start() > 0 else ""  # in a diff
        j = i + 1
        while j < len(lines) and (closing is None or j <= closing):
            inner, inner_ending = _split(lines[j])
            if j == closing:
                found = PEM_END.search(inner)
                assert found is not None
                inner = inner[: found.start()] + inner[found.end():]
            elif closing is None and not (_BASE64_RUN.search(inner) or not inner.strip()):
                break  # no END line: the block ends with its last base64-looking line
            kept = mark if mark and inner.startswith(mark) else ""
            emptied = kept + _BASE64_RUN.sub("", inner[len(kept):])
            if not emptied and (not inner_ending or (lines[j - 1].endswith("\r") and inner_ending.startswith("\n"))):
                emptied = " "  # an empty last line would vanish; after a bare \r, join the \n
            lines[j] = emptied + inner_ending
            j += 1
        i = j
    return "".join(lines)


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
