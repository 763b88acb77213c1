"""The hooks in .pre-commit-hooks.yaml, run by the real pre-commit tool (`pre-commit try-repo`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.gitrepo import Repo, configured

pytestmark = pytest.mark.slow

CONFIG = """\
version: 1
fail_on: truncated
artifacts:
  - name: diff
    diff: staged
    budget: 300
"""


@dataclass(frozen=True)
class HookRepo:
    """This checkout as pre-commit sees it: one repository at one commit, so every try-repo call
    of the session reuses the one hook venv pre-commit builds for that (repo, rev)."""

    path: Path
    rev: str
    home: Path


def _index_unreachable(folder: Path) -> str | None:
    """Why pre-commit could not build its hook venv here, or None: it installs ctxguard's
    dependencies from the package index, or from the wheels CTXGUARD_TEST_WHEELS names."""
    if os.environ.get("CTXGUARD_TEST_WHEELS"):
        return None
    import sys

    probe = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--dest", str(folder), "unidiff>=0.7.5"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        done = None
    if done is not None and done.returncode == 0:
        return None
    return (
        "the package index is unreachable and CTXGUARD_TEST_WHEELS names no wheels, so pre-commit "
        "cannot build its hook venv (.ci/run builds the wheels first)"
    )


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> HookRepo:
    """A commit of this checkout as it is now, uncommitted changes included (what try-repo does
    by itself, but with a new commit, and so a new hook venv, at every call)."""
    why = _index_unreachable(tmp_path_factory.mktemp("index-probe"))
    if why is not None:
        pytest.skip(why)
    shadow = tmp_path_factory.mktemp("hook-repo")
    git = ["git", "-c", "user.name=ctxguard tests", "-c", "user.email=tests@example.com"]
    subprocess.run([*git, "clone", "-q", "--no-hardlinks", str(ROOT), str(shadow)], check=True)
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source, target = ROOT / name, shadow / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif target.exists():
            target.unlink()  # (deleted in the checkout, not yet committed)
    subprocess.run([*git, "add", "-A"], cwd=shadow, check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "the checkout under test"], cwd=shadow, check=True)
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=shadow, capture_output=True, text=True, check=True)
    return HookRepo(shadow, rev.stdout.strip(), tmp_path_factory.mktemp("pre-commit-home"))


def _try_repo(repo: Repo, hook_repo: HookRepo, hook: str, *extra: str) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("pre-commit")
    assert tool, "pre-commit is part of the test extra"
    env = {**os.environ, "PRE_COMMIT_HOME": str(hook_repo.home), "PRE_COMMIT_COLOR": "never"}
    if os.environ.get("CTXGUARD_TEST_WHEELS"):  # (offline CI: the wheels .ci/run built before)
        env |= {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": os.environ["CTXGUARD_TEST_WHEELS"]}
    return subprocess.run(
        [tool, "try-repo", str(hook_repo.path), hook, "--ref", hook_repo.rev, "--verbose", *extra],
        cwd=repo.path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _state(repo: Repo) -> tuple[str, str, str]:
    # pre-commit itself refreshes the index's stat data, so compare the index's entries, not bytes.
    files, _, status = repo.snapshot()
    return files, repo.git.git.ls_files("--stage"), status


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return configured(tmp_path / "repo", CONFIG)


def test_bundle_hook_writes_the_bundle_and_leaves_the_repository_alone(repo: Repo, hook_repo: HookRepo) -> None:
    repo.write("app.py", "def main():\n    raise SystemExit('boom')\n")
    repo.write("notes.txt", "unstaged and untracked\n")
    repo.add("app.py")
    before = _state(repo)
    done = _try_repo(repo, hook_repo, "ctxguard")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ctxguard bundle" in done.stdout and "Passed" in done.stdout
    assert _state(repo) == before  # work tree, staged entries and `git status` as they were
    bundle = json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())
    diff = bundle["artifacts"][0]
    assert bundle["source"]["diff"] == "staged" and diff["tier"] == 1
    assert "raise SystemExit('boom')" in diff["content"] and "notes.txt" not in diff["content"]


def test_check_hook_fails_on_the_configured_policy(repo: Repo, hook_repo: HookRepo) -> None:
    repo.write("app.py", "".join(f"def handler_{i}():\n    return {i}\n" for i in range(200)))
    repo.add("app.py")
    done = _try_repo(repo, hook_repo, "ctxguard-check")
    assert done.returncode == 1
    assert "Failed" in done.stdout and "check failed: diff was truncated" in done.stdout
    assert not (repo.path / ".git/ctxguard").exists()  # the gate writes nothing


def test_pre_push_stage_bundles_the_pushed_range(repo: Repo, hook_repo: HookRepo) -> None:
    base = repo.git.head.commit.hexsha
    repo.write("app.py", "def main():\n    return 2\n")
    head = repo.commit("second")
    done = _try_repo(repo, hook_repo, "ctxguard", "--hook-stage", "pre-push", "--from-ref", base, "--to-ref", head)
    assert done.returncode == 0, done.stdout + done.stderr
    bundle = json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())
    assert bundle["source"]["diff"] == f"{base}...{head}"
    assert "+    return 2" in bundle["artifacts"][0]["content"]


def _first_push(repo: Repo, hook_repo: HookRepo, tmp_path: Path, branch: str) -> subprocess.CompletedProcess[str]:
    """What pre-commit's pre-push hook runs at a first push to the empty remote tmp_path/remote.git
    (the push includes the root commit): --all-files and the remote's name, url and branches, but
    no from/to ref."""
    ref = f"refs/heads/{branch}"
    remote = str(tmp_path / "remote.git")
    return _try_repo(
        repo,
        hook_repo,
        "ctxguard",
        "--hook-stage",
        "pre-push",
        "--all-files",
        "--remote-name",
        "origin",
        "--remote-url",
        remote,
        "--remote-branch",
        ref,
        "--local-branch",
        ref,
    )


def test_first_push_to_an_empty_remote_bundles_the_last_commit(repo: Repo, hook_repo: HookRepo, tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "remote.git")], check=True)
    repo.git.git.remote("add", "origin", str(tmp_path / "remote.git"))
    repo.write("feature.py", "def feature():\n    return 3\n")
    repo.commit("feature")
    done = _first_push(repo, hook_repo, tmp_path, "main")
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())["artifacts"][0]
    assert "diff --git a/feature.py b/feature.py" in record["content"] and "a/app.py" not in record["content"]
    assert any("the last commit only" in note and "of the 2 being pushed" in note for note in record["notes"])


def test_first_push_of_a_branch_to_an_empty_remote_bundles_its_commits_not_on_main(
    repo: Repo, hook_repo: HookRepo, tmp_path: Path
) -> None:
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "remote.git")], check=True)
    repo.git.git.remote("add", "origin", str(tmp_path / "remote.git"))
    repo.git.git.checkout("-q", "-b", "topic")
    repo.write("one.py", "def one():\n    return 1\n")
    repo.commit("one")
    repo.write("two.py", "def two():\n    return 2\n")
    repo.commit("two")
    done = _first_push(repo, hook_repo, tmp_path, "topic")
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())["artifacts"][0]
    assert "diff --git a/one.py b/one.py" in record["content"] and "diff --git a/two.py b/two.py" in record["content"]
    assert "a/app.py" not in record["content"]
    assert any("the 2 commits not on main" in note for note in record["notes"]), record["notes"]


def test_all_files_in_ci_with_nothing_staged_bundles_the_branch(
    repo: Repo, hook_repo: HookRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.git.git.checkout("-q", "-b", "feature")
    repo.write("feature.py", "def feature():\n    return 3\n")
    repo.commit("feature")
    monkeypatch.setenv("CI", "true")
    done = _try_repo(repo, hook_repo, "ctxguard", "--all-files")
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())["artifacts"][0]
    assert "diff --git a/feature.py b/feature.py" in record["content"]
    assert any("pre-commit run --all-files" in note and "merge base with main" in note for note in record["notes"])


def test_a_first_commit_passes_without_a_config_and_after_init(
    tmp_path: Path, hook_repo: HookRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxguard.main import main

    repo = Repo(tmp_path / "fresh")  # no commits, no config
    monkeypatch.chdir(repo.path)
    repo.write("app.py", "def main():\n    return 1\n")
    repo.add()
    done = _try_repo(repo, hook_repo, "ctxguard")  # a first commit is never blocked for lack of a config
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout and "no .ctxguard.yaml: using the defaults" in done.stdout
    assert main(["init"]) == 0
    repo.add()
    done = _try_repo(repo, hook_repo, "ctxguard")
    assert done.returncode == 0 and "Passed" in done.stdout, done.stdout + done.stderr
    assert "using the defaults" not in done.stdout
    repo.git.git.commit("-q", "-m", "first")
