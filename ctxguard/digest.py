"""The digest: a short summary at the head of a bundle that is paid for first and never cut.

It lists what an agent must know even if it reads nothing else: the files changed with their
+/- counts, the distinct error lines found in logs, the open task items of plans, and for each
artifact its tier, whether it was cut and how many of its probes it kept. Long lists are capped
with an explicit count of what is left out, so the digest stays small for any input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ctxguard.kinds.base import Facts as KindFacts
from ctxguard.kinds.base import Failure, FileStat
from ctxguard.kinds.sink import Sink
from ctxguard.links import Linked
from ctxguard.record import Record, omissions, status
from ctxguard.words import plural

MAX_FILES: Final = 100
MAX_ERRORS: Final = 30
MAX_TASKS: Final = 50
MAX_LINE: Final = 200
MAX_ARTIFACTS: Final = 200  # status lines; past this the digest counts the rest
MAX_IDS: Final = 3  # test ids shown per cause


@dataclass(frozen=True)
class Facts:
    """What the digest says about the raw artifacts (known before any compression)."""

    files: tuple[FileStat, ...] = ()
    failures: tuple[tuple[str, Failure], ...] = ()  # (artifact, a root cause of failing tests)
    errors: tuple[tuple[str, str, int], ...] = ()  # (artifact, first line, occurrences): the others
    tasks: tuple[tuple[str, str], ...] = ()  # (artifact, open task item)
    linked: Linked = Linked()  # the failures and the changed hunks they reach (ctxguard.links)


def facts(items: Sequence[tuple[str, KindFacts]]) -> Facts:
    """Facts of (name, facts) artifacts, each its kind's facts of the raw text (ctxguard.kinds)."""
    files: list[FileStat] = []
    index: list[tuple[str, Failure]] = []
    errors: list[tuple[str, str, int]] = []
    tasks: list[tuple[str, str]] = []
    for name, found in items:
        files.extend(found.files)
        index.extend((name, failure) for failure in found.failures)
        errors.extend((name, line, count) for line, count in found.errors)
        tasks.extend((name, task) for task in found.tasks)
    return Facts(tuple(files), tuple(index), tuple(errors), tuple(tasks))


def merge(found: Facts, streamed: Sequence[tuple[str, Sink]]) -> Facts:
    """Add the facts a streaming pass kept (ctxguard.stream sinks) about big files."""
    files, errors = list(found.files), list(found.errors)
    for name, sink in streamed:
        kept = sink.facts()
        files.extend(kept.files)
        errors.extend((name, line, count) for line, count in kept.errors)
    return Facts(tuple(files), found.failures, tuple(errors), found.tasks, found.linked)


def _linked(linked: Linked, rows: int) -> list[str]:
    """ "Failures and the change": each failure with the changed hunk it reaches and how, then
    the failures that reach none, said plainly."""
    if not linked.links and not linked.unlinked:
        return []
    tests = len({link.test for link in linked.links})
    out = [f"\nFailures and the change ({tests} reach a changed hunk, {len(linked.unlinked)} do not):\n"]
    for link in linked.links[:rows]:
        where = f"{link.place}" + (f" ({link.definition})" if link.definition else "")
        out.append(f"- {_clip(link.test)} -> {where} in {link.artifact}, by {link.by}\n")
    if len(linked.links) > rows:
        out.append(f"- … and {len(linked.links) - rows} more links\n")
    for artifact, failure in linked.unlinked[:rows]:
        test = failure.tests[0] if failure.tests else failure.cause
        out.append(
            f"- {_clip(test)} ({artifact}) reaches no changed line: an environment problem, a flaky "
            "test or a test of unchanged code?\n"
        )
    if len(linked.unlinked) > rows:
        out.append(f"- … and {len(linked.unlinked) - rows} more that reach none\n")
    return out


