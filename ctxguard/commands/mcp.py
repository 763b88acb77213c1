"""ctxguard mcp: serve the bundle's tools to an agent over the Model Context Protocol (stdio)."""

from __future__ import annotations

import argparse
from typing import Any

from ctxguard.errors import EXIT_OK, UsageError

NEEDS = "ctxguard mcp needs the MCP SDK: pip install 'ctxguard-review[mcp]' (or pip install 'mcp>=2,<3')"


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "mcp",
        help="serve list_artifacts, read_artifact, search and bundle to an agent over MCP (stdio)",
        description="An MCP server over stdio for the repository's bundle: an agent lists the "
        "artifacts and their gaps, reads the lines a cut left out, searches the full texts and "
        "builds a bundle. It reads only inside the repository and its .git/ctxguard/, and writes "
        "only in .git/ctxguard/. Needs the mcp extra.",
        epilog='example (.mcp.json):\n  {"mcpServers": {"ctxguard": {"command": "ctxguard", "args": ["mcp"]}}}',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--repo", default=".", help="the repository (default: the current one)")
    parser.set_defaults(func=run_mcp)


def run_mcp(args: argparse.Namespace) -> int:
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        raise UsageError(NEEDS)
    try:
        from ctxguard.agents import server
    except ImportError as exc:  # an mcp 1.x, or a broken install
        raise UsageError(f"{NEEDS}; importing it failed: {exc}") from None
    from ctxguard.agents.tools import Workspace

    server.serve(Workspace.open(args.repo), run_bundle)
    return EXIT_OK


def run_bundle(argv: list[str]) -> None:
    """`ctxguard bundle` with these arguments, in this process (the MCP bundle tool's work); a
    refused argument is a UsageError, not argparse's exit."""
    from ctxguard.commands import bundle

    parser = argparse.ArgumentParser(prog="ctxguard")
    bundle.add_parser(parser.add_subparsers(dest="command"))
    try:
        args = parser.parse_args(["bundle", *argv])
    except SystemExit:  # (argparse's way to refuse; its message went to stderr)
        raise UsageError(f"bundle: arguments refused: {' '.join(argv)}") from None
    args.func(args)
