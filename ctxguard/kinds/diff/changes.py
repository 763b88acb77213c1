"""A diff's hunks as data (kinds.base.Change): the file, the new file's lines each spans, the
definitions it changes or sits in, and the raw lines of its changed lines; what the bundle's
links (ctxguard.links) match failures against."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ctxguard.kinds.base import Change
from ctxguard.kinds.definitions import definition_name, is_definition, language
from ctxguard.kinds.diff.lines import is_prose

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_NEW_PATH = re.compile(r"^\+\+\+ (?:b/)?(.+?)\s*$")
_GIT = re.compile(r"^diff --git a/(\S+) b/(\S+)")


def changes(lines: Sequence[str]) -> list[Change]:
    """Each hunk of the diff with a changed line, in order."""
    out: list[Change] = []
    path: str | None = None
    lang: str | None = None
    prose = False  # (a document's or a changelog's lines declare nothing: see is_prose)
    start = at = 0
    names: list[str] = []
    current: str | None = None  # the definition the lines so far sit in
    changed: list[int] = []

    def close() -> None:
        if path is not None and changed:
            out.append(Change(path, start, max(start, at - 1), tuple(dict.fromkeys(names)), tuple(changed)))

    for i, raw in enumerate(lines):
        line = raw.rstrip("\r\n")
        if line.startswith("diff --git "):
            close()
            found = _GIT.match(line)
            path, changed, names = (found.group(2) if found else None), [], []
            lang = language(path) if path else None
            prose = path is not None and is_prose(path)
        elif line.startswith("+++ "):
            found = _NEW_PATH.match(line)
            if found and found.group(1) != "/dev/null":
                path, lang = found.group(1), language(found.group(1))
                prose = is_prose(path)
        elif hunk := _HUNK.match(line):
            close()
            start = at = int(hunk.group(1))
            changed, names = [], []
            current = definition_name(hunk.group(3)) if hunk.group(3) else None
        elif path is not None and line[:1] in ("+", "-", " ") and not line.startswith(("+++ ", "--- ")):
            if not prose and is_definition(line[1:], lang) and (name := definition_name(line[1:])):
                current = name
            if line[:1] != " ":
                changed.append(i)
                names += [current] if current else []  # (the definition a changed line is, or sits in)
            at += line[:1] != "-"
    close()
    return out
