"""ctxguard compress PATH --budget N: one artifact to one record on stdout."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ctxguard.commands.common import (
    add_encoding,
    add_type,
    check_tokenizer,
    positive_int,
    print_json,
    ratio,
)
from ctxguard.errors import EXIT_OK, EXIT_USAGE, UsageError
from ctxguard.options import MIN_BUDGET, TIER2_RATIO, TIER3_MODES


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "compress",
        help="compress one artifact to a token budget (JSON record on stdout)",
        description="Compress one artifact (a file, or - for stdin) to at most --budget tokens.",
        epilog="example: ctxguard compress examples/artifacts/failing-tests.log --budget 400",
    )
    parser.add_argument("path", help="the artifact file, or - to read standard input")
    parser.add_argument("--budget", type=positive_int, required=True, help="token budget")
    add_type(parser)
    parser.add_argument("--task", help="what the reader needs, e.g. 'keep stack traces'")
    parser.add_argument(
        "--tier2-ratio",
        type=ratio,
        default=TIER2_RATIO,
        help="structural compression is tried up to this multiple of the budget (default 1.5)",
    )
    parser.add_argument(
        "--tier3",
        choices=TIER3_MODES,
        default="salient",
        help="what a hard cut keeps: the most telling parts (salient, default) or the head",
    )
    parser.add_argument("--missed", action="store_true", help="list the probes the content missed in the record")
    parser.add_argument(
        "--no-redact",
        dest="redact",
        action="store_false",
        help="keep secrets (by default they become [REDACTED:<kind>])",
    )
    add_encoding(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ctxguard.api import compress_file_record, compress_loaded
    from ctxguard.read import Loaded, spooled_stdin

    if args.budget < MIN_BUDGET:
        raise UsageError(f"--budget must be at least {MIN_BUDGET} tokens")
    check_tokenizer(args.encoding, args.strict)
    from ctxguard.engine.tiers import min_budget
    from ctxguard.tokens.load import get_tokenizer

    floor = min_budget(get_tokenizer(args.encoding))
    if args.budget < floor:
        raise UsageError(f"--budget must be at least {floor} tokens when tokens are estimated offline")
    from ctxguard.options import Options

    try:
        cut = Options(task=args.task, tier2_ratio=args.tier2_ratio, tier3=args.tier3, missed=args.missed)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    options = dict(artifact_type=args.artifact_type, encoding=args.encoding, options=cut, redact=args.redact)
    if args.path == "-":
        with spooled_stdin() as spooled:
            if isinstance(spooled, str):
                record = compress_loaded(Loaded(None, error=spooled), "-", args.budget, **options)
            else:
                record = compress_file_record(spooled, args.budget, name="-", **options)
    else:
        record = compress_file_record(args.path, args.budget, **options)
    print_json(record.to_dict())
    if record.error:
        print(f"ctxguard: error: {record.error}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK
