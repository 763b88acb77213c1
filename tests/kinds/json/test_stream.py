"""Big JSON files are streamed: parsed incrementally, kept within a room that grows with the
budget, cut by the JSON plan; always valid JSON, every left-out entry counted in place."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ctxguard import read
from ctxguard.api import compress_file
from ctxguard.engine import stream
from ctxguard.kinds.json import sink as json_sink
from ctxguard.secrets.redact import redact
from ctxguard.tokens.load import get_tokenizer
from tests.helpers import independent_count
from tests.test_hostile import RECORD

OMITTED = re.compile(r"^(\d+) (?:items?|lines?|omitted)")


@pytest.fixture
def small_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stream anything over 20 kB, in blocks of 4 kB, keeping at least 16 kB of a document."""
    monkeypatch.setattr(read, "STREAM_BYTES", 20_000)
    monkeypatch.setattr(stream, "BLOCK", 4096)
    monkeypatch.setattr(json_sink, "LEAST_ROOM", 16_384)


def _report(n: int) -> dict[str, Any]:
    tests: list[dict[str, Any]] = [
        {"nodeid": f"tests/test_m.py::test_{i}", "outcome": "passed", "call": {"duration": 0.001 * i}} for i in range(n)
    ]
    for i in (n // 3, 2 * n // 3):
        tests[i]["outcome"] = "failed"
        tests[i]["call"]["longrepr"] = f"E   AssertionError: case {i} broke\n" * 3
    return {"summary": {"passed": n - 2, "failed": 2}, "tests": tests, "token": "ghp_" + "Z9y8X7w6" * 4 + "V5u4"}


def _items_said(items: list[Any]) -> tuple[list[dict[str, Any]], int]:
    """The items a cut shows and how many its notes say it left out."""
    shown, left = [], 0
    for item in items:
        if isinstance(item, dict) and set(item) == {"_truncated"}:
            left += int(item["_truncated"].split()[0])
        else:
            shown.append(item)
    return shown, left


@pytest.mark.parametrize("indent", [None, 2])
def test_a_big_report_is_cut_as_json_with_its_failures_and_every_item_counted(
    small_stream: None, tmp_path: Path, indent: int | None
) -> None:
    doc = _report(3000)
    path = tmp_path / "report.json"
    path.write_text(json.dumps(doc, indent=indent))
    record = compress_file(path, 2000)
    jsonschema.validate(record, RECORD)
    assert any(note.startswith("streamed:") for note in record["notes"])
    assert any("left out while streaming" in note for note in record["notes"])
    assert record["tier"] == 3 and record["truncated"]
    assert record["raw_tokens"] == independent_count(redact(path.read_text()).text)  # counted exactly
    assert independent_count(record["content"]) == record["compacted_tokens"] <= 2000
    kept = json.loads(record["content"])  # (valid JSON)
    assert kept["summary"] == doc["summary"] and "ghp_" not in record["content"]
    shown, left = _items_said(kept["tests"])
    assert len(shown) + left == 3000  # (every item shown or counted, by the pass or the cut)
    assert {item["nodeid"] for item in shown if item.get("outcome") == "failed"} == {
        "tests/test_m.py::test_1000",
        "tests/test_m.py::test_2000",
    }
    assert kept["_truncated"].startswith("[TRUNCATED: content exceeds budget, remaining")
    assert record["retention"]["kept"] == record["retention"]["probes"]


def test_json_lines_are_streamed_row_by_row(small_stream: None, tmp_path: Path) -> None:
    rows = [{"ts": i, "level": "info", "msg": f"request {i} served"} for i in range(4000)]
    rows[2500] = {"ts": 2500, "level": "error", "msg": "request 2500 failed", "error": "timeout"}
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    record = compress_file(path, 1500)
    lines = [json.loads(line) for line in record["content"].splitlines() if line.strip()]  # (each row parses)
    shown = [row for row in lines if "ts" in row]
    left = sum(int(row["_truncated"].split()[0]) for row in lines if "lines omitted" in str(row.get("_truncated", "")))
    assert len(shown) + left == 4000
    assert any(row.get("error") == "timeout" for row in shown)  # (a failing row, kept by the pass)
    assert lines[0]["ts"] == 0


def test_a_big_file_that_is_not_json_is_cut_as_text(small_stream: None, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"rows": [' + ",".join(f'{{"n": {i}}}' for i in range(5000)) + ",\nERROR: the writer crashed\n")
    record = compress_file(path, 500)
    assert record["tier"] == 3 and record["truncated"]
    assert any(note.startswith("not valid JSON") for note in record["notes"])
    assert "ERROR: the writer crashed" in record["content"]


@pytest.mark.parametrize("share", [0.05, 0.3])
def test_a_streamed_report_fills_a_big_budget(small_stream: None, tmp_path: Path, share: float) -> None:
    path = tmp_path / "report.json"
    path.write_text(json.dumps(_report(6000), indent=2))
    raw = compress_file(path, 10**9)["raw_tokens"]
    budget = int(raw * share)
    record = compress_file(path, budget)
    assert record["tier"] == 3 and record["compacted_tokens"] >= 0.95 * budget
    json.loads(record["content"])


def test_the_pass_keeps_within_its_room(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the pass holds grows with the budget, not the file: ten times the room streamed
    through keeps about the room (its first and last items whatever the room)."""
    monkeypatch.setattr(json_sink, "LEAST_ROOM", 0)
    tokenizer = get_tokenizer("o200k_base")
    budget = 4000
    sink = json_sink.JsonSink(tokenizer, budget)
    room = json_sink.ROOM_BYTES_PER_TOKEN * budget
    text = json.dumps(_report(12_000))
    assert len(text) > 10 * room
    most = 0
    for start in range(0, len(text), 8192):
        sink.feed(text[start : start + 8192])
        most = max(most, sink.room.kept)
    sink.close()
    assert sink.failed is None and most <= room + 4096
    plan = sink.planned(10**6, tokenizer)
    assert plan is not None and plan.total == 10**6


def test_a_streamed_string_cut_by_the_pass_counts_all_it_left_out(small_stream: None, tmp_path: Path) -> None:
    """The pass keeps a long string's first 4,096 characters; the cut says how many of the
    whole string it left out, not of what the pass kept."""
    path = tmp_path / "logs.json"
    path.write_text(json.dumps({"log": "x" * 50_000, "rows": [{"n": i, "out": "y" * 9000} for i in range(20)]}))
    record = compress_file(path, 800)
    kept = json.loads(record["content"])
    cut = re.fullmatch(r"(x*)\.\.\. \((\d+) chars omitted\)", kept["log"])
    assert cut is not None and len(cut.group(1)) + int(cut.group(2)) == 50_000
    assert any("strings cut to their first 4096 characters" in note for note in record["notes"])


def test_a_big_file_with_a_byte_order_mark_is_json_and_one_nested_too_deeply_is_text(
    small_stream: None, tmp_path: Path
) -> None:
    marked = tmp_path / "bom.json"
    marked.write_text("\ufeff" + json.dumps({"rows": [{"n": i} for i in range(5000)]}))
    record = compress_file(marked, 500)
    assert json.loads(record["content"])["rows"][0] == {"n": 0}
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 30_000 + "1" + "]" * 30_000)
    record = compress_file(deep, 500)  # (no traceback: cut as text, and said)
    assert record["tier"] == 3 and any("nested too deeply" in note for note in record["notes"])
    assert "[TRUNCATED: content exceeds budget" in record["content"]  # (one line 120 times the room: its text's cut)


def test_a_bundle_streams_a_big_report_and_keeps_its_failures(small_stream: None, tmp_path: Path) -> None:
    """`ctxguard bundle` with a JSON report over the threshold: streamed, valid JSON within its
    budget, its failing tests shown, the work tree untouched."""
    from ctxguard.main import main
    from tests.gitrepo import configured
    from tests.test_hostile import SCHEMA

    repo = configured(
        tmp_path / "repo",
        "version: 1\nfail_on: never\ntotal_budget: 3000\nartifacts:\n"
        '  - name: report\n    paths: ["reports/*.json"]\n    budget: 2000\n',
    )
    repo.write("reports/report.json", json.dumps(_report(3000)))
    before = repo.snapshot()
    assert main(["bundle", "--repo", str(repo.path)]) == 0
    assert repo.snapshot() == before
    bundle = json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())
    jsonschema.validate(bundle, SCHEMA)
    (report,) = bundle["artifacts"]
    assert any(note.startswith("streamed:") for note in report["notes"])
    assert report["compacted_tokens"] <= report["budget"]
    kept = json.loads(report["content"])
    assert {item["nodeid"] for item in kept["tests"] if item.get("outcome") == "failed"} == {
        "tests/test_m.py::test_1000",
        "tests/test_m.py::test_2000",
    }


def test_a_streamed_cuts_plan_and_kept_document_are_let_go_of_before_its_probes_parse_it(
    small_stream: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The probes parse the cut (a tree of megabytes for a big file): by then the plan's units
    and the document the pass kept are gone, not held beside it."""
    import gc

    from ctxguard.engine import probes
    from ctxguard.kinds.json.units import Units

    alive: list[tuple[int, int]] = []
    measure = probes.measure

    def counting(*args: Any, **kwargs: Any) -> Any:
        gc.collect()
        objects = gc.get_objects()
        alive.append((sum(type(o) is Units for o in objects), sum(type(o) is json_sink._Array for o in objects)))
        return measure(*args, **kwargs)

    monkeypatch.setattr(stream.probes, "measure", counting)
    path = tmp_path / "report.json"
    path.write_text(json.dumps(_report(3000)))
    record = compress_file(path, 2000)
    assert record["tier"] == 3 and any(note.startswith("streamed:") for note in record["notes"])
    assert alive == [(0, 0)]
