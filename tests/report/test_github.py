"""ctxguard.github: the event's range, escaping, and the cap on warnings."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ctxguard.bundle.model import Bundle, build
from ctxguard.collect import Source
from ctxguard.record import Record
from ctxguard.report import github


def _bundle(truncated: int, total: int, **changes: dict[str, object]) -> Bundle:
    """A bundle of `total` logs, the first `truncated` of them cut; `changes` by record index."""
    records = [
        Record(f"logs/run-{i}.log", 900, 100, i < truncated, "…", "log", 3 if i < truncated else 1, 100, "o200k_base")
        for i in range(total)
    ]
    for i, fields in changes.items():
        records[int(i[1:])] = replace(records[int(i[1:])], **fields)  # type: ignore[arg-type]
    return build(
        records,
        source=Source("r", None, None, "staged"),
        encoding="o200k_base",
        total_budget=None,
        digest="## Digest\n",
        digest_tokens=3,
    )


def test_at_most_ten_warnings_and_the_rest_counted() -> None:
    lines = github.commands(_bundle(truncated=13, total=15))
    assert len(lines) == 11
    assert all(line.startswith("::warning title=ctxguard%3A logs/run-") for line in lines[:10])
    assert lines[10] == "::warning title=ctxguard::3 more artifacts: TRUNCATED"
    assert github.commands(_bundle(truncated=0, total=3)) == []


def test_statuses_are_told_apart_and_a_failed_check_is_an_error() -> None:
    bundle = _bundle(
        truncated=1,
        total=4,
        r1={"missing": True, "error": "artifact not found at docs/plan.md", "truncated": True},
        r2={"error": "binary data (NUL bytes); not a text artifact", "truncated": True},
        r3={"read": "reference", "truncated": True},
    )
    lines = github.commands(bundle, ["logs/run-0.log was truncated: 900 raw tokens for a budget of 100"])
    assert lines == [
        "::error title=ctxguard check failed::logs/run-0.log was truncated: 900 raw tokens for a budget of 100",
        "::warning title=ctxguard%3A logs/run-0.log::logs/run-0.log was truncated: 900 raw tokens for a "
        "budget of 100; the agent sees 100.",
        "::warning title=ctxguard%3A logs/run-1.log::logs/run-1.log is missing: artifact not found at docs/plan.md",
        "::warning title=ctxguard%3A logs/run-2.log::logs/run-2.log could not be read: binary data (NUL bytes); "
        "not a text artifact",
    ]
    text = github.summary(bundle, ["logs/run-0.log was truncated: 900 raw tokens for a budget of 100"])
    assert text.startswith("### ctxguard bundle\n\n**Check failed:**\n- logs/run-0.log was truncated")
    for name, state in (
        ("run-0", "**TRUNCATED**"),
        ("run-1", "**MISSING**"),
        ("run-2", "**ERROR**"),
        ("run-3", "REFERENCE"),
    ):
        assert f"| `logs/{name}.log` | log |" in text and text.split(f"`logs/{name}.log`")[1].split("\n")[0].endswith(
            f"| {state} |"
        )
    assert "Largest artifacts: `logs/run-0.log` (900 tokens)" in text
    assert "<details><summary>Digest</summary>" in text and "## Digest" in text
    assert github.summary(bundle, []).startswith("### ctxguard bundle\n\n**Check passed.**\n")
    assert github.outputs(bundle, None, [])["passed"] == "true"
    assert github.outputs(bundle, None)["passed"] == ""
    line = github.outputs(bundle, None, ["a", "b"])["summary"]
    assert line == (
        "ctxguard check failed: 4 artifacts (1 ERROR, 1 MISSING, 1 REFERENCE, 1 TRUNCATED), "
        "0 tokens (0% of a 128000-token window, GREEN); a (and 1 more)"
    )  # (a bundle not yet written: its size is settled as it is rendered)


def test_workflow_command_escaping() -> None:
    assert github.escape_data("50%\nnext\r") == "50%25%0Anext%0D"
    assert github.escape_property("a:b,c") == "a%3Ab%2Cc"


def test_publish_writes_outputs_and_summary(tmp_path: Path) -> None:
    env = {"GITHUB_OUTPUT": str(tmp_path / "out"), "GITHUB_STEP_SUMMARY": str(tmp_path / "sum")}
    github.publish(_bundle(truncated=1, total=2), Path("b.json"), env)
    out = (tmp_path / "out").read_text()
    assert "bundle-path<<ctxguard_" in out and "\nb.json\n" in out and "\n1\n" in out
    assert "| `logs/run-0.log` | log | 3 | 900 | 100 | 100 | **TRUNCATED** |" in (tmp_path / "sum").read_text()
    assert "| `logs/run-1.log` | log | 1 | 900 | 100 | 100 | OK |" in (tmp_path / "sum").read_text()


def test_every_part_of_a_split_change_is_an_output(tmp_path: Path) -> None:
    env = {"GITHUB_OUTPUT": str(tmp_path / "out")}
    parts = [Path("b/bundle-1.json"), Path("b/bundle-2.json")]
    github.publish(_bundle(truncated=0, total=1), parts[0], env, parts=parts)
    out = (tmp_path / "out").read_text()
    assert "bundle-paths<<ctxguard_" in out and "\nb/bundle-1.json\nb/bundle-2.json\n" in out
    single = github.outputs(_bundle(truncated=0, total=1), Path("b/bundle.json"))
    assert single["bundle-paths"] == "b/bundle.json"
