"""Which diff a run reviews, wherever it runs: one resolver for hooks, Actions and `--diff auto`.

- `--diff MODE` (anything but `auto`) is taken as given.
- A pre-push hook diffs the pushed range (PRE_COMMIT_FROM_REF...PRE_COMMIT_TO_REF). When
  pre-commit gives no remote ref (the first push to an empty remote, or of a branch whose
  history the remote lacks), it diffs the commits no remote has: from the parent of the oldest
  of them (or from nothing, when that is a root commit) to the tip.
- In GitHub Actions: a pull request's base...head; a push's before...after; a push whose
  `before` is all zeros (a new branch), `workflow_dispatch`, `schedule` and other events diff
  from the merge base with the default branch.
- `pre-commit run --all-files` in CI (a hook with nothing staged and CI set) and `--diff auto`
  elsewhere diff from the merge base with the default branch (`origin/HEAD`, else
  `origin/main`, `origin/master`, `main`, `master`).
- Otherwise None: each git entry's own `diff:` (default `staged`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxguard.errors import GitError
from ctxguard.git import repo as git
from ctxguard.words import plural

ZERO = "0" * 40
DEFAULT_BRANCHES = ("origin/HEAD", "origin/main", "origin/master", "main", "master")


@dataclass(frozen=True)
class Range:
    """A git.diff mode and how it was chosen (said in the diff record's notes)."""

    mode: str
    why: str


def resolve(repo: Any, diff: str | None, *, hook: bool, github: bool, environ: Mapping[str, str]) -> Range | None:
    """The range this run reviews, or None for each entry's own `diff:`."""
    if diff and diff != "auto":
        return Range(diff, f"--diff {diff}")
    if hook:
        start, end = environ.get("PRE_COMMIT_FROM_REF"), environ.get("PRE_COMMIT_TO_REF")
        if start and end and start != ZERO:
            return Range(f"{start}...{end}", "the pushed range (pre-push)")
        if environ.get("PRE_COMMIT_REMOTE_NAME"):
            return unpushed(repo, end or environ.get("PRE_COMMIT_LOCAL_BRANCH") or "HEAD")
    if github or (diff == "auto" and environ.get("GITHUB_EVENT_PATH")):
        found = _event(repo, environ)
        if found is not None:
            return found
    if diff == "auto" or (hook and environ.get("CI") and not git.has_staged(repo)):
        return since_default(
            repo, "HEAD", "--diff auto" if diff == "auto" else "nothing staged in CI (pre-commit run --all-files)"
        )
    return None


def unpushed(repo: Any, tip: str) -> Range:
    """The commits up to tip that no remote has; at a first push to a remote with no refs at all
    (where every commit is one no remote has), those not on the default branch when it is known
    here and the tip is not on it, else the last commit only."""
    commits = git.unpushed(repo, tip)
    if not commits:
        return Range(f"{tip}...{tip}", f"pre-push: {tip} is on a remote already, nothing to push")
    if not git.has_remote_refs(repo):  # a new, empty remote: the whole history is not the change
        for name in DEFAULT_BRANCHES:
            if git.exists(repo, name) and (n := git.unique_to(repo, tip, name)):
                return Range(
                    f"{name}...{tip}",
                    f"pre-push to a remote with no refs yet: the {plural(n, 'commit')} not on {name} "
                    f"(of the {len(commits)} being pushed)",
                )
        last = commits[-1]
        base = git.parent(repo, last) or git.EMPTY_TREE
        return Range(
            f"{base}...{tip}",
            f"pre-push to a remote with no refs yet: the last commit only "
            f"({last[:12]}) of the {len(commits)} being pushed; to review "
            "more, run `ctxguard bundle --diff <base>...HEAD`",
        )
    parent = git.parent(repo, commits[0])
    base = parent or git.EMPTY_TREE
    start = "the start of history" if parent is None else parent[:12]
    return Range(
        f"{base}...{tip}",
        f"pre-push without a remote ref: the {plural(len(commits), 'commit')} no remote has, from {start}",
    )


def since_default(repo: Any, tip: str, why: str, default: str | None = None) -> Range | None:
    """tip against its merge base with the default branch (`default`, the event's, first, when
    it is known), or None when there is none."""
    names = ((f"origin/{default}", default) if default else ()) + DEFAULT_BRANCHES
    for name in names:
        if git.exists(repo, name):
            return Range(f"{name}...{tip}", f"{why}: against the merge base with {name}")
    return None


def _read_event(environ: Mapping[str, str]) -> dict[str, Any] | None:
    """The GitHub Actions event (GITHUB_EVENT_PATH's JSON object), or None."""
    path = environ.get("GITHUB_EVENT_PATH")
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8")) if path else None
    except (OSError, ValueError):
        return None
    return event if isinstance(event, dict) else None


def _event(repo: Any, environ: Mapping[str, str]) -> Range | None:
    event = _read_event(environ)
    if event is None:
        return None
    name = environ.get("GITHUB_EVENT_NAME", "")
    repository = event.get("repository")
    default = repository.get("default_branch") if isinstance(repository, dict) else None
    default = default if isinstance(default, str) and default and not default.startswith("-") else None
    pull = event.get("pull_request")
    if isinstance(pull, dict):
        base, head = pull.get("base", {}).get("sha"), pull.get("head", {}).get("sha")
        if isinstance(base, str) and isinstance(head, str):
            return Range(f"{base}...{head}", "the pull request (base...head)")
    before, after = event.get("before"), event.get("after")
    if isinstance(before, str) and isinstance(after, str) and after != ZERO:
        if before != ZERO:
            return Range(f"{before}...{after}", "the push (before...after)")
        return since_default(repo, after, "a push of a new branch (before is all zeros)", default)
    return since_default(repo, environ.get("GITHUB_SHA") or "HEAD", f"a {name or 'workflow'} event", default)


@dataclass(frozen=True)
class Since:
    """An incremental review: the commit already reviewed (`sha`, None when the whole range is
    reviewed instead), the commits after it, and what to say about it."""

    sha: str | None
    commits: tuple[tuple[str, str], ...]
    why: str


COMMITS_SAID = 5  # of the new commits, named in the note (the rest counted)


def since_ref(given: str | None, environ: Mapping[str, str]) -> str | None:
    """`--since REF` as given; `auto` is a pull request `synchronize` event's `before` (the head
    the last review saw) in GitHub Actions, else None (no earlier review: the whole range)."""
    if given != "auto":
        return given
    event = _read_event(environ)
    if event is None or event.get("action") != "synchronize":
        return None
    before = event.get("before")
    return before if isinstance(before, str) and before and before != ZERO and not before.startswith("-") else None


def incremental(repo: Any, ref: str, head: str) -> Since:
    """What changed after `ref` up to `head` (a commit id), or why the whole range is reviewed:
    `ref` is not here (a force-push removed it, or a shallow clone lacks it) or is not an
    ancestor of `head` (the branch was rewritten)."""
    try:
        sha = git.resolve(repo, ref)  # (one look-up; a ref starting with "-" is refused, never an option)
    except GitError:
        return Since(
            None,
            (),
            f"--since {ref}: that commit is not in this repository (a force-push, or a shallow "
            "clone without it): the whole range is reviewed",
        )
    if not git.is_ancestor(repo, sha, head):
        return Since(
            None,
            (),
            f"--since {ref}: {sha[:12]} is not an ancestor of {head[:12]} (the branch was "
            "rewritten, as by a force-push or rebase): the whole range is reviewed",
        )
    found = tuple(git.commits(repo, sha, head))
    named = "; ".join(f"{c[:7]} {subject}" for c, subject in found[:COMMITS_SAID])
    more = f"; and {len(found) - COMMITS_SAID} more" if len(found) > COMMITS_SAID else ""
    said = f": {named}{more}" if found else ""
    return Since(sha, found, f"new since {sha[:12]} ({plural(len(found), 'commit')}{said})")
