"""git collection in real temporary repositories (never mocked git)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxguard.collect import NO_CHANGES, collect, split_diff
from ctxguard.config.load import parse_config
from ctxguard.errors import GitError
from ctxguard.git import repo as cgit
from tests.gitrepo import Repo


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.write("app.py", "def main():\n    return 1\n")
    r.write("notes.txt", "a\nb\nc\n")
    r.commit("initial")
    return r


def _collect(repo: Repo, diff: str, extra: str = "") -> list:  # type: ignore[type-arg]
    config = parse_config(f"artifacts:\n  - name: diff\n    diff: {diff!r}\n    budget: 5000\n{extra}")
    before = repo.snapshot()
    artifacts, _ = collect(config, repo.git)
    assert repo.snapshot() == before
    return artifacts


def test_staged_sees_only_the_index(repo: Repo) -> None:
    repo.write("app.py", "def main():\n    return 2\n")
    repo.add("app.py")
    repo.write("notes.txt", "a\nB\nc\n")  # unstaged
    text = _collect(repo, "staged")[0].text
    assert "+    return 2" in text and "notes.txt" not in text
    worktree = _collect(repo, "worktree")[0].text
    assert "notes.txt" in worktree and "app.py" not in worktree
    both = _collect(repo, "HEAD")[0].text
    assert "notes.txt" in both and "app.py" in both


def test_first_commit_of_an_empty_repository(tmp_path: Path) -> None:
    r = Repo(tmp_path / "fresh")
    r.write("hello.py", "print('hi')\n")
    r.add()
    text = _collect(r, "staged")[0].text
    assert "new file mode 100644" in text and "+print('hi')" in text


def test_rename_mode_change_deletion_and_binary(repo: Repo) -> None:
    repo.git.git.mv("notes.txt", "renamed.txt")
    repo.write("app.py", "def main():\n    return 1\n", mode=0o755)
    repo.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")
    repo.write("gone.txt", "x\n")
    more = repo.commit("more")
    repo.git.git.rm("-q", "gone.txt")
    repo.add()
    text = _collect(repo, more[:10])[0].text
    assert "rename from notes.txt\nrename to renamed.txt" in text
    assert "old mode 100644\nnew mode 100755" in text
    assert "Binary files /dev/null and b/logo.png differ" in text
    assert "deleted file mode" in _collect(repo, "staged")[0].text


def test_non_utf8_and_crlf_content(repo: Repo) -> None:
    repo.write("latin1.txt", "caf\xe9\r\nna\xefve\r\n".encode("latin-1"))
    repo.add()
    artifact = _collect(repo, "staged")[0]
    assert "caf\ufffd\r\n" in artifact.text
    assert any("U+FFFD" in note for note in artifact.notes)


def test_range_uses_the_merge_base(repo: Repo) -> None:
    base = repo.git.head.commit.hexsha
    repo.git.git.checkout("-q", "-b", "feature")
    repo.write("feature.py", "def feature():\n    pass\n")
    repo.commit("feature")
    repo.git.git.checkout("-q", "main")
    repo.write("main_only.py", "x = 1\n")
    repo.commit("main moved on")
    artifacts = _collect(repo, "main...feature")
    assert "feature.py" in artifacts[0].text and "main_only.py" not in artifacts[0].text
    config = parse_config("artifacts:\n  - {name: d, diff: 'main...feature', budget: 500}\n")
    _, source = collect(config, repo.git)
    assert source.base == base and source.diff == "main...feature"


def test_lockfiles_excluded_by_default_and_listed(repo: Repo) -> None:
    repo.write("package-lock.json", '{"lockfileVersion": 3}\n')
    repo.write("src/app.min.js", "var a=1;\n")
    repo.write("app.py", "def main():\n    return 3\n")
    repo.add()
    artifact = _collect(repo, "staged")[0]
    assert "package-lock.json" not in artifact.text and "app.py" in artifact.text
    assert artifact.excluded_files == ("package-lock.json", "src/app.min.js")
    included = _collect(repo, "staged", "    include_generated: true\n")[0]
    assert "package-lock.json" in included.text


def test_user_excludes(repo: Repo) -> None:
    repo.write("docs/gen/api.md", "# api\n")
    repo.write("app.py", "def main():\n    return 4\n")
    repo.add()
    artifact = _collect(repo, "staged", "    exclude: ['docs/gen/*']\n")[0]
    assert "docs/gen/api.md" not in artifact.text


def test_git_paths_keep_one_package_of_a_monorepo(repo: Repo) -> None:
    repo.write("services/api/handler.py", "def handle():\n    return 1\n")
    repo.write("services/api/db/models.py", "class Model:\n    pass\n")
    repo.write("services/web/page.ts", "export const page = 1;\n")
    repo.write("app.py", "def main():\n    return 5\n")
    repo.add()
    artifact = _collect(repo, "staged", "    source: git\n    paths: ['services/api/**']\n")[0]
    assert "services/api/handler.py" in artifact.text and "services/api/db/models.py" in artifact.text
    assert "page.ts" not in artifact.text and "app.py" not in artifact.text
    one_level = _collect(repo, "staged", "    source: git\n    paths: ['services/api/*']\n")[0]
    assert "services/api/handler.py" in one_level.text and "models.py" not in one_level.text  # `*` stays in a folder
    assert "models.py" in _collect(repo, "staged", "    source: git\n    paths: ['services/api']\n")[0].text
    untouched = _collect(repo, "staged", "    source: git\n    paths: ['infra/**']\n")[0]
    assert untouched.text == "[NO CHANGES UNDER infra/**: 4 changed files elsewhere]"
    assert any(
        "no changed file matches paths infra/**: the staged diff changes 4 files elsewhere" in n
        for n in untouched.notes
    )


def test_a_glob_matches_the_same_files_in_a_git_and_a_files_entry(repo: Repo) -> None:
    written = {"a.py", "src/b.py", "src/deep/c.py", "src/deep/er/d.py", "docs/e.md"}
    for path in sorted(written):
        repo.write(path, f"x = {len(path)}\n")
    repo.add()
    for glob in ("*.py", "src/*.py", "src/**/*.py", "src/**", "**/*.py", "src/deep/*"):
        in_git = {
            line.split(" b/")[-1]
            for line in _collect(repo, "staged", f"    source: git\n    paths: ['{glob}']\n")[0].text.splitlines()
            if line.startswith("diff --git ")
        }
        files = parse_config(f"artifacts:\n  - name: files\n    paths: ['{glob}']\n    budget: 5000\n")
        in_files = {a.name for a in collect(files, repo.git)[0]} & written  # (the diff has only these)
        assert in_git == in_files and in_git, glob


def test_empty_diff_gives_a_clear_record(repo: Repo) -> None:
    assert _collect(repo, "staged")[0].text == NO_CHANGES


def test_split_per_file(repo: Repo) -> None:
    repo.write("a.py", "a = 1\n")
    repo.write("b.py", "b = 2\n")
    repo.add()
    artifacts = _collect(repo, "staged", "    split: file\n")
    assert [a.name for a in artifacts] == ["diff:a.py", "diff:b.py"]
    assert all(a.budget == 2500 for a in artifacts)


@pytest.mark.parametrize("ref", ["--output=/tmp/pwned", "-p", "HEAD\n--help"])
def test_refs_can_never_become_options(repo: Repo, ref: str) -> None:
    with pytest.raises(GitError, match="not a valid git ref"):
        cgit.resolve(repo.git, ref)


def test_unknown_ref_is_a_clear_error(repo: Repo) -> None:
    with pytest.raises(GitError, match="cannot resolve 'nope'"):
        _collect(repo, "nope...HEAD")


def test_two_dot_range_is_refused_with_advice(repo: Repo) -> None:
    with pytest.raises(GitError, match="three dots"):
        _collect(repo, "main..HEAD")


def test_split_diff_paths_with_spaces() -> None:
    text = 'diff --git "a/my file.txt" "b/my file.txt"\n--- "a/my file.txt"\n+++ "b/my file.txt"\n@@ -1 +1 @@\n-a\n+b\n'
    assert split_diff(text)[0][0] == "my file.txt"


def test_submodule_change_is_one_line(repo: Repo, tmp_path: Path) -> None:
    sub = Repo(tmp_path / "sub")
    sub.write("x.txt", "x\n")
    first = sub.commit("one")
    repo.git.git.execute(["git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub.path), "lib"])
    repo.commit("add submodule")
    sub.write("x.txt", "y\n")
    second = sub.commit("two")
    repo.git.git.execute(["git", "-C", str(repo.path / "lib"), "fetch", "-q"])
    repo.git.git.execute(["git", "-C", str(repo.path / "lib"), "checkout", "-q", second])
    repo.add("lib")
    text = _collect(repo, "staged")[0].text
    assert f"-Subproject commit {first}\n+Subproject commit {second}\n" in text
    assert "x.txt" not in text  # the submodule's own files never flood the diff


def test_a_misspelt_diff_mode_is_named(repo: Repo) -> None:
    with pytest.raises(GitError, match=r"cannot resolve 'stagged' .*did you mean the diff mode 'staged'\?"):
        _collect(repo, "stagged")
