"""Options and checks shared by several subcommands."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from ctxguard.errors import TokenizerError
from ctxguard.options import TYPES
from ctxguard.tokens.base import ENCODINGS
from ctxguard.tokens.load import get_tokenizer


def add_encoding(parser: argparse.ArgumentParser) -> None:
    """--encoding and --strict."""
    parser.add_argument("--encoding", choices=ENCODINGS, help="tiktoken encoding (default: o200k_base)")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 2) instead of estimating when no encoding can be loaded",
    )


def add_type(parser: argparse.ArgumentParser) -> None:
    """--type."""
    parser.add_argument("--type", choices=TYPES, dest="artifact_type", help="override type detection")


def check_tokenizer(encoding: str | None, strict: bool) -> None:
    """Under --strict, refuse to go on with an estimated count."""
    tokenizer = get_tokenizer(encoding)
    if strict and not tokenizer.exact:
        raise TokenizerError(
            f"no tiktoken encoding could be loaded ({getattr(tokenizer, 'reason', '')}) and "
            "--strict forbids estimates; set TIKTOKEN_CACHE_DIR to a folder with the encoding files"
        )


def print_json(data: Any) -> None:
    """JSON on stdout, UTF-8, stable key order as given. (Written as it is encoded: a record's
    content of megabytes is not copied whole into the JSON text and that again into a line.)"""
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def ratio(value: str) -> float:
    """argparse type for --tier2-ratio: a finite number from 1 to 10 (`nan` and `inf` refused)."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from None
    if not math.isfinite(number) or not 1 <= number <= 10:
        raise argparse.ArgumentTypeError(f"{value!r} must be a number from 1 to 10")
    return number


def positive_int(value: str) -> int:
    """argparse type for budgets."""
    try:
        number = int(value.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number <= 0:
        raise argparse.ArgumentTypeError(f"{value!r} must be positive")
    return number
