"""ctxguard show: re-render a saved JSON bundle, or print what a cut left out, without recomputing."""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ctxguard.errors import EXIT_OK, EXIT_POLICY, UsageError
from ctxguard.record import Record

_RANGE = re.compile(r"(\d+)(?:-(\d+))?")


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
        choices=("json", "markdown", "prompt"),
        default="markdown",
        help="the form to re-render the bundle in (default markdown); with ARTIFACT, json prints its record",
    )
    parser.set_defaults(func=run_show)


def run_show(args: argparse.Namespace) -> int:
    from ctxguard.bundle.model import Bundle, dumps
    from ctxguard.bundle.render import render

    path = Path(args.bundle)
    try:
        bundle = Bundle.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise UsageError(f"no bundle at {path}") from None
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{path} is not a JSON bundle ctxguard can read ({exc}); show reads the json form") from None
    if args.grep is not None:
        return _grep(args, bundle.records, path.parent)
    if args.artifact is None:
        if args.lines:
            raise UsageError("--lines needs an ARTIFACT: whose lines?")
        sys.stdout.write(dumps(bundle) if args.format == "json" else render(bundle, args.format))
        return EXIT_OK
    record = next((r for r in bundle.records if r.artifact_name == args.artifact), None)
    if record is None:
        names = ", ".join(r.artifact_name for r in bundle.records[:20])
        raise UsageError(f"no artifact {args.artifact!r} in {path}; it has: {names}")
    if args.lines:
        sys.stdout.write(_lines(full_text(record, path.parent), args.lines))
    elif args.format == "json":
        sys.stdout.write(json.dumps(record.to_dict(in_bundle=True), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(record.content)
    return EXIT_OK


def _grep(args: argparse.Namespace, records: Sequence[Record], folder: Path) -> int:
    """`--grep PATTERN`: the matching lines of the full texts; exit 1 when none matches (grep's)."""
    from ctxguard.bundle.search import compile_pattern, search

    if args.context < 0 or args.max_matches < 1:
        raise UsageError("--context is 0 or more, --max-matches 1 or more")
    try:
        pattern = compile_pattern(args.grep)
    except ValueError as exc:
        raise UsageError(f"--grep {exc}") from None
    chosen = [r for r in records if args.artifact is None or r.artifact_name == args.artifact]
    if not chosen:
        raise UsageError(f"no artifact {args.artifact!r} in the bundle")
    readable = [r for r in chosen if r.read == "required" and not r.error]
    found, total = search(readable, lambda r: full_text(r, folder), pattern, args.context, args.max_matches)
    sys.stdout.write("--\n".join(match.render() for match in found))
    if total > len(found):
        sys.stdout.write(f"... and {total - len(found)} more matches (--max-matches)\n")
    return EXIT_OK if found else EXIT_POLICY


def full_text(record: Record, folder: Path) -> str:
    """An artifact's whole text: its offload (checked against the sha256 digits the record
    gives), or its content when nothing was left out."""
    if record.offload is None:
        if record.tier == 1:
            return record.content
        raise UsageError(f"{record.artifact_name} left something out but names no full text (no offload)")
    target = folder / record.offload.path
    try:
        data = target.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {record.artifact_name}'s full text at {target}: {exc.strerror}") from None
    given = record.offload.sha256
    if len(given) < 16 or not hashlib.sha256(data).hexdigest().startswith(given):
        raise UsageError(f"{target} is not {record.artifact_name}'s full text any more (its sha256 differs)")
    return data.decode("utf-8", "surrogateescape")


def _lines(text: str, wanted: str) -> str:
    match = _RANGE.fullmatch(wanted.strip())
    if match is None:
        raise UsageError(f"--lines {wanted!r}: give A-B (or A), line numbers from 1")
    first = int(match.group(1))
    last = int(match.group(2) or first)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not 1 <= first <= last or first > len(lines):
        raise UsageError(f"--lines {wanted}: the full text has {len(lines)} lines")
    return "".join(line + "\n" for line in lines[first - 1 : last])
