"""A diff's probes: every changed file's path, the name of every added or removed definition,
the message of every added error line."""

from __future__ import annotations

from collections.abc import Iterator

from ctxguard.git.paths import line_path
from ctxguard.kinds.base import Probe
from ctxguard.kinds.definitions import definition_name
from ctxguard.kinds.diff.lines import DEFINES, ERROR, error_message
from ctxguard.kinds.diff.model import DiffDoc


def probes(doc: DiffDoc) -> Iterator[Probe]:

    files = doc.classified
    if files is None:
        for line in doc.text.splitlines():
            if line.startswith(("+++ b/", '+++ "b/')):
                yield Probe("path", line_path(line, "+++ ").strip())
        return
    for patched in files:
        yield Probe("path", patched.path)
        for hunk in patched.hunks:
            for line, bit in zip(hunk.lines, hunk.bits):
                if bit & (DEFINES | ERROR):
                    body = line[1:]
                    if bit & DEFINES:
                        name = definition_name(body)
                        if name:
                            yield Probe("definition", name)
                    if bit & ERROR and len(body) < 1000:  # (ERROR: an added line)
                        yield Probe("error", error_message(body))
