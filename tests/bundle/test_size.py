"""The bundle's size: the budgets found for a prepared run keep the bundle as written within
total_budget, and a run is cut again at any total without being prepared again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ctxguard import pipeline
from ctxguard.bundle import size
from ctxguard.collect import Artifact, Source
from ctxguard.config.load import parse_config
from ctxguard.tokens.load import get_tokenizer
from tests.helpers import independent_count

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
NAMES = ["pytest-failure.log", "plan-with-tables.md", "json-report-failures.json", "traceback.log"]
TOKENIZER = get_tokenizer()


def _run(total: int | None) -> pipeline.Run:
    budget = "" if total is None else f"total_budget: {total}\n"
    entries = "".join(f"  - {{name: a{i}, paths: ['{name}'], budget: 3000}}\n" for i, name in enumerate(NAMES))
    config = parse_config(f"version: 1\n{budget}artifacts:\n{entries}")
    artifacts = [
        Artifact(name, f"a{i}", 3000, (SAMPLES / name).read_text(encoding="utf-8")) for i, name in enumerate(NAMES)
    ]
    return pipeline.prepare(config, None, TOKENIZER, collected=(artifacts, Source("r", None, None, None)))


def test_the_bundle_as_written_keeps_to_the_total_at_every_total() -> None:
    whole = _run(None)
    _, unbounded = size.sized(whole, fmt="json")
    for total in (unbounded.tokens * 3 // 4, unbounded.tokens // 2, unbounded.tokens // 4):
        run = replace(whole, config=replace(whole.config, total_budget=total))
        result, written = size.sized(run, fmt="json")
        assert written.tokens <= total and independent_count(written.text) == written.tokens
        assert written.source_records is result.records  # (the bundle written is of these records)
        assert any(record.tier > 1 for record in result.records)  # (a total that cuts: it is kept to)


def test_less_total_never_gives_a_record_more_room() -> None:
    whole = _run(None)
    _, unbounded = size.sized(whole, fmt="json")
    sizes = []
    for total in (unbounded.tokens, unbounded.tokens * 2 // 3, unbounded.tokens // 3):
        run = replace(whole, config=replace(whole.config, total_budget=total))
        result, _ = size.sized(run, fmt="markdown")
        sizes.append(sum(record.compacted_tokens for record in result.records))
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]
