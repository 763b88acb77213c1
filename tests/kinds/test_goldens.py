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
from ctxguard.kinds.classify import classify
from tests.conftest import ROOT, SAMPLES

GOLDENS = ROOT / "tests" / "goldens"
PERCENTS = (50, 20, 5)
CASES = sorted(
    p for p in SAMPLES.iterdir() if p.is_file() and p.suffix in (".diff", ".log", ".json", ".jsonl", ".md", ".txt")
)


def _golden(sample: Path, percent: int) -> tuple[Path, str]:
    raw = sample.read_text(encoding="utf-8", errors="replace")
    kind = classify(sample.name, raw)
    record = compress_file(sample, 10_000_000)  # (the raw count, whole)
    budget = max(64, record["raw_tokens"] * percent // 100)
    cut = compress_file(sample, budget)
    head = {key: cut[key] for key in ("raw_tokens", "compacted_tokens", "truncated", "tier", "budget")}
    text = json.dumps(head, sort_keys=True) + "\n" + cut["content"]
    return GOLDENS / kind / f"{sample.name}.{percent}.txt", text


@pytest.mark.parametrize("percent", PERCENTS)
@pytest.mark.parametrize("sample", CASES, ids=lambda p: p.name)
def test_a_cut_is_its_golden_output(sample: Path, percent: int, update_goldens: bool) -> None:
    path, text = _golden(sample, percent)
    if update_goldens:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden output for {sample.name} at {percent} %: run with --update-goldens"
    assert path.read_text(encoding="utf-8") == text


def test_every_golden_has_a_sample() -> None:
    """A golden left behind by a removed sample or percent is an error, not a silent pass."""
    expected = {_golden_name(sample, percent) for sample in CASES for percent in PERCENTS}
    found = {p.relative_to(GOLDENS).as_posix() for p in GOLDENS.rglob("*.txt")}
    assert found == expected


def _golden_name(sample: Path, percent: int) -> str:
    kind = classify(sample.name, sample.read_text(encoding="utf-8", errors="replace"))
    return f"{kind}/{sample.name}.{percent}.txt"
