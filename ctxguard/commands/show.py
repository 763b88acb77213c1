"""ctxguard show: re-render a saved JSON bundle, or print what a cut left out, without recomputing."""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from ctxguard.errors import EXIT_OK, UsageError
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
        "  ctxguard show .git/ctxguard/bundle.json reports/tests.log --lines 340-459",
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
