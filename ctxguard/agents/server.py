"""`ctxguard mcp`: the tools of ctxguard.agents.tools served over the Model Context Protocol
(stdio), with the official SDK (`pip install 'ctxguard-review[mcp]'`), imported only here so the
hook never pays for it.

Each tool's answer is text within the token budget it states (`max_tokens`); an error (a bundle
that is not there, a path outside the repository, a bad pattern) is the tool's error result,
said in a sentence, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ctxguard.agents import tools
from ctxguard.errors import CtxguardError

INSTRUCTIONS = (
    "ctxguard budgets a change's artifacts (git diff, CI logs, plans, JSON reports) into a bundle. "
    "Each cut says what it left out: a gap line `... (lines A-B omitted)` names lines of the "
    "artifact's full text. list_artifacts() lists the bundle's artifacts and their gaps; "
    "read_artifact(name, lines='A-B') reads lines a cut left out; search(pattern) finds lines in "
    "the full texts (error lines first); bundle() builds the bundle for a range."
)


def build(ws: tools.Workspace, run_bundle: Callable[[list[str]], None]) -> Any:
    """The server with its four tools, answering for the repository of `ws`; `run_bundle` runs
    `ctxguard bundle` with the arguments given (the bundle tool's work)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    # The read tools change nothing and reach nothing outside the repository: an unattended
    # agent's client may run them without asking.
    reads = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

    from ctxguard import __version__

    server = MCPServer("ctxguard", version=__version__, instructions=INSTRUCTIONS)

    def answer(call: Callable[[], str]) -> str:
        try:
            return call()
        except (CtxguardError, OSError) as exc:
            raise ToolError(str(exc)) from None

    @server.tool(annotations=reads)
    def list_artifacts(bundle: str | None = None, max_tokens: int = tools.DEFAULT_TOKENS) -> str:
        """Each artifact of the bundle (default: the repository's, in .git/ctxguard/): its name,
        type, status, tokens raw and kept, and its gaps (the raw line ranges a cut left out)."""
        return answer(lambda: tools.list_artifacts(ws, bundle, max_tokens))

    @server.tool(annotations=reads)
    def read_artifact(
        name: str, lines: str | None = None, bundle: str | None = None, max_tokens: int = tools.DEFAULT_TOKENS
    ) -> str:
        """An artifact's record content as the bundle holds it; with lines='A-B', lines A to B of
        its full text, numbered as the gap lines `... (lines A-B omitted)` number them."""
        return answer(lambda: tools.read_artifact(ws, name, lines, bundle, max_tokens))

    @server.tool(annotations=reads)
    def search(
        pattern: str,
        name: str | None = None,
        context: int = 2,
        bundle: str | None = None,
        max_tokens: int = tools.DEFAULT_TOKENS,
        max_matches: int = 50,
    ) -> str:
        """A regular expression (Python syntax) over the artifacts' full texts (every artifact's,
        or the one named): each match with its line number and `context` lines around it, error
        lines first; at most max_matches matches, cut to max_tokens. A pattern that runs for more
        than 5 s in all is stopped, with an error."""
        return answer(lambda: tools.search(ws, pattern, name, context, bundle, max_tokens, max_matches))

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False))
    def bundle(
        diff: str | None = None,
        task: str | None = None,
        total_budget: int | None = None,
        since: str | None = None,
        max_tokens: int = tools.BUNDLE_TOKENS,
    ) -> str:
        """Build the repository's bundle (its .ctxguard.yaml, or the defaults) in .git/ctxguard/mcp/
        (never over the hook's) and return its path and prompt form. diff: staged | worktree |
        HEAD | <commit> | <base>...<head> | auto; task: what the review is for; since: a commit
        already reviewed (what changed after it comes first)."""
        return answer(lambda: tools.make_bundle(ws, run_bundle, diff, task, total_budget, since, max_tokens))

    return server


def serve(ws: tools.Workspace, run_bundle: Callable[[list[str]], None]) -> None:
    """Answer over stdio until the client closes it."""
    build(ws, run_bundle).run("stdio")
