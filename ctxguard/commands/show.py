"""ctxguard show: re-render a saved JSON bundle, or print what a cut left out, without recomputing."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ctxguard.errors import EXIT_OK, EXIT_POLICY, UsageError
from ctxguard.options import FORMATS
from ctxguard.record import Record


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "show",
        help="re-render a saved bundle, or print an artifact's lines a cut left out",
        description="Re-render a saved JSON bundle in another form, print one artifact's content, or "
        "print lines of an artifact's full text (its offload): what a gap `... (lines A-B omitted)` "
        "stands for. Nothing is recomputed.",
        epilog="examples:\n  ctxguard show .git/ctxguard/bundle.json --format prompt\n"
        "  ctxguard show .git/ctxguard/bundle.json reports/tests.log\n"
        "  ctxguard show .git/ctxguard/bundle.json reports/tests.log --lines 340-459\n"
        "  ctxguard show .git/ctxguard/bundle.json --grep 'Traceback|Error' --context 3",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("bundle", help="a bundle ctxguard wrote in its JSON form")
    parser.add_argument("artifact", nargs="?", help="an artifact's name (its record's artifact_name)")
    parser.add_argument(
        "--lines",
        metavar="A-B",
        help="with ARTIFACT: print lines A to B (from 1) of its full text, as a gap line numbers them",
    )
    parser.add_argument(
        "--grep",
        metavar="PATTERN",
        help="print the lines of the full texts (every artifact's, or ARTIFACT's) that match this "
        "regular expression, numbered as gap lines number them; error lines first",
    )
    parser.add_argument(
        "--context",
        type=int,
        default=2,
        metavar="N",
        help="with --grep: N lines before and after each match (default 2)",
    )
    parser.add_argument(
        "--max-matches",
        type=int,
        default=100,
        metavar="N",
        help="with --grep: at most N matches (default 100); how many more is said",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="markdown",
        help="the form to re-render the bundle in (default markdown); with ARTIFACT, json prints its record",
    )
    parser.set_defaults(func=run_show)


def run_show(args: argparse.Namespace) -> int:
    from ctxguard.bundle import saved
    from ctxguard.bundle.model import dumps
    from ctxguard.bundle.render import render

    path = Path(args.bundle)
    bundle = saved.load(path)
    if args.grep is not None:
        return _grep(args, bundle.records, path.parent)
    if args.artifact is None:
        if args.lines:
            raise UsageError("--lines needs an ARTIFACT: whose lines?")
        sys.stdout.write(dumps(bundle) if args.format == "json" else render(bundle, args.format))
        return EXIT_OK
    record = saved.find(bundle, args.artifact, path)
    if args.lines:
        lines = saved.split_lines(saved.full_text(record, path.parent))
        first, last = saved.line_range(args.lines, len(lines))
        sys.stdout.write("".join(line + "\n" for line in lines[first - 1 : last]))
    elif args.format == "json":
        sys.stdout.write(json.dumps(record.to_dict(in_bundle=True), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(record.content)
    return EXIT_OK


def _grep(args: argparse.Namespace, records: Sequence[Record], folder: Path) -> int:
    """`--grep PATTERN`: the matching lines of the full texts; exit 1 when none matches (grep's)."""
    from ctxguard.bundle.saved import full_text, searchable
    from ctxguard.bundle.search import blocks, compile_pattern, search

    if args.context < 0 or args.max_matches < 1:
        raise UsageError("--context is 0 or more, --max-matches 1 or more")
    try:
        pattern = compile_pattern(args.grep)
    except ValueError as exc:
        raise UsageError(f"--grep {exc}") from None
    chosen = [r for r in records if args.artifact is None or r.artifact_name == args.artifact]
    if not chosen:
        raise UsageError(f"no artifact {args.artifact!r} in the bundle")
    found, total = search(searchable(chosen), lambda r: full_text(r, folder), pattern, args.context, args.max_matches)
    sys.stdout.write("--\n".join(blocks(found)))
    if total > len(found):
        sys.stdout.write(f"... and {total - len(found)} more matches (--max-matches)\n")
    return EXIT_OK if found else EXIT_POLICY
