"""ctxguard eval PATH...: compliance and retention per type, at several budget ratios."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from typing import Any

from ctxguard.commands.common import add_encoding, check_tokenizer, print_json
from ctxguard.errors import EXIT_OK, UsageError
from ctxguard.options import TIER3_MODES


def _ratios(value: str) -> list[float]:
    try:
        ratios = [float(part) for part in value.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a comma-separated list of numbers") from None
    if not ratios or any(not 0 < r <= 1 for r in ratios):
        raise argparse.ArgumentTypeError("ratios must be numbers in (0, 1], e.g. 0.8,0.5,0.2")
    return ratios


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "eval",
        help="measure budget compliance and retention on your own artifacts",
        description="Compress each artifact at budgets of --ratios x its raw tokens and print, per "
        "type and ratio, budget compliance and mean retention (probes kept / probes).",
        epilog="example: ctxguard eval reports/ docs/plan.md --ratios 0.8,0.5,0.2",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (recursed)")
    parser.add_argument("--ratios", type=_ratios, default=[0.8, 0.5, 0.2], help="budget ratios (default 0.8,0.5,0.2)")
    parser.add_argument("--tier3", choices=TIER3_MODES, default="salient", help="tier 3 mode (default salient)")
    parser.add_argument("--json", action="store_true", help="print one JSON row per artifact and ratio")
    add_encoding(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ctxguard.evaluate import ctxguard_method, evaluate, load, table
    from ctxguard.tokens.load import get_tokenizer

    check_tokenizer(args.encoding, args.strict)
    artifacts, skipped = load(args.paths)
    for reason in skipped:
        print(f"ctxguard: skipped {reason}", file=sys.stderr)
    if not artifacts:
        raise UsageError("no readable artifacts under the given paths")
    tokenizer = get_tokenizer(args.encoding)
    rows = evaluate(artifacts, args.ratios, {"ctxguard": ctxguard_method(tokenizer, args.tier3)}, tokenizer)
    if args.json:
        print_json([asdict(row) for row in rows])
    else:
        print(table(rows))
    return EXIT_OK
