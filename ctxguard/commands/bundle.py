"""ctxguard bundle / ctxguard check: the main job and its policy gate."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ctxguard.errors import EXIT_OK, EXIT_POLICY

FORMATS = ("json", "markdown")


def add_parser(sub: Any) -> None:
    for name, help_text in (
        ("bundle", "collect, compress and write the budgeted bundle"),
        ("check", "run the same collection and exit 1 when a policy fails"),
    ):
        parser = sub.add_parser(
            name, help=help_text, description=help_text,
            epilog=f"examples:\n  ctxguard {name}\n  ctxguard {name} --diff main...HEAD\n"
                   f"  ctxguard {name} --config ci/ctxguard.yaml --diff HEAD",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        parser.add_argument("--config", help="config file (default: .ctxguard.yaml at the repository root)")
        parser.add_argument("--diff", metavar="MODE",
                            help="override every git artifact's diff: staged | worktree | HEAD | <commit> | <base>...<head>")
        parser.add_argument("--repo", default=".", help="the repository (default: the current one)")
        parser.add_argument("--strict", action="store_true", help="fail instead of estimating tokens offline")
        if name == "bundle":
            parser.add_argument("--output", help="bundle path (default: <git dir>/ctxguard/bundle.json)")
            parser.add_argument("--format", choices=FORMATS, default="json")
            parser.add_argument("--split", metavar="DIR", help="also write one five-field JSON file per artifact to DIR")
            parser.add_argument("--stdout", action="store_true", help="print the bundle instead of writing it")
        parser.set_defaults(func=run_bundle if name == "bundle" else run_check)


def _prepare(args: argparse.Namespace) -> tuple[Any, Any, Any, Any]:
    from ctxguard import git, pipeline
    from ctxguard.commands.common import check_tokenizer
    from ctxguard.config import CONFIG_NAME, load_config
    from ctxguard.tokens import get_tokenizer

    repo = git.open_repo(args.repo)
    top = git.root(repo)
    config = load_config(args.config or top / CONFIG_NAME)
    check_tokenizer(config.encoding, args.strict)
    tokenizer = get_tokenizer(config.encoding)
    result = pipeline.run(config, repo, tokenizer, args.diff)
    return repo, config, tokenizer, result


def run_bundle(args: argparse.Namespace) -> int:
    from ctxguard import bundle, git, report

    repo, config, tokenizer, result = _prepare(args)
    top = git.root(repo)
    if args.output:
        output = Path(args.output)
    elif config.output:
        output = top / config.output
    else:
        output = git.git_path(repo, "ctxguard") / ("bundle.md" if args.format == "markdown" else "bundle.json")
    records = list(result.records)
    for i, (record, artifact) in enumerate(zip(records, result.artifacts)):
        if record.truncated and artifact.text is not None and not args.stdout:
            records[i] = bundle.offload(record, artifact.text, output.parent / "offload")
    data = bundle.build(records, source=result.source, encoding=tokenizer.name,
                        total_budget=config.total_budget, margin=config.margin, tokenizer=tokenizer)
    text = bundle.to_markdown(data) if args.format == "markdown" else bundle.dumps(data)
    if args.stdout:
        sys.stdout.write(text)
    else:
        bundle.write_atomic(output, text)
    if args.split:
        bundle.split_records(records, Path(args.split))
    print(report.table(data), file=sys.stderr)
    if not args.stdout:
        print(f"ctxguard: wrote {output}", file=sys.stderr)
    return EXIT_OK


def run_check(args: argparse.Namespace) -> int:
    from ctxguard.policy import failures

    _, config, _, result = _prepare(args)
    problems = failures(result.records, config)
    for problem in problems:
        print(f"ctxguard: check failed: {problem}", file=sys.stderr)
    if not problems:
        print(f"ctxguard: check passed ({len(result.records)} artifacts)", file=sys.stderr)
    return EXIT_POLICY if problems else EXIT_OK
