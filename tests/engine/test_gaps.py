"""Every gap line names the raw lines it stands for, and they are exactly the lines left out:
an agent with the full text (the record's offload) reads precisely what is missing."""

from __future__ import annotations

import re

import pytest

from ctxguard.engine.tiers import compress
from ctxguard.tokens.load import get_tokenizer
from tests.conftest import SampleReader

GAP = re.compile(r"\.\.\. \(lines? (\d+)(?:-(\d+))? omitted\)")
SHARES = (0.9, 0.6, 0.3, 0.12)
SAMPLES = [
    "python-change.diff",
    "release-with-noise.diff",
    "enclosing-def.diff",
    "go-change.diff",
    "pytest-failure.log",
    "jest-failures.log",
    "cargo-test-failures.log",
    "gcc-warnings.log",
    "logcat-threadtime.log",
    "traceback.log",
    "plan-with-tables.md",
    "rfc2119-spec.md",
]


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _shows(line: str, raw: str) -> bool:
    """A content line shows its raw line: whole, or in pieces around `…`, or its start (a long
    line cut), or with a repeat count after it."""
    line = re.sub(r"  \(\d+ occurrences\)$", "", line)
    cut = re.match(r"(.*)\.\.\. \(\d+ chars omitted\)$", line)
    if cut:
        return raw.startswith(cut.group(1))
    pieces = [p.strip() for p in line.split("…")]
    at = 0
    for piece in pieces:
        found = raw.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def check_gaps(raw: str, content: str) -> int:
    """Walk the content against the raw text: each shown line is the next raw line, each gap the
    next run of raw lines by number. Returns the number of gaps."""
    rows = _lines(raw)
    shown = [line for line in _lines(content) if not line.startswith("[TRUNCATED:")]
    start = next((i for i, line in enumerate(shown) if GAP.fullmatch(line) or line == rows[0]), 0)
    at, gaps = 1, 0  # the next raw line, from 1
    for line in shown[start:]:
        match = GAP.fullmatch(line)
        if match:
            first = int(match.group(1))
            last = int(match.group(2) or first)
            assert first <= last, line
            assert first == at, f"{line!r} after raw line {at - 1}"
            at, gaps = last + 1, gaps + 1
            continue
        assert at <= len(rows), f"content goes on past the raw text: {line!r}"
        assert _shows(line, rows[at - 1]), f"{line!r} is not raw line {at}: {rows[at - 1]!r}"
        at += 1
    return gaps


@pytest.mark.parametrize("name", SAMPLES)
def test_every_gap_names_exactly_the_lines_it_leaves_out(sample: SampleReader, name: str) -> None:
    tokenizer = get_tokenizer()
    raw = sample(name)
    total = tokenizer.count(raw)
    gaps = 0
    for share in SHARES:
        record = compress(raw, max(64, int(total * share)), tokenizer=tokenizer, name=name)
        if record.tier > 1:
            gaps += check_gaps(raw, record.content)
    assert gaps > 0  # (the cuts did leave lines out)
