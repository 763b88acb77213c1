"""Config -> artifacts: git diffs, files by glob and a workflow run's job logs, each with its
share of its entry's budget."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from ctxguard.config.model import ArtifactSpec, Config
from ctxguard.generated import GENERATED, is_excluded, matches_paths
from ctxguard.git import repo as git
from ctxguard.git.paths import header_path, line_path
from ctxguard.git.ranges import incremental, since_default
from ctxguard.options import MIN_BUDGET, Options
from ctxguard.read import big, read_artifact
from ctxguard.record import Empty
from ctxguard.words import plural

NO_CHANGES = "[NO CHANGES]"


@dataclass(frozen=True)
class Artifact:
    """One artifact to compress: its text (or why there is none) and its requested budget."""

    name: str
    entry: str
    budget: int
    text: str | None
    error: str | None = None
    type: str | None = None
    priority: str = "normal"
    max_raw_tokens: int | None = None
    shares: bool = False  # share_surplus: may take other entries' unused budget
    line_numbers: bool = False  # a diff's hunk lines show their new-file line numbers
    notes: tuple[str, ...] = ()
    diff: str | None = None  # a git entry's diff mode
    excluded_files: tuple[str, ...] = ()  # left out of the diff (generated or lock files)
    redacted: tuple[tuple[str, int], ...] = ()  # secrets replaced, by kind
    stream: Path | None = None  # a big file, read in one pass if its kind can (ctxguard.pipeline)
    reference: Path | None = None  # a file described, not included (ctxguard.reference)
    missing: bool = False  # a configured path that does not exist, or a glob that matched nothing
    empty: Empty | None = None  # why it has nothing to show (its text says it in words)
    options: Options = Options()  # how it is cut: its entry's, attached once here (see collect)


@dataclass(frozen=True)
class Source:
    """Where the diffs came from, for the bundle's `source`."""

    repository: str
    head: str | None
    base: str | None
    diff: str | None


def collect(
    config: Config,
    repo: Any,
    diff_override: str | None = None,
    reason: str | None = None,
    missed: bool = False,
    since: str | None = None,
) -> tuple[list[Artifact], Source]:
    """Every artifact the config names, in config order, files sorted within an entry; each with
    the Options it is cut with (its entry's task and tier-3 mode, else the config's; `missed`:
    list the probes a cut lost), which every later stage reads. `since`: a commit already
    reviewed; each git entry's change after it comes first (see _incremental)."""
    top = git.root(repo)
    artifacts: list[Artifact] = []
    source = Source(repository=top.name, head=None, base=None, diff=None)
    for spec in config.artifacts:
        if spec.source == "git":
            mode = diff_override or spec.diff or "staged"
            why = reason if diff_override else None
            if mode == "auto":  # (a config's `diff: auto`: the command line resolves its own)
                chosen = since_default(repo, "HEAD", "diff: auto")
                mode, why = (chosen.mode, chosen.why) if chosen else ("staged", "diff: auto: no default branch, staged")
            found, result = _git_artifacts(spec, repo, mode, why)
            if since is not None:
                found = _incremental(spec, repo, found, result, since)
            source = Source(top.name, result.head or result.base, result.base if result.head else None, mode)
        elif spec.source == "github-run":
            found = _run_artifacts(spec, repo)
        else:
            found = _file_artifacts(spec, top, Path(repo.git_dir).resolve())
        how = Options(task=spec.task, tier2_ratio=config.tier2_ratio, tier3=spec.tier3 or config.tier3, missed=missed)
        artifacts.extend(replace(a, options=how) for a in found)
    if source.head is None:
        head = git.head_commit(repo)
        source = Source(source.repository, head, source.base, source.diff)
    return artifacts, source


def split_diff(text: str) -> list[tuple[str, str]]:
    """A git diff as (path, text) per changed file, in diff order."""
    parts: list[tuple[str, str]] = []
    current: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("diff --git ") and current:
            parts.append((_path_of(current), "".join(current)))
            current = []
        current.append(line)
    if current:
        parts.append((_path_of(current), "".join(current)))
    return parts


def _path_of(lines: list[str]) -> str:
    for line in lines[:8]:
        if line.startswith("rename to "):
            return line_path(line, "rename to ")
    path = header_path(lines[0])
    if path is not None:
        return path
    for line in lines[:8]:
        if line.startswith(("+++ b/", '+++ "b/')):
            return line_path(line, "+++ ")
    return lines[0].rstrip("\n")