def _tests(tests: Sequence[str]) -> str:
    """A cause's failing tests: how many, the first few by id."""
    shown = ", ".join(_clip(t) for t in tests[:MAX_IDS])
    more = f", and {len(tests) - MAX_IDS} more" if len(tests) > MAX_IDS else ""
    return f"{len(tests)}: {shown}{more}" if len(tests) > 1 else shown


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _clip(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= MAX_LINE else line[:MAX_LINE] + f"… ({len(line) - MAX_LINE} chars)"


_REFERENCE = "REFERENCE (not included: read on demand)"


def _status(record: Record, worst: bool = False) -> str:
    kept = record.retention or {"probes": 0, "kept": 0}
    if worst:  # the widest form of the line, to reserve room before the real one is known
        reason = f"MISSING ({_clip(record.error)})" if record.error else ""
        state = max(
            "TRUNCATED (cut)",
            _REFERENCE,
            reason,
            f"empty {record.content.strip()}",
            "compressed: 999,999 lines, 999,999 items omitted",
            key=len,
        )
        where = "; full text: offload/0123456789abcdef.json" if record.tier != 1 else ""
        counted = f", left out 999,999 of 999,999 {_WIDEST_COUNTED}" if record.tier != 1 else ""
        said = f"kept {kept['probes']}/{kept['probes']} probes{counted}"
        return f"- {record.artifact_name}: tier 3, {state}, {said}{where}\n"
    name = status(record)  # (the table's and the annotations' status, in more words)
    if name == "MISSING":
        state = f"MISSING ({_clip(record.error or record.content.strip())})"
    elif name == "ERROR":
        state = f"ERROR ({_clip(record.error or '')})"
    elif name == "REFERENCE":
        state = _REFERENCE
    elif record.empty is not None:
        state = f"empty {record.content.strip()}"
    elif name == "TRUNCATED":
        state = "TRUNCATED (cut)"
    elif record.tier == 2:
        state = omissions(record)
    else:
        state = "complete"
    where = f"; full text: {record.offload.path}" if record.offload else ""
    kept_said = f"kept {kept['kept']}/{kept['probes']} probes"
    for what, (left, of) in (kept.get("left_out") or {}).items():
        kept_said += f", left out {left:,} of {of:,} {what}"
    return f"- {record.artifact_name}: tier {record.tier}, {state}, {kept_said}{where}\n"


def _quiet(record: Record) -> bool:
    """A record the digest has nothing to say about: complete (tier 1) or empty, and OK."""
    return status(record) == "OK" and (record.tier == 1 or record.empty is not None)


_WIDEST_COUNTED = "rules (MUST/SHOULD sentences)"  # (the longest of the kinds' left_out names)


def render(found: Facts, records: Sequence[Record], worst: bool = False, rows: int = MAX_ERRORS) -> str:
    """The digest as markdown; worst=True renders the widest status lines (for reserving).
    `rows`: the most causes and error lines listed (tasks: 5/3 as many), the rest counted."""
    tasks = rows * MAX_TASKS // MAX_ERRORS
    out = ["## Digest\n"]
    if found.files:  # (each file is listed once: in its diff record's `files`, and the coverage)
        added, removed = sum(s.added for s in found.files), sum(s.removed for s in found.files)
        out.append(f"\n{plural(len(found.files), 'file')} changed (+{added} -{removed}).\n")
    if found.failures:
        tests = sum(len(f.tests) for _, f in found.failures)
        out.append(
            f"\nFailing tests in logs ({tests}, {plural(len(found.failures), 'cause')}):\n\n"
            "| log | tests | first error line | where |\n|---|---|---|---|\n"
        )
        for name, failure in found.failures[:rows]:
            out.append(
                f"| {_cell(name)} | {_cell(_tests(failure.tests))} | {_cell(_clip(failure.cause))} "
                f"| {_cell(failure.where or '')} |\n"
            )
        if len(found.failures) > rows:
            out.append(f"\n… and {len(found.failures) - rows} more causes\n")
    out += _linked(found.linked, rows)
    if found.errors:
        other = "Other error" if found.failures else "Distinct error"
        out.append(f"\n{other} and warning lines in logs ({len(found.errors)}):\n")
        current = None
        for name, line, count in found.errors[:rows]:
            if name != current:
                out.append(f"- {name}:\n")
                current = name
            times = f" (x{count})" if count > 1 else ""
            out.append(f"  - {_clip(line)}{times}\n")
        if len(found.errors) > rows:
            out.append(f"- … and {len(found.errors) - rows} more distinct lines\n")
    if found.tasks:
        out.append(f"\nOpen task items ({len(found.tasks)}):\n")
        out += [f"- [ ] {_clip(task)} ({name})\n" for name, task in found.tasks[:tasks]]
        if len(found.tasks) > tasks:
            out.append(f"- … and {len(found.tasks) - tasks} more open items\n")
    out.append(f"\nArtifacts ({len(records)}):\n")
    lines = [_status(r, worst) for r in records]
    if len(lines) <= MAX_ARTIFACTS:
        return "".join(out + lines)
    # Many artifacts (`split: file` on a big change): the ones with something to say first.
    quiet = [_quiet(r) for r in records]
    first = [i for i, q in enumerate(quiet) if not q] + [i for i, q in enumerate(quiet) if q]
    shown = sorted(first[:MAX_ARTIFACTS])
    out += [lines[i] for i in shown]
    hidden = len(lines) - len(shown)
    out.append(
        f"- … and {hidden} more artifacts, each in its own record (the {sum(quiet)} complete "
        f"or empty ones are listed last)\n"
    )
    return "".join(out)
