"""ctxguard install / uninstall in temporary repositories: the alias and the plain git hook."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from ctxguard.main import main
from tests.gitrepo import Repo, configured

CONFIG = "version: 1\nfail_on: truncated\nartifacts:\n  - name: diff\n    diff: staged\n    budget: 200\n"


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return configured(tmp_path / "repo", CONFIG)


def _git(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo.path, capture_output=True, text=True, env=os.environ)


def test_alias_runs_the_bundle_and_uninstall_removes_it(repo: Repo) -> None:
    assert main(["install", "alias", "--repo", str(repo.path)]) == 0
    repo.write("app.py", "def main():\n    return 2\n")
    repo.add("app.py")
    done = _git(repo, "ctx", "--stdout")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["artifacts"][0]["files"]["rows"][0][0] == "app.py"
    assert main(["uninstall", "alias", "--repo", str(repo.path)]) == 0
    assert _git(repo, "config", "--get", "alias.ctx").returncode == 1


def test_global_alias_with_a_name(repo: Repo) -> None:
    assert main(["install", "alias", "--name", "review", "--global"]) == 0
    gitconfig = Path(os.environ["GIT_CONFIG_GLOBAL"]).read_text()
    assert "review = " in gitconfig and "ctxguard bundle" in gitconfig
    assert main(["uninstall", "alias", "--name", "review", "--global"]) == 0
    assert "ctxguard" not in Path(os.environ["GIT_CONFIG_GLOBAL"]).read_text()


def test_alias_never_replaces_someone_elses(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    _git(repo, "config", "alias.ctx", "log --oneline")
    assert main(["install", "alias", "--repo", str(repo.path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["uninstall", "alias", "--repo", str(repo.path)]) == 2
    assert _git(repo, "config", "--get", "alias.ctx").stdout.strip() == "log --oneline"


def test_hook_writes_the_bundle_and_blocks_on_a_failed_policy(repo: Repo) -> None:
    assert main(["install", "hook", "--repo", str(repo.path)]) == 0
    hook = repo.path / ".git/hooks/pre-commit"
    assert os.access(hook, os.X_OK)
    repo.write("app.py", "def main():\n    return 3\n")
    repo.add("app.py")
    done = _git(repo, "commit", "-q", "-m", "small change")
    assert done.returncode == 0, done.stderr
    assert (repo.path / ".git/ctxguard/bundle.json").exists()
    assert _git(repo, "status", "--porcelain").stdout == ""  # nothing left for `git add -A`
    repo.write("app.py", "".join(f"def handler_{i}():\n    return {i}\n" for i in range(300)))
    repo.add("app.py")
    done = _git(repo, "commit", "-q", "-m", "too big to review")
    assert done.returncode == 1 and "check failed: diff was truncated" in done.stderr
    assert _git(repo, "log", "--format=%s", "-1").stdout.strip() == "small change"


def test_hook_refuses_to_overwrite_a_foreign_hook(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    hook = repo.path / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\nmake lint\n")
    assert main(["install", "hook", "--repo", str(repo.path)]) == 2
    assert "not written by ctxguard" in capsys.readouterr().err
    assert main(["uninstall", "hook", "--repo", str(repo.path)]) == 2
    assert hook.read_text() == "#!/bin/sh\nmake lint\n"


def test_hook_respects_core_hooks_path(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    _git(repo, "config", "core.hooksPath", ".husky")
    assert main(["install", "hook", "--repo", str(repo.path)]) == 2
    assert "core.hooksPath is set to '.husky'" in capsys.readouterr().err
    assert not (repo.path / ".husky").exists()
    assert main(["install", "hook", "--repo", str(repo.path), "--hooks-path"]) == 0
    assert (repo.path / ".husky/pre-commit").exists()
    assert main(["uninstall", "hook", "--repo", str(repo.path)]) == 0
    assert not (repo.path / ".husky/pre-commit").exists()


def test_reinstall_and_uninstall_are_idempotent(repo: Repo) -> None:
    assert main(["install", "hook", "--repo", str(repo.path)]) == 0
    assert main(["install", "hook", "--repo", str(repo.path)]) == 0
    assert main(["uninstall", "hook", "--repo", str(repo.path)]) == 0
    assert main(["uninstall", "hook", "--repo", str(repo.path)]) == 0
    assert not (repo.path / ".git/hooks/pre-commit").exists()


def test_uninstall_and_bundle_help_say_what_they_do(capsys) -> None:  # type: ignore[no-untyped-def]
    import pytest

    for argv, wanted, unwanted in (
        (["uninstall", "alias", "--help"], "remove the `git <name>` alias", "runs `ctxguard bundle`"),
        (["uninstall", "hook", "--help"], "remove the .git/hooks/pre-commit ctxguard wrote", "that runs"),
        (["install", "hook", "--help"], "runs `ctxguard bundle --check`", "remove"),
        (["bundle", "--help"], "markdown (for people and step summaries)", None),
    ):
        with pytest.raises(SystemExit):
            main(argv)
        out = " ".join(capsys.readouterr().out.split())
        assert wanted in out, argv
        assert unwanted is None or unwanted not in out, argv
    with pytest.raises(SystemExit):
        main(["bundle", "--help"])
    assert "| auto (the event's range in GitHub Actions" in " ".join(capsys.readouterr().out.split())
