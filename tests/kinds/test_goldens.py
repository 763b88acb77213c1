"""Golden outputs per kind: every real sample in tests/samples cut at 50, 20 and 5 % of its raw
tokens, compared byte for byte with tests/goldens/<kind>/<sample>.<percent>.txt (the record's
counts and tier, then its content). A change of behaviour shows as a diff of those files:

    python -m pytest tests/kinds/test_goldens.py --update-goldens   # rewrite them, then review
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxguard.api import compress_file
from tests.conftest import ROOT, SAMPLES

GOLDENS = ROOT / "tests" / "goldens"
PERCENTS = (50, 20, 5)
# Each sample's kind, declared by its suffix (the folder of its goldens): the classifier must
# agree, and a change of the classifier cannot move a golden without a failure.
KIND_OF = {".diff": "diff", ".log": "log", ".json": "json", ".jsonl": "json", ".md": "markdown", ".txt": "text"}
CASES = sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.suffix in KIND_OF)


def _budget(sample: Path, percent: int) -> int:
    return max(64, compress_file(sample, 10_000_000)["raw_tokens"] * percent // 100)  # (the raw count, whole)


def _owner(sample: Path, percent: int) -> int:
    """The percent whose golden a cut is: the first of those that give it the same budget (at
    the 64-token floor two percents are one cut, kept once)."""
    budget = _budget(sample, percent)
    return next(p for p in PERCENTS if _budget(sample, p) == budget)


def _parses(sample: Path) -> bool:
    try:
        json.loads(sample.read_text(encoding="utf-8"))
    except ValueError:
        return False
    return True


def _golden(sample: Path, percent: int) -> tuple[Path, str]:
    budget = _budget(sample, percent)
    cut = compress_file(sample, budget)
    kind = KIND_OF[sample.suffix]
    assert cut["type"] == kind, f"{sample.name} is read as {cut['type']}, declared {kind}"
    assert cut["compacted_tokens"] <= budget  # (in update mode too: a golden is never over its budget)
    if kind == "json" and _parses(sample):
        json.loads(cut["content"])  # (… nor, for JSON that parses, a text that does not)
    head = {key: cut[key] for key in ("raw_tokens", "compacted_tokens", "truncated", "tier", "budget")}
    text = json.dumps(head, sort_keys=True) + "\n" + cut["content"]
    return GOLDENS / kind / f"{sample.name}.{_owner(sample, percent)}.txt", text


@pytest.mark.parametrize("percent", PERCENTS)
@pytest.mark.parametrize("sample", CASES, ids=lambda p: p.name)
def test_a_cut_is_its_golden_output(sample: Path, percent: int, update_goldens: bool) -> None:
    path, text = _golden(sample, percent)
    if update_goldens and _owner(sample, percent) == percent:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden output for {sample.name} at {percent} %: run with --update-goldens"
    assert path.read_text(encoding="utf-8") == text


def test_every_golden_has_a_sample() -> None:
    """A golden left behind by a removed sample or percent is an error, not a silent pass; a
    percent that is another's cut has none of its own."""
    expected = {f"{KIND_OF[s.suffix]}/{s.name}.{_owner(s, p)}.txt" for s in CASES for p in PERCENTS}
    found = {p.relative_to(GOLDENS).as_posix() for p in GOLDENS.rglob("*.txt")}
    assert found == expected
