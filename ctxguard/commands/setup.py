"""What a bundle or check run works on: the repository, the config with the command line's
overrides (entries, task), the tokenizer, and the range it reviews."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any


def diff_range(args: argparse.Namespace, repo: Any, environ: Mapping[str, str] = os.environ) -> Any:
    """The range this run reviews (ctxguard.ranges), or None for each entry's own `diff:`."""
    from ctxguard.git import ranges

    return ranges.resolve(repo, args.diff, hook=args.hook, github=getattr(args, "github", False), environ=environ)


def since_ref(args: argparse.Namespace, environ: Mapping[str, str] = os.environ) -> str | None:
    """The commit an incremental review starts after (--since; `auto`: the event's), or None."""
    from ctxguard.git import ranges

    return ranges.since_ref(getattr(args, "since", None), environ)


def _only(config: Any, names: str) -> Any:
    """The config with only the named entries; a name it does not have is a usage error."""
    from ctxguard.errors import UsageError

    wanted = [name.strip() for name in names.split(",") if name.strip()]
    known = [spec.name for spec in config.artifacts]
    unknown = [name for name in wanted if name not in known]
    if unknown or not wanted:
        raise UsageError(
            f"--only: no entry named {', '.join(unknown) or repr(names)}; the config has {', '.join(known)}"
        )
    return replace(config, artifacts=tuple(spec for spec in config.artifacts if spec.name in wanted))


RUN_BUDGET = 20_000  # tokens of the entry --run adds: a failed job's log is big (CI meets 1-2 % of raw)


def _with_run(config: Any, run: str) -> Any:
    """The config reading run `run`: its `source: github-run` entries' run set to it, or, when
    it has none, one such entry added (named `ci`, or `ci-run` when `ci` is taken); a run that
    is not `auto` or digits is a usage error."""
    from ctxguard.config.model import ArtifactSpec
    from ctxguard.errors import UsageError

    if run != "auto" and not run.isdigit():
        raise UsageError(f"--run: a run id (digits) or auto (got {run!r})")
    if any(spec.source == "github-run" for spec in config.artifacts):
        runs = tuple(replace(s, run=run) if s.source == "github-run" else s for s in config.artifacts)
        return replace(config, artifacts=runs)
    name = "ci" if "ci" not in {spec.name for spec in config.artifacts} else "ci-run"
    entry = ArtifactSpec(name=name, budget=RUN_BUDGET, source="github-run", run=run)
    return replace(config, artifacts=(*config.artifacts, entry))


TASK_CHARS = 2000  # of a pull request's description taken as the task: its first paragraphs say it


def _task(args: argparse.Namespace, environ: Mapping[str, str] = os.environ) -> str | None:
    """--task, else with --task-from-pr the pull request's title and description."""
    if args.task:
        return str(args.task)
    if not getattr(args, "task_from_pr", False):
        return None
    from ctxguard.errors import UsageError

    event = environ.get("GITHUB_EVENT_PATH")
    try:
        pull = json.loads(Path(event).read_text(encoding="utf-8")).get("pull_request") if event else None
    except (OSError, ValueError) as exc:
        raise UsageError(f"--task-from-pr: cannot read the event ({exc})") from None
    if not isinstance(pull, dict):
        print("ctxguard: note: --task-from-pr: not a pull request event; no task", file=sys.stderr)
        return None
    body = str(pull.get("body") or "").strip()
    return "\n\n".join(part for part in (str(pull.get("title") or "").strip(), body[:TASK_CHARS]) if part) or None


def prepare(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """The repository, the config with the command line's overrides, and the tokenizer."""
    from ctxguard.commands.common import check_tokenizer
    from ctxguard.config.load import DEFAULTS_SAID, default_config, load_config
    from ctxguard.config.model import CONFIG_NAME
    from ctxguard.git import repo as git
    from ctxguard.tokens.load import get_tokenizer

    repo = git.open_repo(args.repo)
    top = git.root(repo)
    if args.config or (top / CONFIG_NAME).exists():
        config = load_config(args.config or top / CONFIG_NAME)
    else:  # a first commit is never blocked for lack of a config
        config = default_config()
        print(f"ctxguard: {DEFAULTS_SAID}", file=sys.stderr)
    overrides = {
        key: value
        for key, value in (
            ("encoding", args.encoding),
            ("total_budget", args.total_budget),
            ("context_window", getattr(args, "context_window", None)),
            ("fail_on", args.fail_on),
            ("tier3", args.tier3),
            ("redact", args.redact),
        )
        if value is not None
    }
    config = replace(config, **overrides)
    if getattr(args, "only", None):
        config = _only(config, args.only)
    if getattr(args, "run", None):
        config = _with_run(config, args.run)
    if getattr(args, "line_numbers", False):
        config = replace(config, artifacts=tuple(replace(s, line_numbers=True) for s in config.artifacts))
    task = _task(args)  # (decided here, once: every entry without its own takes it, and the bundle)
    if task:
        config = replace(config, task=task, artifacts=tuple(replace(s, task=s.task or task) for s in config.artifacts))
    check_tokenizer(config.encoding, args.strict)
    return repo, config, get_tokenizer(config.encoding)
