"""Everything that talks to git (through gitpython); read-only, never touches the index.

Diffs come from git's plumbing (`diff-index`, `diff-files`, `diff-tree`), which never refreshes
the index: `git diff` rewrites `.git/index` (its stat data) when tracked files are stat-dirty
and holds `index.lock` meanwhile, even with GIT_OPTIONAL_LOCKS=0. Paths come as UTF-8 text
(`core.quotePath=false`); what git still quotes is read by `unquote`.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxguard.errors import GitError

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_DIFF_OPTIONS = (
    "-M",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--submodule=short",
    "--src-prefix=a/",
    "--dst-prefix=b/",
)


@dataclass(frozen=True)
class DiffResult:
    """A diff's bytes and the commits it was taken between."""

    data: bytes
    mode: str
    base: str | None
    head: str | None


def open_repo(start: str | Path = ".") -> Any:
    """The repository containing start, or GitError."""
    if shutil.which(os.environ.get("GIT_PYTHON_GIT_EXECUTABLE") or "git") is None:
        raise GitError(
            "git is not installed or not on PATH; install git (or put it on PATH) to "
            "collect diffs, or compress files with `ctxguard compress`"
        )
    import git

    try:
        repo = git.Repo(start, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise GitError(f"{Path(start).resolve()} is not inside a git repository") from None
    repo.git.set_persistent_git_options(c="core.quotePath=false")
    return repo


def root(repo: Any) -> Path:
    """The work tree's top folder."""
    if repo.working_tree_dir is None:
        raise GitError("bare repositories have no work tree to collect from")
    return Path(repo.working_tree_dir)


def git_path(repo: Any, name: str) -> Path:
    """`git rev-parse --git-path name`: a place inside the git directory, right for worktrees."""
    value = repo.git.rev_parse("--git-path", name)
    path = Path(value)
    return path if path.is_absolute() else root(repo) / path


def resolve(repo: Any, ref: str) -> str:
    """A user's ref to a commit id; refs can never become git options."""
    if not ref or ref.startswith("-") or any(c in ref for c in "\0\n"):
        raise GitError(f"{ref!r} is not a valid git ref")
    sha = _commit(repo, ref)
    if sha is None:
        hint = ""
        if is_shallow(repo):
            hint = (
                "; this is a shallow clone, which lacks that commit: fetch the history (in GitHub "
                "Actions, `fetch-depth: 0` in actions/checkout; else `git fetch --unshallow`)"
            )
        import difflib

        modes = difflib.get_close_matches(ref, ("staged", "worktree", "HEAD", "auto"), n=1, cutoff=0.75)
        if modes:
            hint += f"; did you mean the diff mode {modes[0]!r}?"
        raise GitError(f"cannot resolve {ref!r} to a commit in {root(repo)}{hint}")
    return sha


def _commit(repo: Any, ref: str) -> str | None:
    """The commit id ref names, or None."""
    import git

    try:
        return str(repo.git.rev_parse("--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"))
    except git.GitCommandError:
        return None


def is_shallow(repo: Any) -> bool:
    """True in a shallow clone (history cut off at some depth)."""
    try:
        return str(repo.git.rev_parse("--is-shallow-repository")).strip() == "true"
    except Exception:  # (an old git without the option)
        return False


def exists(repo: Any, ref: str) -> bool:
    """True when ref (one ctxguard names, not a user's) names a commit. (No shallow-clone hint
    is worked out for a ref that is only looked for.)"""
    return _commit(repo, ref) is not None


def unique_to(repo: Any, tip: str, base: str) -> int:
    """How many commits up to tip the ref base does not have."""
    return int(str(repo.git.rev_list("--count", resolve(repo, tip), "--not", resolve(repo, base))))


def unpushed(repo: Any, tip: str) -> list[str]:
    """The commits up to tip that no remote-tracking ref has, oldest first."""
    out = str(repo.git.rev_list("--reverse", "--topo-order", resolve(repo, tip), "--not", "--remotes"))
    return out.split()


def is_ancestor(repo: Any, older: str, newer: str) -> bool:
    """True when commit `older` is `newer` or one of its ancestors (both commit ids)."""
    import git

    try:
        repo.git.merge_base("--is-ancestor", older, newer)
    except git.GitCommandError:
        return False
    return True


def commits(repo: Any, since: str, tip: str) -> list[tuple[str, str]]:
    """The commits after `since` up to `tip` (both commit ids), oldest first: (id, subject)."""
    out = str(repo.git.log("--reverse", "--format=%H %s", f"{since}..{tip}", "--"))
    return [(line[:40], line[41:]) for line in out.splitlines() if line]


def ignored(repo: Any, path: Path) -> bool:
    """True when git ignores path (a file or folder in the work tree), or it lies in the git dir."""
    import git

    if Path(repo.git_dir).resolve() in path.resolve().parents:
        return True
    try:
        repo.git.check_ignore("-q", "--no-index", "--", str(path))
    except git.GitCommandError:
        return False
    return True


def has_remote_refs(repo: Any) -> bool:
    """True when some remote-tracking ref exists (a remote that has been fetched or pushed to)."""
    return bool(str(repo.git.for_each_ref("--count=1", "refs/remotes")).strip())


def parent(repo: Any, sha: str) -> str | None:
    """A commit's first parent, or None for a root commit."""
    parents = repo.commit(sha).parents
    return str(parents[0].hexsha) if parents else None


def has_staged(repo: Any) -> bool:
    """True when the index differs from HEAD (or holds anything, before the first commit)."""
    head = head_commit(repo)
    return bool(_run(repo, "diff-index", "--cached", "--name-only", head or EMPTY_TREE).strip())


def head_commit(repo: Any) -> str | None:
    """HEAD's commit id, or None in a repository without commits."""
    try:
        return str(repo.head.commit.hexsha)
    except ValueError:  # no commits yet
        return None


def _run(repo: Any, command: str, *args: str) -> bytes:
    """One plumbing diff command's bytes (diff-index, diff-files or diff-tree)."""
    import git

    options = ("-p", *_DIFF_OPTIONS) if "--name-only" not in args else ()
    try:
        data = getattr(repo.git, command.replace("-", "_"))(
            *options, *args, stdout_as_string=False, strip_newline_in_stdout=False, env={"GIT_OPTIONAL_LOCKS": "0"}
        )
    except git.GitCommandError as exc:
        raise GitError(f"git {command} failed: {str(exc.stderr).strip() or exc}") from None
    return bytes(data)


def diff(repo: Any, mode: str) -> DiffResult:
    """The diff for a mode: staged, worktree, HEAD, <commit>, or <base>...<head>."""
    head = head_commit(repo)
    if mode == "staged":
        return DiffResult(_run(repo, "diff-index", "--cached", head or EMPTY_TREE), mode, head, None)
    if mode == "worktree":
        return DiffResult(_run(repo, "diff-files"), mode, head, None)
    if mode == "HEAD":
        if head is None:
            raise GitError("diff: HEAD needs at least one commit; use `staged` for a new repository")
        return DiffResult(_run(repo, "diff-index", head), mode, head, None)
    if "..." in mode:
        base_ref, head_ref = mode.split("...", 1)
        if base_ref == EMPTY_TREE:  # everything up to head (a first push)
            head_sha = resolve(repo, head_ref or "HEAD")
            return DiffResult(_run(repo, "diff-tree", "-r", EMPTY_TREE, head_sha), mode, None, head_sha)
        base_sha, head_sha = resolve(repo, base_ref or "HEAD"), resolve(repo, head_ref or "HEAD")
        bases = repo.merge_base(base_sha, head_sha)
        if not bases:
            raise GitError(f"{base_ref} and {head_ref} have no common ancestor")
        merge_base = str(bases[0].hexsha)
        return DiffResult(_run(repo, "diff-tree", "-r", merge_base, head_sha), mode, merge_base, head_sha)
    if ".." in mode:
        raise GitError(
            f"use three dots for a range ({mode.replace('..', '...')}): ctxguard diffs "
            "from the merge base, as a pull request does"
        )
    sha = resolve(repo, mode)
    parents = repo.commit(sha).parents
    parent = str(parents[0].hexsha) if parents else EMPTY_TREE
    return DiffResult(_run(repo, "diff-tree", "-r", parent, sha), mode, parent, sha)
