"""Files entries: globs, `**`, `exclude`, in real temporary repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxguard.collect import collect
from ctxguard.config.load import parse_config
from tests.gitrepo import Repo, configured


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.write("logs/run.log", "INFO start\n")
    r.write("logs/ci/unit.log", "ERROR unit failed\n")
    r.write("logs/ci/deep/e2e.log", "WARNING slow\n")
    r.write("logs/ci/noise.log", "INFO noise\n")
    r.commit("initial")
    return r


def _names(repo: Repo, entry: str) -> list[str]:
    config = parse_config(f"artifacts:\n  - name: logs\n    budget: 5000\n{entry}")
    artifacts, _ = collect(config, repo.git)
    return [a.name for a in artifacts]


def test_a_trailing_double_star_means_every_file_below(repo: Repo) -> None:
    assert _names(repo, '    paths: ["logs/**"]\n') == [
        "logs/ci/deep/e2e.log",
        "logs/ci/noise.log",
        "logs/ci/unit.log",
        "logs/run.log",
    ]


def test_exclude_applies_to_files_entries(repo: Repo) -> None:
    names = _names(repo, '    paths: ["logs/**/*.log"]\n    exclude: ["logs/ci/noise.log", "logs/ci/deep/*"]\n')
    assert names == ["logs/ci/unit.log", "logs/run.log"]


def test_nothing_under_the_git_directory_is_ever_an_artifact(tmp_path: Path) -> None:
    """`paths: ["**"]` takes the work tree's files, never `.git/` (its config, hooks and logs hold
    committers' e-mails); a path that names it is skipped and said."""
    from ctxguard.main import main

    repo = configured(
        tmp_path / "repo",
        "version: 1\nfail_on: never\nartifacts:\n"
        "  - {name: all, paths: ['**'], budget: 20000}\n"
        "  - {name: named, paths: ['.git/config'], budget: 100}\n",
    )
    out = tmp_path / "bundle.json"
    assert main(["bundle", "--repo", str(repo.path), "--output", str(out)]) in (0, 1)
    records = json.loads(out.read_text())["artifacts"]
    names = [r["artifact_name"] for r in records]
    assert not any(".git/" in name or name.startswith(".git") and name != ".gitignore" for name in names), names
    assert "app.py" in names and ".ctxguard.yaml" in names
    named = next(r for r in records if r["artifact_name"] == "named")
    assert "inside the git directory" in (named.get("error") or "")
    assert "test@example.com" not in out.read_text()
