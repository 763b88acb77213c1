"""ctxguard count PATH: {"input_tokens": N}, the shape count-tokens scripts print."""

from __future__ import annotations

import argparse
from typing import Any

from ctxguard.commands.common import add_encoding, check_tokenizer, print_json
from ctxguard.errors import EXIT_OK, UsageError


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "count",
        help='count tokens exactly: prints {"input_tokens": N}',
        description="Count a file's (or standard input's) tokens exactly with tiktoken, offline: "
        'prints {"input_tokens": N}.',
        epilog="example: ctxguard count README.md --encoding cl100k_base",
    )
    parser.add_argument("path", help="a file, or - to read standard input")
    add_encoding(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ctxguard.read import Loaded, read_artifact, spooled_stdin
    from ctxguard.tokens.load import get_tokenizer

    check_tokenizer(args.encoding, args.strict)
    if args.path == "-":
        with spooled_stdin() as spooled:
            loaded = Loaded(None, error=spooled) if isinstance(spooled, str) else read_artifact(spooled)
    else:
        loaded = read_artifact(args.path)
    if loaded.text is None:
        raise UsageError(loaded.error or f"cannot read {args.path}")
    tokenizer = get_tokenizer(args.encoding)
    result: dict[str, object] = {"input_tokens": tokenizer.count(loaded.text)}
    if not tokenizer.exact:
        result["encoding"] = tokenizer.name
    print_json(result)
    return EXIT_OK
