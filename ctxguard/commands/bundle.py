"""ctxguard bundle / ctxguard check: the main job and its policy gate."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ctxguard.commands.common import positive_int
from ctxguard.commands.setup import prepare
from ctxguard.config.model import FAIL_ON, parse_fail_on
from ctxguard.errors import EXIT_OK, EXIT_POLICY
from ctxguard.options import FORMATS, TIER3_MODES, Format
from ctxguard.tokens.base import ENCODINGS
from ctxguard.words import plural

_SUFFIX: dict[Format, str] = {"json": "json", "markdown": "md", "prompt": "prompt.md"}


def _fail_on(value: str) -> tuple[str, ...]:
    try:
        return parse_fail_on(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parser(sub: Any) -> None:
    for name, help_text in (
        ("bundle", "collect, compress and write the budgeted bundle"),
        ("check", "run the same collection and exit 1 when a policy fails"),
    ):
        parser = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=f"examples:\n  ctxguard {name}\n  ctxguard {name} --diff main...HEAD\n"
            f"  ctxguard {name} --config ci/ctxguard.yaml --diff HEAD --total-budget 40000",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        parser.add_argument("--config", help="config file (default: .ctxguard.yaml at the repository root)")
        parser.add_argument(
            "--diff",
            metavar="MODE",
            help="override every git artifact's diff: staged | worktree | HEAD | <commit> | "
            "<base>...<head> | auto (the event's range in GitHub Actions, else from the merge "
            "base with the default branch)",
        )
        parser.add_argument(
            "--since",
            metavar="REF",
            help="incremental review: what changed after REF (a commit already reviewed) comes first "
            "with most of each git entry's budget, the rest of the range as context; auto: in "
            "GitHub Actions, a pull request synchronize event's `before` (else the whole range)",
        )
        parser.add_argument(
            "--run",
            metavar="ID",
            help="add a workflow run's failed jobs' logs (an entry `source: github-run`, `run: ID`; auto: "
            "the workflow_run event's run, else GITHUB_RUN_ID) through GitHub's API with GITHUB_TOKEN",
        )
        parser.add_argument("--repo", default=".", help="the repository (default: the current one)")
        parser.add_argument("--strict", action="store_true", help="fail instead of estimating tokens offline")
        parser.add_argument("--encoding", choices=ENCODINGS, help="override the config's encoding")
        parser.add_argument("--total-budget", type=positive_int, help="override the config's total_budget")
        parser.add_argument(
            "--context-window",
            type=positive_int,
            metavar="TOKENS",
            help="the reader's context window (default 128000): usage levels are the bundle's share of it",
        )
        parser.add_argument(
            "--fail-on",
            type=_fail_on,
            metavar="POLICIES",
            help=f"override the config's fail_on: {', '.join(FAIL_ON)}, or several joined by commas",
        )
        parser.add_argument("--tier3", choices=TIER3_MODES, help="override the config's tier3 (salient or head)")
        parser.add_argument(
            "--only",
            metavar="ENTRIES",
            help="run only these entries of the config (names joined by commas): one job per package of a monorepo",
        )
        parser.add_argument(
            "--task",
            metavar="TEXT",
            help="what the reviewer is asked to do, for every entry without a task of its own "
            "(its words lift the lines that name them)",
        )
        parser.add_argument(
            "--task-from-pr",
            action="store_true",
            help="in GitHub Actions: the task is the pull request's title and description (from the event)",
        )
        parser.add_argument("--missed", action="store_true", help="list each record's missed probes")
        parser.add_argument(
            "--line-numbers",
            action="store_true",
            help="show new-file line numbers on every diff's hunk lines (as line_numbers: true does)",
        )
        parser.add_argument(
            "--no-redact",
            dest="redact",
            action="store_const",
            const=False,
            help="keep secrets (overrides the config's redact: true)",
        )
        parser.add_argument(
            "--hook",
            action="store_true",
            help="running as a pre-commit hook: at pre-push, diff the pushed range "
            "(PRE_COMMIT_FROM_REF...PRE_COMMIT_TO_REF) instead of the config's diff",
        )
        if name == "bundle":
            parser.add_argument("--output", help="bundle path (default: <git dir>/ctxguard/bundle.json)")
            parser.add_argument(
                "--format",
                choices=FORMATS,
                default="json",
                help="json (the bundle agents read; default), markdown (for people and step summaries) or "
                "prompt (one file to hand an agent: instructions, the task, coverage, the digest, the artifacts)",
            )
            parser.add_argument(
                "--prompt",
                metavar="PATH",
                help="also write the prompt form here (what the Action's prompt-path output names)",
            )
            parser.add_argument(
                "--split", metavar="DIR", help="also write one five-field JSON file per artifact to DIR"
            )
            parser.add_argument("--stdout", action="store_true", help="print the bundle instead of writing it")
            parser.add_argument(
                "--check",
                action="store_true",
                help="after writing, exit 1 when a policy fails (what the pre-commit hook runs)",
            )
            parser.add_argument(
                "--github",
                action="store_true",
                help="in GitHub Actions: write step outputs, the step summary and warnings",
            )
            parser.add_argument(
                "--comment-file",
                metavar="PATH",
                help="with --github: also write the step summary here, as a pull-request comment body",
            )
        if name == "check":
            from ctxguard.report.findings import CHECK_FORMATS

            parser.add_argument(
                "--format",
                choices=CHECK_FORMATS,
                default="text",
                help="text (sentences on stderr; default), json (one object on stdout), sarif (a SARIF 2.1.0 "
                "log on stdout, a result per failed policy) or github (::error annotations on stdout)",
            )
        parser.set_defaults(func=run_bundle if name == "bundle" else run_check)


REMEDIES = (
    "ctxguard: to pass, raise the artifact's budget (or total_budget) in {config}, "
    "narrow its paths, or set fail_on (fail_on: never only reports)"
)
HOOK_REMEDY = "ctxguard: to {verb} this once anyway: SKIP=ctxguard,ctxguard-check git {verb} ..."


def _report_failures(problems: list[str], hook: bool = False, config: str | None = None) -> int:
    """The failed policies as sentences, with what to change (in the config file `--config` named,
    else .ctxguard.yaml)."""
    for problem in problems:
        print(f"ctxguard: check failed: {problem}", file=sys.stderr)
    if problems:
        print(REMEDIES.format(config=config or ".ctxguard.yaml"), file=sys.stderr)
        if hook:  # pre-commit names the remote only at a push
            pushing = bool(os.environ.get("PRE_COMMIT_REMOTE_NAME") or os.environ.get("PRE_COMMIT_FROM_REF"))
            print(HOOK_REMEDY.format(verb="push" if pushing else "commit"), file=sys.stderr)
    return EXIT_POLICY if problems else EXIT_OK


def _confined(top: Path, value: str) -> Path:
    """A config-given output path, refused unless it stays inside the repository."""
    from ctxguard.collect import inside
    from ctxguard.errors import ConfigError

    path = top / value
    if not inside(top.resolve(), path):
        raise ConfigError(
            f"output: {value!r} resolves outside the repository ({path.resolve()}); "
            "to write there, name it on the command line with --output"
        )
    return path


def _output(args: argparse.Namespace, config: Any, repo: Any, fmt: Format) -> Path:
    """Where the bundle goes: --output, else the config's output, else inside the git directory.
    A path in the work tree is refused unless git ignores it (the flag and the config alike)."""
    from ctxguard.git import repo as git

    if getattr(args, "output", None):
        path = Path(args.output)
        _ignored_or_refused(repo, path, f"--output {args.output!r}")
        return path
    if config.output:
        path = _confined(git.root(repo), config.output)
        _ignored_or_refused(repo, path, f"output: {config.output!r}")
        return path
    return Path(git.git_path(repo, "ctxguard")) / f"bundle.{_SUFFIX[fmt]}"


def _ignored_or_refused(repo: Any, path: Path, said: str, offloads: bool = True) -> None:
    """One rule for every file ctxguard writes at a path the user names: outside the work tree,
    or in the git directory, or where git ignores it (the file, and the `offload/` folder beside
    it that keeps the full texts of what was cut); else the next `git add -A` would stage it."""
    from ctxguard.collect import inside
    from ctxguard.errors import ConfigError
    from ctxguard.git import repo as git

    top = git.root(repo).resolve()
    folder = path.parent / "offload"
    targets = [(path, path, "it")]
    if offloads:
        targets.append((folder / "full-text", folder, f"the full texts it names ({folder})"))
    for probe, shown, what in targets:
        if inside(top, probe) and not git.ignored(repo, probe):
            line = shown.resolve().relative_to(top).as_posix() + ("/" if shown is folder else "")
            raise ConfigError(
                f"{said}: {what} would be in the work tree where git does not ignore it, so the "
                f"next `git add -A` would stage it; add '/{line}' to .gitignore, write it outside "
                "the repository, or leave it unset (the default is inside the git directory)"
            )


def run_bundle(args: argparse.Namespace) -> int:
    from ctxguard.errors import CtxguardError

    try:
        return _bundle(args)
    except CtxguardError as exc:
        if getattr(args, "github", False):  # in Actions: an annotation and a summary that say what to do
            from ctxguard.report import github

            github.report_error(str(exc))
        raise


def _bundle(args: argparse.Namespace) -> int:
    from ctxguard.bundle import output, render
    from ctxguard.commands.runs import bundles, part_path
    from ctxguard.report import table as report

    repo, config, tokenizer = prepare(args)
    path = _output(args, config, repo, args.format)
    if args.prompt:
        _ignored_or_refused(repo, Path(args.prompt), f"--prompt {args.prompt!r}")
    if args.split:
        _ignored_or_refused(repo, Path(args.split) / "records", f"--split {args.split!r}", offloads=False)
    built = bundles(args, repo, config, tokenizer, args.format, path, stdout=args.stdout)
    made = built.parts
    _within_total(made, config, built.fits)
    prompt = Path(args.prompt) if args.prompt else None
    paths = [part_path(path, k, len(made)) for k in range(1, len(made) + 1)]
    # The offloads are named relative to the file that names them: beside the bundle, and beside
    # the prompt form when that is elsewhere (the Action writes it to $RUNNER_TEMP).
    folders = [path.parent / "offload"]
    if prompt is not None and prompt.parent.resolve() != path.parent.resolve():
        folders.append(prompt.parent / "offload")
    for k, (result, out) in enumerate(made, 1):
        where = paths[k - 1]
        for folder in folders:
            output.write_offloads([(folder / target.name, raw) for target, raw in out.offloads], folder)
        if args.stdout:
            sys.stdout.write(out.text)
        else:
            output.write_atomic(where, out.text)
        if prompt is not None:
            text = out.text if args.format == "prompt" else render.render(out.bundle, "prompt")
            output.write_atomic(part_path(prompt, k, len(made)), text)
        if args.split:
            output.split_records(result.records, Path(args.split) / (f"{k}" if len(made) > 1 else ""))
        if len(made) > 1:
            print(f"ctxguard: part {k} of {len(made)} of the change", file=sys.stderr)
        print(report.table(out.bundle), file=sys.stderr)
        print(report.written_line(args.format, config.total_budget, out.bundle), file=sys.stderr)
        for record in result.records:
            if record.empty in ("no changes", "empty range"):  # (a glob that matched nothing is missing)
                print(
                    f"ctxguard: note: {record.artifact_name} has nothing to review: {record.content.strip()}",
                    file=sys.stderr,
                )
        if not args.stdout:
            print(f"ctxguard: wrote {where}", file=sys.stderr)
    problems = _failures(made, config) if args.check else None
    if args.github:
        from ctxguard.report import github

        github.publish(
            made[0][1].bundle,
            None if args.stdout else paths[0],
            problems=problems,
            comment_file=Path(args.comment_file) if args.comment_file else None,
            prompt=None if prompt is None else part_path(prompt, 1, len(made)),
            parts=None if args.stdout or len(made) == 1 else paths,
        )
    return _report_failures(problems, args.hook, args.config) if problems is not None else EXIT_OK


def _within_total(made: list[tuple[Any, Any]], config: Any, fits: Any) -> None:
    """The bundle as written keeps to total_budget, or nothing is written and the error says
    what would fit: a total too small for the bundle's own fields and digest cannot be met by
    cutting content. `fits(total)` makes the bundles again under another total and says whether
    they keep to it (the least total that does is searched, in a few tries)."""
    from ctxguard.errors import ConfigError

    total = config.total_budget
    if total is None or all(out.tokens <= total for _, out in made):
        return
    records = max((result.records for result, _ in made), key=len)
    low, high = total, max(total + 1, max(out.tokens for _, out in made))
    for _ in range(6):  # (the written size shrinks with the total: one step up is usually enough)
        if fits(high):
            break
        low, high = high, high * 5 // 4
    else:
        high = 0
    while high and high - low > max(8, high // 50):
        middle = (low + high) // 2
        low, high = (low, middle) if fits(middle) else (middle, high)
    said = f"raise total_budget to {high:,} or more" if high else "raise total_budget"
    raise ConfigError(
        f"total_budget {total:,} cannot hold this bundle: the fields and digest of "
        f"{plural(len(records), 'artifact')}, with the least content each may have, are more; {said}, "
        "or narrow the artifacts (nothing was written)"
    )


def _findings(made: list[tuple[Any, Any]], config: Any) -> list[Any]:
    """The policies every bundle of the change fails, each once (ctxguard.report.policy.Finding)."""
    from ctxguard.report.policy import findings

    found: list[Any] = []
    for result, out in made:
        found += [finding for finding in findings(result.records, config, out.tokens) if finding not in found]
    return found


def _failures(made: list[tuple[Any, Any]], config: Any) -> list[str]:
    """The policies every bundle of the change fails, each said once, as sentences."""
    return [finding.message for finding in _findings(made, config)]


def run_check(args: argparse.Namespace) -> int:
    from ctxguard.commands.runs import bundles

    repo, config, tokenizer = prepare(args)
    # Allocated and measured as `ctxguard bundle` writes its default (JSON) bundle, so both
    # commands give the same verdict; nothing is written.
    path = _output(args, config, repo, "json")
    built = bundles(args, repo, config, tokenizer, "json", path)
    made = built.parts
    _within_total(made, config, built.fits)
    if args.format != "text":
        return _report_findings(made, config, args.format)
    code = _report_failures(_failures(made, config), args.hook, args.config)
    if code == EXIT_OK:
        print(f"ctxguard: check passed ({plural(sum(len(r.records) for r, _ in made), 'artifact')})", file=sys.stderr)
    return code


def _report_findings(made: list[tuple[Any, Any]], config: Any, fmt: str) -> int:
    """`check --format json|sarif|github`: the failed policies on stdout; exit 1 when any."""
    from ctxguard import __version__
    from ctxguard.report import findings as write

    found = _findings(made, config)
    records = [record for result, _ in made for record in result.records]
    written = max((out.tokens for _, out in made), default=None)
    if fmt == "json":
        sys.stdout.write(write.as_json(found, records, written))
    elif fmt == "sarif":
        sys.stdout.write(write.as_sarif(found, __version__))
    else:
        sys.stdout.write(write.as_github(found))
    return EXIT_POLICY if found else EXIT_OK
