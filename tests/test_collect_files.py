"""Files entries: globs, `**`, `exclude`, in real temporary repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxguard.collect import collect
from ctxguard.config import parse_config
from tests.gitrepo import Repo


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
