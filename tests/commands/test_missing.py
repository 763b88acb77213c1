"""Optional artifacts: a configured file that does not exist is reported, and fails only when
required (`required: true` or `fail_on: missing`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ctxguard.config.load import parse_config
from ctxguard.errors import ConfigError
from ctxguard.main import main
from ctxguard.record import Record
from tests.gitrepo import Repo, configured

PLAN = "  - name: plan\n    paths: [docs/plan.md]\n    budget: 500\n"


def _repo(tmp_path: Path, top: str = "", entry: str = "") -> Repo:
    return configured(
        tmp_path / "repo", f"version: 1\n{top}artifacts:\n  - name: diff\n    budget: 2000\n" + PLAN + entry
    )


def _bundle(repo: Repo) -> dict:  # type: ignore[type-arg]
    assert main(["bundle", "--repo", str(repo.path)]) == 0
    return json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())


def test_a_missing_optional_file_is_reported_and_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path)
    record = next(a for a in _bundle(repo)["artifacts"] if a["artifact_name"] == "docs/plan.md")
    assert record["missing"] is True and record["error"] == "artifact not found at docs/plan.md"
    assert record["content"] == "[ERROR: artifact not found at docs/plan.md]"
    assert "docs/plan.md" in capsys.readouterr().err.split("MISSING")[0]
    assert main(["check", "--repo", str(repo.path)]) == 0


def test_required_true_fails_check_with_a_remedy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = _repo(tmp_path, entry="")
    repo.write(
        ".ctxguard.yaml",
        (repo.path / ".ctxguard.yaml").read_text().replace("budget: 500\n", "budget: 500\n    required: true\n"),
    )
    assert main(["check", "--repo", str(repo.path)]) == 1
    err = capsys.readouterr().err
    assert "docs/plan.md is missing (artifact not found at docs/plan.md) and required: true" in err
    assert "to pass, raise the artifact's budget" in err and "SKIP=" not in err
    assert main(["check", "--repo", str(repo.path), "--hook"]) == 1
    assert "SKIP=ctxguard,ctxguard-check git commit" in capsys.readouterr().err
    repo.write("docs/plan.md", "# Plan\n")
    assert main(["check", "--repo", str(repo.path)]) == 0


@pytest.mark.parametrize("fail_on", ["[truncated, missing]", "missing", "truncated,missing"])
def test_fail_on_missing_fails_for_every_entry(tmp_path: Path, fail_on: str) -> None:
    repo = _repo(tmp_path, top=f"fail_on: {fail_on}\n")
    assert main(["check", "--repo", str(repo.path)]) == 1
    assert main(["check", "--repo", str(repo.path), "--fail-on", "truncated"]) == 0


def test_a_glob_that_matches_nothing_is_missing_too(tmp_path: Path) -> None:
    repo = _repo(tmp_path, entry="  - name: logs\n    paths: ['reports/*.log']\n    budget: 300\n    required: true\n")
    record = next(a for a in _bundle(repo)["artifacts"] if a["artifact_name"] == "logs")
    assert record["missing"] is True and record["content"] == "[NO FILES MATCHED: reports/*.log]"
    assert Record.from_dict(record, "o200k_base").empty == "no files matched"
    assert main(["check", "--repo", str(repo.path)]) == 1


def test_fail_on_values_are_checked() -> None:
    entry = "artifacts:\n  - {name: x, paths: [a], budget: 100}\n"
    assert parse_config("fail_on: [truncated, missing]\n" + entry).fail_on == ("truncated", "missing")
    assert parse_config(entry).fail_on == ("truncated",)
    with pytest.raises(ConfigError, match="`never` cannot be combined"):
        parse_config("fail_on: [never, missing]\n" + entry)
    with pytest.raises(ConfigError, match="got 'always'"):
        parse_config("fail_on: [truncated, always]\n" + entry)


def test_the_help_example_runs_as_written_in_a_new_repository(tmp_path: Path) -> None:
    """`ctxguard init && ctxguard bundle && ctxguard check`, in a repository with nothing else."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    script = "ctxguard init && ctxguard bundle && ctxguard check"
    assert (
        script
        in subprocess.run(["python", "-m", "ctxguard", "--help"], capture_output=True, text=True, check=True).stdout
    )
    done = subprocess.run(
        ["bash", "-c", script.replace("ctxguard", "python -m ctxguard")], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "wrote .ctxguard.yaml" in done.stderr and "check passed (1 artifact)" in done.stderr
