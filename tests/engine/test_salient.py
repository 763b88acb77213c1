"""The salient Tier 3: within budget, marked, and keeping what matters instead of the head."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxguard.api import compress_text
from ctxguard.engine.probes import extract, measure
from tests.conftest import SampleReader
from tests.generate import log_of
from tests.helpers import independent_count

MARKER = re.compile(r"\[TRUNCATED: content exceeds budget, remaining (\d+) tokens omitted\]")


def _diff_of(files: int) -> str:
    parts = []
    for f in range(files):
        body = "".join(f"+    value_{i} = compute_{i}(value_{i - 1})\n" for i in range(1, 40))
        parts.append(
            f"diff --git a/pkg/module_{f}.py b/pkg/module_{f}.py\nindex 1111111..2222222 100644\n"
            f"--- a/pkg/module_{f}.py\n+++ b/pkg/module_{f}.py\n@@ -1 +1,42 @@\n"
            f" import os\n+def handler_{f}(request):\n{body}"
            f"+    raise ValueError('bad request in module {f}')\n"
        )
    return "".join(parts)


def _check_cut(record: dict, budget: int) -> int:  # type: ignore[type-arg]
    assert record["tier"] == 3 and record["truncated"] is True
    assert independent_count(record["content"]) == record["compacted_tokens"] <= budget
    match = MARKER.search(record["content"])
    assert match
    omitted = int(match.group(1))
    assert 0 < omitted <= record["raw_tokens"]
    return omitted


def test_diff_lists_every_file_first_then_definitions_and_errors() -> None:
    text = _diff_of(12)
    # 1100: each file's definition and error come with its file and hunk headers (no line is
    # shown without them), about 25 tokens a file more than lines alone, and with the gap lines
    # that name the lines they stand for.
    record = compress_text(text, 1100, name="change.diff")
    _check_cut(record, 1100)
    content = record["content"]
    assert content.startswith("Changed files (12):\n")
    for f in range(12):
        assert f"pkg/module_{f}.py (+41 -0, modified)" in content
        assert f"def handler_{f}(request):" in content
        assert f"raise ValueError('bad request in module {f}')" in content
    assert " omitted)" in content
    head = compress_text(text, 1100, name="change.diff", tier3="head")
    assert head["retention"]["kept"] < record["retention"]["kept"] == record["retention"]["probes"]


def test_log_keeps_first_and_last_lines_errors_and_the_traceback_end() -> None:
    lines = log_of(6000).splitlines(keepends=True)
    for i in range(5):  # the same error five times, at different times and ids
        lines.insert(60 + 30 * i, f"2024-05-01 10:0{i}:00 ERROR db connection {1000 + i} lost after {i + 3}s\n")
    text = "".join(lines)
    record = compress_text(text, 300, name="service.log")
    _check_cut(record, 300)
    content = record["content"]
    lines = text.splitlines()
    assert content.startswith(lines[0]) and lines[-1] in content
    assert "ERROR worker job 42 failed" in content and "ZeroDivisionError: division by zero" in content
    assert "2024-05-01 10:00:00 ERROR db connection 1000 lost after 3s  (5 occurrences)" in content
    head = compress_text(text, 300, name="service.log", tier3="head")
    assert lines[-1] not in head["content"]
    assert record["retention"]["kept"] > head["retention"]["kept"]


def test_markdown_keeps_the_outline_and_open_tasks(sample: SampleReader) -> None:
    text = sample("plan-with-tables.md") * 6
    budget = max(32, independent_count(text) // 5)
    record = compress_text(text, budget, name="plan.md")
    _check_cut(record, budget)
    for line in text.splitlines():
        if line.startswith("#") or line.lstrip().startswith("- [ ]"):
            assert line in record["content"]


def test_json_stays_valid_with_the_marker_inside(sample: SampleReader) -> None:
    text = sample("long-array.json")
    for ratio in (0.5, 0.2, 0.05):
        budget = max(32, int(independent_count(text) * ratio))
        record = compress_text(text, budget, name="x.json")
        if record["tier"] != 3:
            continue
        _check_cut(record, budget)
        value = json.loads(record["content"])
        assert "[TRUNCATED: content exceeds budget" in json.dumps(value)


def test_json_lines_stay_valid_line_by_line(sample: SampleReader) -> None:
    text = sample("records.jsonl") * 30
    record = compress_text(text, 120, name="x.jsonl")
    _check_cut(record, 120)
    for line in record["content"].splitlines():
        json.loads(line)


def test_json_key_skeleton_when_values_do_not_fit() -> None:
    value = {
        f"service_{i}": {"owner": "team-" + "x" * 200, "ports": list(range(50)), "env": {"DEBUG": "0"}}
        for i in range(30)
    }
    text = json.dumps(value, indent=2)
    budget = independent_count(text) // 6
    record = compress_text(text, budget, name="services.json")
    _check_cut(record, budget)
    shown = json.loads(record["content"])
    assert set(value) <= set(shown)  # every top-level key survives
    kept = measure("json", text, record["content"])
    assert kept.score > measure("json", text, compress_text(text, budget, name="s.json", tier3="head")["content"]).score


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=200),
    lambda children: st.lists(children, max_size=20) | st.dictionaries(st.text(max_size=8), children, max_size=8),
    max_leaves=150,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON, budget=st.integers(min_value=32, max_value=400))
def test_json_parses_at_every_budget(value: object, budget: int) -> None:
    text = json.dumps(value, indent=2)
    record = compress_text(text, budget, name="v.json")
    assert record["compacted_tokens"] <= budget
    json.loads(record["content"])
    if record["tier"] == 1:
        assert record["content"] == text and not MARKER.search(record["content"])


def test_no_marker_without_a_cut_and_retention_in_every_record(sample: SampleReader) -> None:
    text = sample("python-change.diff")
    record = compress_text(text, 10_000, name="c.diff")
    assert record["tier"] == 1 and "[TRUNCATED" not in record["content"]
    probes = len(extract("diff", text))
    assert record["retention"] == {"probes": probes, "kept": probes}
    cut = compress_text(text, 100, name="c.diff", missed=True)
    assert cut["retention"]["kept"] + len(cut["retention"]["missed"]) == probes


def test_json_marker_is_the_last_entry_of_any_top_level_shape() -> None:
    rows = [{"id": i, "name": f"item number {i}", "tags": ["a", "b", "c"]} for i in range(300)]
    cases = {
        "array.json": (rows, lambda v: v[-1]),
        "object.json": ({"rows": rows, "count": 300}, lambda v: v["_truncated"]),
        "taken.json": ({"_truncated": "mine", "rows": rows}, lambda v: v["_ctxguard_truncated"]),
        "string.json": (" ".join(f"word{i}" for i in range(3000)), lambda v: v),
    }
    for name, (document, last) in cases.items():
        text = json.dumps(document, indent=2)
        budget = max(64, independent_count(text) // 5)
        record = compress_text(text, budget, name=name)
        assert record["tier"] == 3, name
        _check_cut(record, budget)
        value = json.loads(record["content"])
        assert "[TRUNCATED: content exceeds budget" in last(value), name
        if name == "taken.json":
            assert value["_truncated"] == "mine"
