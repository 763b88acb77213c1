"""ctxguard init: write a commented starter .ctxguard.yaml (never overwrites)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ctxguard.config.load import DEFAULTS
from ctxguard.errors import EXIT_OK, UsageError

HEADER = """\
# yaml-language-server: $schema=https://raw.githubusercontent.com/ctxguard/ctxguard/main/ctxguard/schemas/config.schema.json
# ctxguard budget config: see the README, "Config". These are the defaults a repository
# without this file runs with; edit them, and uncomment the examples below to add artifacts.
"""
EXAMPLES = """\
  #   task: preserve function signatures and error messages
  #   exclude: ["docs/generated/*"]   # lockfiles are excluded by default
  # - name: test-logs
  #   paths: ["reports/**/*.log"]
  #   type: log
  #   budget: 8000
  # - name: plan
  #   paths: ["docs/plan.md"]
  #   budget: 6000
  #   priority: high
  #   required: true          # fail when docs/plan.md does not exist (else it is reported only)
# margin: 0.8                 # for consumers whose tokenizer counts more than tiktoken (Claude)
"""
STARTER = HEADER + DEFAULTS + EXAMPLES


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "init",
        help="write a commented starter .ctxguard.yaml",
        description="Write a commented starter config (the built-in defaults, with examples to edit); "
        "an existing file is never overwritten.",
        epilog="example: ctxguard init && $EDITOR .ctxguard.yaml",
    )
    parser.add_argument("--path", default=".ctxguard.yaml", help="where to write (default: .ctxguard.yaml)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = Path(args.path)
    if path.exists():
        raise UsageError(f"{path} already exists; edit it, or remove it first to start over")
    path.write_text(STARTER, encoding="utf-8")
    print(f"ctxguard: wrote {path}; edit the budgets and paths, then run `ctxguard bundle`", file=sys.stderr)
    return EXIT_OK
