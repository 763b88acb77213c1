"""ctxguard.ranges: the right diff wherever ctxguard runs, in real repositories with a remote."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ctxguard.errors import GitError
from ctxguard.git import ranges
from ctxguard.git import repo as git
from ctxguard.main import main
from ctxguard.record import Record
from tests.gitrepo import Repo, configured

CONFIG = "version: 1\nfail_on: never\nartifacts:\n  - name: diff\n    diff: staged\n    budget: 4000\n"


@pytest.fixture
def pushed(tmp_path: Path) -> Repo:
    """main pushed to a bare remote; then a branch with two commits no remote has."""
    repo = configured(tmp_path / "repo", CONFIG)
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "remote.git")], check=True)
    repo.git.git.remote("add", "origin", str(tmp_path / "remote.git"))
    repo.git.git.push("-q", "origin", "main")
    repo.git.git.remote("set-head", "origin", "main")
    repo.git.git.checkout("-q", "-b", "feature")
    repo.write("feature.py", "def feature():\n    raise ValueError('new')\n")
    repo.commit("feature 1")
    repo.write("more.py", "def more():\n    return 2\n")
    repo.commit("feature 2")
    return repo


def _files(repo: Repo, found: ranges.Range | None) -> list[str]:
    assert found is not None
    text = git.diff(repo.git, found.mode).data.decode()
    return sorted(line.split(" b/")[-1] for line in text.splitlines() if line.startswith("diff --git"))


def test_pre_push_without_a_remote_ref_diffs_the_commits_no_remote_has(pushed: Repo) -> None:
    found = ranges.resolve(
        pushed.git,
        None,
        hook=True,
        github=False,
        environ={"PRE_COMMIT_REMOTE_NAME": "origin", "PRE_COMMIT_TO_REF": "HEAD"},
    )
    assert _files(pushed, found) == ["feature.py", "more.py"]
    assert found is not None and "the 2 commits no remote has" in found.why


def test_a_first_push_to_a_remote_with_no_refs_diffs_the_last_commit_and_says_so(tmp_path: Path) -> None:
    repo = configured(tmp_path / "repo", CONFIG)  # one commit: .ctxguard.yaml and app.py
    found = ranges.resolve(repo.git, None, hook=True, github=False, environ={"PRE_COMMIT_REMOTE_NAME": "origin"})
    assert _files(repo, found) == [".ctxguard.yaml", "app.py"]  # the root commit is the last one
    repo.write("feature.py", "def feature():\n    return 3\n")
    repo.commit("feature")
    found = ranges.resolve(repo.git, None, hook=True, github=False, environ={"PRE_COMMIT_REMOTE_NAME": "origin"})
    assert _files(repo, found) == ["feature.py"]
    assert found is not None and "the last commit only" in found.why and "of the 2 being pushed" in found.why


def test_the_pushed_range_when_pre_commit_gives_one(pushed: Repo) -> None:
    base = pushed.git.git.rev_parse("main")
    found = ranges.resolve(
        pushed.git, None, hook=True, github=False, environ={"PRE_COMMIT_FROM_REF": base, "PRE_COMMIT_TO_REF": "HEAD"}
    )
    assert found == ranges.Range(f"{base}...HEAD", "the pushed range (pre-push)")


@pytest.mark.parametrize(
    "event, name", [({"before": "0" * 40, "after": "HEAD"}, "push"), ({}, "workflow_dispatch"), ({}, "schedule")]
)
def test_actions_events_without_a_range_diff_from_the_default_branch(
    pushed: Repo, tmp_path: Path, event: dict, name: str
) -> None:  # type: ignore[type-arg]
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event))
    if event:
        event["after"] = pushed.git.git.rev_parse("HEAD")
        path.write_text(json.dumps(event))
    environ = {"GITHUB_EVENT_PATH": str(path), "GITHUB_EVENT_NAME": name, "GITHUB_SHA": "HEAD"}
    found = ranges.resolve(pushed.git, None, hook=False, github=True, environ=environ)
    assert _files(pushed, found) == ["feature.py", "more.py"]
    assert found is not None and "merge base with origin/HEAD" in found.why


def test_a_pull_request_and_a_push_take_the_event_range(pushed: Repo, tmp_path: Path) -> None:
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"pull_request": {"base": {"sha": "a" * 40}, "head": {"sha": "b" * 40}}}))
    environ = {"GITHUB_EVENT_PATH": str(path)}
    assert ranges.resolve(pushed.git, None, hook=False, github=True, environ=environ).mode == f"{'a' * 40}...{'b' * 40}"  # type: ignore[union-attr]
    path.write_text(json.dumps({"before": "c" * 40, "after": "d" * 40}))
    assert ranges.resolve(pushed.git, None, hook=False, github=True, environ=environ).mode == f"{'c' * 40}...{'d' * 40}"  # type: ignore[union-attr]


def test_auto_and_all_files_in_ci_diff_from_the_default_branch(pushed: Repo) -> None:
    assert _files(pushed, ranges.resolve(pushed.git, "auto", hook=False, github=False, environ={})) == [
        "feature.py",
        "more.py",
    ]
    found = ranges.resolve(pushed.git, None, hook=True, github=False, environ={"CI": "true"})
    assert _files(pushed, found) == ["feature.py", "more.py"] and "--all-files" in found.why  # type: ignore[union-attr]
    assert ranges.resolve(pushed.git, None, hook=True, github=False, environ={}) is None  # local: staged
    assert ranges.resolve(pushed.git, "HEAD", hook=True, github=True, environ={"CI": "1"}) == ranges.Range(
        "HEAD", "--diff HEAD"
    )


def test_an_empty_range_is_said_in_the_record_not_passed_quietly(
    pushed: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    pushed.git.git.checkout("-q", "main")
    assert main(["bundle", "--repo", str(pushed.path), "--diff", "auto"]) == 0
    record = json.loads((pushed.path / ".git/ctxguard/bundle.json").read_text())["artifacts"][0]
    assert record["content"].startswith("[EMPTY RANGE: origin/HEAD...HEAD has no changes (--diff auto: against")
    assert any("is empty: check that it is the one meant" in note for note in record["notes"])
    assert "has nothing to review: [EMPTY RANGE" in capsys.readouterr().err
    # The digest says it is empty, and a record read back from the bundle knows why.
    bundle = json.loads((pushed.path / ".git/ctxguard/bundle.json").read_text())
    assert f"- {record['artifact_name']}: tier 1, empty [EMPTY RANGE" in bundle["digest"]
    assert Record.from_dict(record, "o200k_base").empty == "empty range"


def test_a_shallow_clone_says_how_to_get_the_history(pushed: Repo, tmp_path: Path) -> None:
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{pushed.path}", str(clone)], check=True
    )
    shallow = git.open_repo(clone)
    old = pushed.git.git.rev_parse("main")
    with pytest.raises(GitError, match="shallow clone.*fetch-depth: 0"):
        git.diff(shallow, f"{old}...HEAD")


def test_diff_auto_in_the_config(pushed: Repo) -> None:
    pushed.write(".ctxguard.yaml", CONFIG.replace("diff: staged", "diff: auto"))
    assert main(["bundle", "--repo", str(pushed.path)]) == 0
    record = json.loads((pushed.path / ".git/ctxguard/bundle.json").read_text())["artifacts"][0]
    assert "diff --git a/feature.py b/feature.py" in record["content"]
    assert "diff origin/HEAD...HEAD: diff: auto: against the merge base with origin/HEAD" in record["notes"]


@pytest.mark.parametrize(("environ", "verb"), [({}, "commit"), ({"PRE_COMMIT_REMOTE_NAME": "origin"}, "push")])
def test_the_hooks_remedy_names_the_command_that_ran(
    environ: dict[str, str], verb: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxguard.commands.bundle import _report_failures

    for key in ("PRE_COMMIT_REMOTE_NAME", "PRE_COMMIT_FROM_REF"):
        monkeypatch.delenv(key, raising=False)
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    assert _report_failures(["diff was truncated"], hook=True) == 1
    assert f"SKIP=ctxguard,ctxguard-check git {verb} ..." in capsys.readouterr().err


# --- incremental review: --since ----------------------------------------------------------------


@pytest.fixture
def reviewed(tmp_path: Path) -> tuple[Repo, str, str, str]:
    """main, then a branch with a reviewed commit and two new ones: (repo, base, seen, head)."""
    repo = configured(tmp_path / "repo", "version: 1\nartifacts:\n  - {name: diff, budget: 4000}\n")
    base = str(repo.git.head.commit.hexsha)
    repo.git.git.checkout("-q", "-b", "feature")
    repo.write("app.py", "def main():\n    return 2\n")
    repo.write("old.py", "def old():\n    return 'reviewed'\n")
    seen = repo.commit("reviewed already")
    repo.write("old.py", "def old():\n    return 'changed again'\n")
    repo.commit("touch old")
    repo.write("new.py", "def new():\n    return 'new'\n")
    head = repo.commit("add new")
    return repo, base, seen, head


def _records(repo: Repo, *args: str) -> list[dict[str, object]]:
    out = repo.path / ".git/ctxguard/bundle.json"
    assert main(["bundle", "--repo", str(repo.path), *args]) == 0
    return list(json.loads(out.read_text())["artifacts"])


def test_since_puts_the_new_commits_first_and_the_rest_as_context(reviewed: tuple[Repo, str, str, str]) -> None:
    repo, base, seen, head = reviewed
    new, context = _records(repo, "--diff", f"{base}...{head}", "--since", seen)
    assert new["artifact_name"] == "diff" and context["artifact_name"] == "diff (context)"
    notes = " ".join(new["notes"])  # type: ignore[arg-type]
    assert f"new since {seen[:12]} (2 commits: " in notes and "touch old" in notes and "add new" in notes
    assert "+def new():" in new["content"] and "changed again" in new["content"]  # type: ignore[operator]
    assert "app.py" not in new["content"]  # type: ignore[operator]
    # the context: the rest of the range, less the file whose whole change is new (new.py)
    assert "app.py" in context["content"] and "old.py" in context["content"]  # type: ignore[operator]
    assert "new.py" not in context["content"]  # type: ignore[operator]
    assert any("cut first" in note for note in context["notes"])  # type: ignore[attr-defined]


def test_since_falls_back_to_the_whole_range_when_the_commit_is_gone_or_rewritten(
    reviewed: tuple[Repo, str, str, str],
) -> None:
    repo, base, seen, head = reviewed
    (whole,) = _records(repo, "--diff", f"{base}...{head}", "--since", "f" * 40)
    assert any("not in this repository" in n and "whole range" in n for n in whole["notes"])  # type: ignore[attr-defined]
    repo.git.git.checkout("-q", "-b", "rewritten", base)  # a force-push: the reviewed commit is not an ancestor
    repo.write("other.py", "x = 1\n")
    elsewhere = repo.commit("elsewhere")
    (whole,) = _records(repo, "--diff", f"{base}...{head}", "--since", elsewhere)
    assert any("is not an ancestor of" in n for n in whole["notes"])  # type: ignore[attr-defined]
    assert "+def new():" in whole["content"] and "app.py" in whole["content"]  # type: ignore[operator]


def test_since_needs_a_range(reviewed: tuple[Repo, str, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, _, seen, _ = reviewed
    repo.write("staged.py", "x = 1\n")
    repo.add("staged.py")
    assert main(["bundle", "--repo", str(repo.path), "--since", seen]) == 2
    assert "--since needs a range" in capsys.readouterr().err


def test_since_auto_is_a_synchronize_events_before(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "before": "a" * 40, "after": "b" * 40}))
    assert ranges.since_ref("auto", {"GITHUB_EVENT_PATH": str(event)}) == "a" * 40
    event.write_text(json.dumps({"action": "opened", "before": "a" * 40}))
    assert ranges.since_ref("auto", {"GITHUB_EVENT_PATH": str(event)}) is None
    assert ranges.since_ref("auto", {}) is None
    assert ranges.since_ref("v1.2", {}) == "v1.2"
