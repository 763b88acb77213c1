"""ctxguard.github: the event's range, escaping, and the cap on warnings."""
from __future__ import annotations

import json
from pathlib import Path

from ctxguard import github


def _bundle(truncated: int, total: int) -> dict:  # type: ignore[type-arg]
    artifacts = [{"artifact_name": f"logs/run-{i}.log", "type": "log", "tier": 3 if i < truncated else 1,
                  "raw_tokens": 900, "compacted_tokens": 100, "budget": 100, "truncated": i < truncated}
                 for i in range(total)]
    return {"encoding": "o200k_base", "total_budget": None, "artifacts": artifacts,
            "digest": {"content": "## Digest\n", "tokens": 3},
            "totals": {"artifacts": total, "compacted_tokens": 100 * total, "capacity": 100 * total,
                       "truncated": truncated}}


def test_at_most_ten_warnings_and_the_rest_counted() -> None:
    lines = github.warnings(_bundle(truncated=13, total=15))
    assert len(lines) == 11
    assert all(line.startswith("::warning title=ctxguard%3A logs/run-") for line in lines[:10])
    assert lines[10] == "::warning title=ctxguard::3 more artifacts were truncated"
    assert github.warnings(_bundle(truncated=0, total=3)) == []


def test_workflow_command_escaping() -> None:
    assert github.escape_data("50%\nnext\r") == "50%25%0Anext%0D"
    assert github.escape_property("a:b,c") == "a%3Ab%2Cc"


def test_event_range_for_pull_requests_pushes_and_others(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"base": {"sha": "a" * 40}, "head": {"sha": "b" * 40}}}))
    assert github.event_range({"GITHUB_EVENT_PATH": str(event)}) == f"{'a' * 40}...{'b' * 40}"
    event.write_text(json.dumps({"before": "c" * 40, "after": "d" * 40}))
    assert github.event_range({"GITHUB_EVENT_PATH": str(event)}) == f"{'c' * 40}...{'d' * 40}"
    event.write_text(json.dumps({"before": "0" * 40, "after": "d" * 40}))  # a new branch
    assert github.event_range({"GITHUB_EVENT_PATH": str(event)}) is None
    event.write_text("not json")
    assert github.event_range({"GITHUB_EVENT_PATH": str(event)}) is None
    assert github.event_range({}) is None


def test_publish_writes_outputs_and_summary(tmp_path: Path) -> None:
    env = {"GITHUB_OUTPUT": str(tmp_path / "out"), "GITHUB_STEP_SUMMARY": str(tmp_path / "sum")}
    github.publish(_bundle(truncated=1, total=2), Path("b.json"), env)
    out = (tmp_path / "out").read_text()
    assert "bundle-path<<ctxguard_" in out and "\nb.json\n" in out and "\n1\n" in out
    assert "| `logs/run-0.log` | log | 3 | 900 | 100 | 100 | **yes** |" in (tmp_path / "sum").read_text()
