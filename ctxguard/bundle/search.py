"""A regular expression over a bundle's full texts: what a reader asks for when a cut left out
the lines it needs (`ctxguard show BUNDLE --grep PATTERN`, the MCP server's `search`).

Each record's full text is its offload (checked against the record's sha256 digits), or its
content when nothing was left out. Matches come with their line numbers (as gap lines number
them) and a few lines of context; error lines first (as the log kind tells them), then the
others, each in the text's order; capped, with how many more there were.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ctxguard.errors import UsageError
from ctxguard.kinds.log.lines import is_important
from ctxguard.record import Record

# A caller's pattern is the caller's: `(a+)+$` backtracks for ages over a 40-character line. It
# runs with the `regex` module (tiktoken's own dependency), which stops a match at a deadline and
# lets go of the interpreter while it matches, so a server keeps answering its other calls.
DEADLINE_SECONDS: Final = 5.0


def _says_error(line: str) -> bool:
    """An error or warning line as the log kind tells one, or a traceback's head."""
    return is_important(line) or line.lstrip().startswith("Traceback")


@dataclass(frozen=True)
class Match:
    """One matching line of an artifact's full text, with the lines around it."""

    artifact: str
    line: int  # from 1, as a gap line numbers it
    text: str
    before: tuple[tuple[int, str], ...] = ()
    after: tuple[tuple[int, str], ...] = ()


def blocks(matches: Sequence[Match]) -> list[str]:
    """The matches as grep prints them: a match next to (or overlapping) the one before it in the
    same artifact joins its block, each line once (a context line shared by two matches is not
    printed twice, and a match is never printed as another's context); `--` between blocks."""
    out: list[dict[int, tuple[str, bool]]] = []
    names: list[str] = []
    for match in matches:
        lines = {n: (text, False) for n, text in (*match.before, *match.after)}
        lines[match.line] = (match.text, True)
        if out and names[-1] == match.artifact and min(lines) <= max(out[-1]) + 1 and max(lines) >= min(out[-1]) - 1:
            block = out[-1]
            for n, (text, hit) in lines.items():
                block[n] = (text, hit or block.get(n, ("", False))[1])
            continue
        out.append(lines)
        names.append(match.artifact)
    rendered = []
    for name, block in zip(names, out):
        rows = [
            f"{name}{':' if hit else '-'}{n}{':' if hit else '-'}{text}" for n, (text, hit) in sorted(block.items())
        ]
        rendered.append("\n".join(rows) + "\n")
    return rendered


def compile_pattern(pattern: str) -> Any:
    """The pattern (Python's `re` syntax), or ValueError with a sentence when it is not a
    regular expression."""
    import regex

    try:
        return regex.compile(pattern, regex.VERSION0)
    except (regex.error, ValueError, OverflowError) as exc:
        raise ValueError(f"{pattern!r} is not a regular expression: {exc}") from None


def search(
    records: Sequence[Record],
    full_text: Callable[[Record], str],
    pattern: Any,
    context: int = 2,
    limit: int = 100,
    seconds: float | None = None,
) -> tuple[list[Match], int]:
    """The first `limit` matches over the records' full texts (error lines first), and how many
    matched in all; UsageError when matching takes more than `seconds` in all (default:
    DEADLINE_SECONDS)."""
    errors: list[Match] = []
    others: list[Match] = []
    seconds = DEADLINE_SECONDS if seconds is None else seconds
    deadline = time.monotonic() + seconds
    for record in records:
        lines = full_text(record).split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for i, line in enumerate(lines):
            if not _matches(pattern, line, deadline, seconds):
                continue
            before = tuple((k + 1, lines[k]) for k in range(max(0, i - context), i))
            after = tuple((k + 1, lines[k]) for k in range(i + 1, min(len(lines), i + 1 + context)))
            found = Match(record.artifact_name, i + 1, line, before, after)
            (errors if _says_error(line) else others).append(found)
    ordered = errors + others
    return ordered[:limit], len(ordered)


def _matches(pattern: Any, line: str, deadline: float, seconds: float) -> bool:
    left = deadline - time.monotonic()
    try:
        if left <= 0:
            raise TimeoutError
        return pattern.search(line, concurrent=True, timeout=left) is not None
    except TimeoutError:
        raise UsageError(
            f"the pattern /{pattern.pattern}/ took more than {seconds:g} s over the full texts and was "
            "stopped (nested repeats such as (a+)+ can take ages); simplify it or name one artifact"
        ) from None