def _git_artifacts(
    spec: ArtifactSpec, repo: Any, mode: str, reason: str | None = None
) -> tuple[list[Artifact], git.DiffResult]:
    result = git.diff(repo, mode)
    text = result.data.decode("utf-8", "replace")
    notes = [f"diff {mode}: {reason}"] if reason else []
    if "\ufffd" in text and b"\xef\xbf\xbd" not in result.data:
        notes.append("invalid UTF-8 in the diff replaced with U+FFFD")
    patterns = spec.exclude + (() if spec.include_generated else GENERATED)
    kept: list[tuple[str, str]] = []
    excluded: list[str] = []
    elsewhere = 0  # changed files outside the entry's paths
    for path, part in split_diff(text):
        if spec.paths and not matches_paths(path, spec.paths):
            elsewhere += 1
            continue  # outside this entry's part of the repository (a monorepo package)
        if is_excluded(path, patterns):
            excluded.append(path)
        else:
            kept.append((path, part))
    if excluded:
        notes.append(f"excluded from the diff (generated or lock files): {', '.join(excluded)}")
    common = dict(
        diff=mode,
        excluded_files=tuple(excluded),
        entry=spec.name,
        type="diff",
        priority=spec.priority,
        max_raw_tokens=spec.max_raw_tokens,
        shares=spec.share_surplus,
        line_numbers=spec.line_numbers,
        notes=tuple(notes),
    )
    if not kept and elsewhere and not excluded:  # a monorepo package the change does not touch
        where = ", ".join(spec.paths)
        said = f"no changed file matches paths {where}: the {mode} diff changes {plural(elsewhere, 'file')} elsewhere"
        common["notes"] = (*notes, said)
        text = f"[NO CHANGES UNDER {where}: {plural(elsewhere, 'changed file')} elsewhere]"
        return [Artifact(name=spec.name, budget=spec.budget, text=text, empty="no changes", **common)], result  # type: ignore[arg-type]
    if not kept:
        text, why = NO_CHANGES, "no changes"
        if "..." in mode:  # a range with nothing in it is worth a warning, not a quiet pass
            text, why = f"[EMPTY RANGE: {mode} has no changes{' (' + reason + ')' if reason else ''}]", "empty range"
            common["notes"] = (*notes, f"the range {mode} is empty: check that it is the one meant")
        return [Artifact(name=spec.name, budget=spec.budget, text=text, empty=why, **common)], result  # type: ignore[arg-type]
    if spec.split == "file":
        return _per_file(spec, kept, common), result
    if spec.split == "chunks":  # (the files are grouped into bundles later)
        share = max(MIN_BUDGET, spec.budget // len(kept))
        return [
            Artifact(name=f"{spec.name}:{path}", budget=share, text=part, **common)  # type: ignore[arg-type]
            for path, part in kept
        ], result
    body = "".join(part for _, part in kept)
    return [Artifact(name=spec.name, budget=spec.budget, text=body, **common)], result  # type: ignore[arg-type]


def _per_file(spec: ArtifactSpec, kept: list[tuple[str, str]], common: dict[str, Any]) -> list[Artifact]:
    """`split: file`: an artifact a changed file, the entry's budget shared among them. When the
    files outnumber what the budget gives the smallest budget each, as many as fit come alone and
    the rest come together in one artifact (`<entry>:other files`), their paths in its notes: the
    entry keeps to its budget, and no file is dropped unsaid."""
    alone = len(kept) if len(kept) * MIN_BUDGET <= spec.budget else max(0, spec.budget // MIN_BUDGET - 1)
    parts = len(kept) if alone == len(kept) else alone + 1
    share = max(MIN_BUDGET, spec.budget // parts)
    out = [Artifact(name=f"{spec.name}:{path}", budget=share, text=part, **common) for path, part in kept[:alone]]
    rest = kept[alone:]
    if rest:
        paths = [path for path, _ in rest]
        listed = ", ".join(paths[:OTHER_FILES_LISTED]) + (
            f" and {len(paths) - OTHER_FILES_LISTED} more" if len(paths) > OTHER_FILES_LISTED else ""
        )
        said = (
            f"split: file: {plural(len(kept), 'changed file')} at budget {spec.budget} leave under "
            f"{MIN_BUDGET} tokens each; {plural(len(rest), 'file')} come together here: {listed}"
        )
        others = dict(common, notes=(*common["notes"], said))
        out.append(Artifact(name=f"{spec.name}:other files", budget=share, text="".join(p for _, p in rest), **others))
    return out


OTHER_FILES_LISTED = 50  # paths a note names before `and N more`


def _incremental(
    spec: ArtifactSpec, repo: Any, whole: list[Artifact], result: git.DiffResult, ref: str
) -> list[Artifact]:
    """An incremental review of a git entry: what changed after `ref` first, with three quarters
    of the entry's budget, then the rest of the range as context (`NAME (context)`, low
    priority: cut first), less the files whose whole change is new (not repeated). When `ref` is
    gone or is not an ancestor of the range's head (a force-push), the whole range, said."""
    from ctxguard.errors import UsageError

    if result.head is None:
        raise UsageError(f"--since needs a range to review (--diff BASE...HEAD, a commit, or auto), not {result.mode}")
    if spec.split == "chunks":
        raise UsageError(f"--since: entry {spec.name!r} has split: chunks; an incremental review takes none or file")
    found = incremental(repo, ref, result.head)
    if found.sha is None:
        return [replace(a, notes=(*a.notes, found.why)) for a in whole]
    budget = max(MIN_BUDGET, spec.budget * 3 // 4)
    new, _ = _git_artifacts(replace(spec, budget=budget), repo, f"{found.sha}...{result.head}", found.why)
    seen = {path: part for a in new if a.text and a.text.startswith("diff ") for path, part in split_diff(a.text)}
    context: list[Artifact] = []
    for a in whole:
        if not (a.text and a.text.startswith("diff ")):
            continue  # (nothing in the range: the new part says so)
        parts = [(path, part) for path, part in split_diff(a.text) if seen.get(path) != part]
        if parts:
            context.append(replace(a, text="".join(part for _, part in parts)))
    if not context:
        return new
    share = max(MIN_BUDGET, (spec.budget - budget) // len(context))
    said = (
        f"context for the review of what is new since {found.sha[:12]}: the rest of {result.mode}, "
        f"less the files whose whole change is new; cut first"
    )
    return new + [
        replace(a, name=f"{a.name} (context)", budget=share, priority="low", notes=(*a.notes, said)) for a in context
    ]


def _file_artifacts(spec: ArtifactSpec, top: Path, git_dir: Path) -> list[Artifact]:
    """The files an entry names; nothing under the git directory is ever an artifact (its
    config, hooks and logs, with committers' e-mails)."""
    common = _entry_fields(spec, spec.type)
    matches: dict[Path, None] = {}  # (in order, each once: a set's look-up, not a list's walk)
    problems: list[str] = []
    gone: set[Path] = set()  # configured paths that do not exist
    resolved_top = top.resolve()
    for pattern in spec.paths:
        if Path(pattern).is_absolute() or ".." in PurePosixPath(pattern).parts:
            problems.append(f"path {pattern!r} leaves the repository; use a path inside it")
            continue
        # `logs/**` means every file below logs/ (pathlib's `**` alone matches only folders).
        globbed = f"{pattern}/*" if pattern.endswith("**") else pattern
        for path in sorted(top.glob(globbed)) if _is_glob(pattern) else [top / pattern]:
            if not _is_glob(pattern) and not path.exists() and not path.is_symlink():
                gone.add(path)
            if path.is_dir() and _is_glob(pattern):
                continue
            if not inside(resolved_top, path):
                problems.append(f"{path.relative_to(top)} points outside the repository; skipped")
                continue
            if _in_git_dir(path.relative_to(top), path, git_dir):
                if not _is_glob(pattern):
                    problems.append(f"{path.relative_to(top)} is inside the git directory; skipped")
                continue
            if spec.exclude and is_excluded(path.relative_to(top).as_posix(), spec.exclude):
                continue  # `exclude:` applies to files entries as to git entries
            matches.setdefault(path)
    if problems and not matches:
        return [Artifact(name=spec.name, budget=spec.budget, text=None, error="; ".join(problems), **common)]
    if not matches:
        text = f"[NO FILES MATCHED: {', '.join(spec.paths)}]"
        return [
            Artifact(
                name=spec.name,
                budget=spec.budget,
                text=text,
                notes=("no file matched",),
                missing=True,
                empty="no files matched",
                **common,
            )
        ]
    share = max(MIN_BUDGET, spec.budget // len(matches))
    out = []

    for path in matches:
        rel = path.relative_to(top).as_posix()
        if path in gone:
            out.append(
                Artifact(
                    name=rel,
                    budget=share,
                    text=None,
                    error=f"artifact not found at {rel}",
                    missing=True,
                    notes=tuple(problems),
                    reference=path if spec.reference else None,
                    **common,
                )
            )
            continue
        if spec.reference:  # described by the pipeline, never read here
            out.append(Artifact(name=rel, budget=share, text=None, reference=path, notes=tuple(problems), **common))
            continue
        out.append(_read(path, rel, share, tuple(problems), common))
    return out


def _entry_fields(spec: ArtifactSpec, kind: str | None) -> dict[str, Any]:
    """What every artifact of an entry carries from it."""
    return dict(
        entry=spec.name,
        type=kind,
        priority=spec.priority,
        max_raw_tokens=spec.max_raw_tokens,
        shares=spec.share_surplus,
        line_numbers=spec.line_numbers,
    )


def _read(path: Path, name: str, budget: int, notes: tuple[str, ...], common: dict[str, Any]) -> Artifact:
    """A file as the artifact `name`: read whole, or, when big, left for the pipeline to read
    in one pass or whole as its kind can (see opened)."""
    artifact = Artifact(name=name, budget=budget, text=None, stream=path, notes=notes, **common)
    return artifact if big(path) else opened(artifact)


def opened(artifact: Artifact, kind: str | None = None) -> Artifact:
    """A file's artifact (its path in `stream`) read whole, unless `kind` is the kind it is
    read as in one pass; a failure to read it is said by its name, not by where it lies."""
    path = artifact.stream
    assert path is not None
    if kind is not None:
        return replace(artifact, type=kind)
    loaded = read_artifact(path)
    error = loaded.error.replace(str(path), artifact.name) if loaded.error else None
    return replace(artifact, text=loaded.text, error=error, notes=loaded.notes + artifact.notes, stream=None)


def _run_artifacts(spec: ArtifactSpec, repo: Any, env: dict[str, str] | None = None) -> list[Artifact]:
    """A workflow run's jobs (ctxguard.github.run), each a log read as a file is: one record
    each, named `<workflow> / <job>`; what keeps them from being read, a missing record that
    says it. (The client is imported here: only an entry that asks for a run loads it.)"""
    import os

    from ctxguard.github.api import ApiError, Client
    from ctxguard.github.run import RunError, job_logs, repository, run_id

    env = dict(os.environ) if env is None else env
    common = _entry_fields(spec, spec.type or "log")
    try:
        remote = next((r.url for r in repo.remotes if r.name == "origin"), None)
    except (ValueError, OSError, AttributeError):
        remote = None
    try:
        logs = job_logs(Client.from_env(env), repository(env, remote), run_id(spec.run, env), spec.jobs)
    except (RunError, ApiError) as exc:
        return [Artifact(name=spec.name, budget=spec.budget, text=None, error=str(exc), missing=True, **common)]
    share = max(MIN_BUDGET, spec.budget // len(logs))
    out = []
    for log in logs:
        if log.path is None:
            out.append(
                Artifact(
                    log.name,
                    budget=share,
                    text=log.text,
                    error=log.error,
                    notes=log.notes,
                    missing=log.missing,
                    **common,
                )
            )
            continue
        out.append(_read(log.path, log.name, share, log.notes, common))
    return out


def _in_git_dir(relative: Path, path: Path, git_dir: Path) -> bool:
    """True for the git directory's files (`.git/config`), wherever it is, and for anything
    under a `.git` folder or file (a submodule's, a worktree's)."""
    return ".git" in relative.parts or path.resolve().is_relative_to(git_dir)


def inside(root: Path, path: Path) -> bool:
    """True if path, with its symlinks followed, stays inside the (resolved) root."""
    return path.resolve().is_relative_to(root)


def _is_glob(pattern: str) -> bool:
    return any(c in pattern for c in "*?[")
