"""What an agent asks of a repository's bundle, as plain functions: the tools `ctxguard mcp`
serves (ctxguard.agents.server), testable without the MCP SDK.

Every answer is text within a token budget it states (`max_tokens`); an answer that had to be
cut says so, and says which call gets the rest. Paths are confined: a bundle is read only inside
the repository's work tree or its `<git dir>/ctxguard/`, and the full texts it names only there
too; nothing is ever written to the work tree (`make_bundle` writes in `<git dir>/ctxguard/mcp/`,
never over the bundle the hook or the Action wrote). A caller's search pattern runs with a
deadline (ctxguard.bundle.search).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ctxguard.bundle import saved
from ctxguard.bundle.model import Bundle
from ctxguard.errors import UsageError
from ctxguard.record import Record, status
from ctxguard.tokens.base import Tokenizer
from ctxguard.words import plural

DEFAULT_TOKENS: Final = 2000  # an answer's budget unless the call names another …
BUNDLE_TOKENS: Final = 8000  # … and the bundle tool's (a prompt form is bigger)
LEAST_TOKENS: Final = 200
MOST_TOKENS: Final = 100_000
GAPS_LISTED: Final = 8  # of a record's gaps, in list_artifacts


@dataclass(frozen=True)
class Workspace:
    """The repository a server answers for: its work tree, its state folder (`<git dir>/ctxguard`,
    where bundles go by default) and the tokenizer answers are measured with."""

    top: Path
    state: Path
    tokenizer: Tokenizer

    @classmethod
    def open(cls, where: str | Path = ".") -> Workspace:
        from ctxguard.git import repo as git
        from ctxguard.tokens.load import get_tokenizer

        repo = git.open_repo(where)
        return cls(git.root(repo).resolve(), Path(git.git_path(repo, "ctxguard")).resolve(), get_tokenizer(None))

    @property
    def within(self) -> tuple[Path, Path]:
        return (self.top, self.state)

    @property
    def own(self) -> Path:
        """Where the bundle tool writes: a folder of its own, so it never overwrites the bundle
        the hook or the Action wrote."""
        return self.state / "mcp"

    def bundle_path(self, given: str | None) -> Path:
        """The bundle named (relative to the work tree), or the default one: the hook's or the
        Action's (`<git dir>/ctxguard/bundle.json`), else the bundle tool's."""
        if not given:
            hooks = self.state / "bundle.json"
            return hooks if hooks.exists() or not (self.own / "bundle.json").exists() else self.own / "bundle.json"
        path = Path(given)
        return path if path.is_absolute() else self.top / path

    def load(self, given: str | None) -> tuple[Path, Bundle]:
        path = self.bundle_path(given)
        if not given and not path.exists():
            raise UsageError(f"no bundle at {path} yet: call bundle() first, or run `ctxguard bundle`")
        return path, saved.load(path, self.within)

    def full_text(self, record: Record, path: Path) -> str:
        return saved.full_text(record, path.parent, self.within)


def _budget(max_tokens: int) -> int:
    if not LEAST_TOKENS <= max_tokens <= MOST_TOKENS:
        raise UsageError(f"max_tokens is {LEAST_TOKENS:,} to {MOST_TOKENS:,} (got {max_tokens})")
    return max_tokens


def _fit(
    head: str, body: Sequence[str], tail: str, max_tokens: int, tokenizer: Tokenizer, rest: Callable[[int], str]
) -> str:
    """head, as many of body's lines as fit, and tail, within max_tokens; when lines are left
    out, a last line says how many, and `rest(k)` (k: the lines shown) how to get them."""
    lines = list(body)

    def answer(k: int) -> str:
        told = []
        if k < len(lines):
            told = [f"[cut at max_tokens={max_tokens:,}: {plural(len(lines) - k, 'more line')}; {rest(k)}]"]
        return "\n".join([head, *lines[:k], *told, tail]).strip("\n") + "\n"

    whole = tokenizer.encode(answer(len(lines)))
    if whole.count <= max_tokens:
        return whole.text
    low, high = 0, len(lines)  # the most lines that fit: fewer lines never cost more
    while low < high:  # (each try recounted from the whole answer's lines: only its last line is new)
        middle = (low + high + 1) // 2
        low, high = (middle, high) if whole.recount(answer(middle)) <= max_tokens else (low, middle - 1)
    return answer(low)


def list_artifacts(ws: Workspace, bundle: str | None = None, max_tokens: int = DEFAULT_TOKENS) -> str:
    """Each artifact of the bundle: name, type, status, tokens raw and kept, and its gaps."""
    path, loaded = ws.load(bundle)
    totals = loaded.totals
    head = (
        f"bundle {path} ({loaded.encoding}): {plural(totals.artifacts, 'artifact')}, "
        f"{totals.compacted_tokens:,} of {totals.raw_tokens:,} raw tokens kept"
    )
    rows = [_row(record) for record in loaded.records]
    tail = "read_artifact(name, lines='A-B') prints a gap's lines; search(pattern) finds lines in the full texts."
    return _fit(head, rows, tail, _budget(max_tokens), ws.tokenizer, lambda _: "call again with a larger max_tokens")


def _row(record: Record) -> str:
    tokens = f"{record.raw_tokens:,} -> {record.compacted_tokens:,} tokens"
    said = f"- {record.artifact_name} [{record.type}] {status(record)}: {tokens}"
    if record.error:
        return f"{said}; error: {record.error}"
    found = saved.gaps(record.content)
    if found:
        shown = ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in found[:GAPS_LISTED])
        more = f" and {len(found) - GAPS_LISTED} more" if len(found) > GAPS_LISTED else ""
        said += f"; gaps (lines left out): {shown}{more}"
    elif record.tier > 1:
        said += "; cut (its content says what it left out)"
    return said + ("; full text kept" if record.offload else "")


def read_artifact(
    ws: Workspace, name: str, lines: str | None = None, bundle: str | None = None, max_tokens: int = DEFAULT_TOKENS
) -> str:
    """The record's content as the bundle holds it; with lines `A-B`, those lines of its full
    text, each with its number (the numbers gap lines use)."""
    budget = _budget(max_tokens)
    path, loaded = ws.load(bundle)
    record = saved.find(loaded, name, path)
    if lines is None:
        body = record.content.rstrip("\n").split("\n")
        head = f"{name}: its record's content ({record.compacted_tokens:,} of {record.raw_tokens:,} raw tokens)"
        rest = f"read_artifact({name!r}) with a larger max_tokens, or lines='A-B' of its full text"
        return _fit(head, body, "", budget, ws.tokenizer, lambda _: rest)
    text = saved.split_lines(ws.full_text(record, path))
    first, last = saved.line_range(lines, len(text))
    body = [f"{n}\t{text[n - 1]}" for n in range(first, last + 1)]
    head = f"{name}: lines {first}-{last} of {len(text):,} of its full text"
    return _fit(head, body, "", budget, ws.tokenizer, lambda k: f"read_artifact({name!r}, lines='{first + k}-{last}')")


def search(
    ws: Workspace,
    pattern: str,
    name: str | None = None,
    context: int = 2,
    bundle: str | None = None,
    max_tokens: int = DEFAULT_TOKENS,
    max_matches: int = 50,
) -> str:
    """A regular expression over the full texts (every artifact's, or `name`'s): matches with
    their line numbers and `context` lines around them, error lines first, capped."""
    from ctxguard.bundle.search import blocks as merged
    from ctxguard.bundle.search import compile_pattern
    from ctxguard.bundle.search import search as find

    budget = _budget(max_tokens)
    if not 0 <= context <= 20 or max_matches < 1:
        raise UsageError("context is 0 to 20, max_matches 1 or more")
    try:
        compiled = compile_pattern(pattern)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    path, loaded = ws.load(bundle)
    chosen = [saved.find(loaded, name, path)] if name is not None else list(loaded.records)
    found, total = find(saved.searchable(chosen), lambda r: ws.full_text(r, path), compiled, context, max_matches)
    said = "error lines first; name:LINE:match, name-LINE-context"
    head = f"{total} {'match' if total == 1 else 'matches'} for /{pattern}/ ({said})"
    if not found:
        return head + "\n"
    blocks = [("--\n" if k else "") + block.rstrip("\n") for k, block in enumerate(merged(found))]
    more = f"{total - len(found)} more beyond max_matches={max_matches}" if total > len(found) else ""
    rest = "narrow the pattern, name one artifact, or raise max_tokens"
    return _fit(head, blocks, f"[{more}]" if more else "", budget, ws.tokenizer, lambda _: rest)


def make_bundle(
    ws: Workspace,
    run: Callable[[list[str]], None],
    diff: str | None = None,
    task: str | None = None,
    total_budget: int | None = None,
    since: str | None = None,
    max_tokens: int = BUNDLE_TOKENS,
) -> str:
    """Build the repository's bundle (its config, or the defaults) for a range, written in
    `<git dir>/ctxguard/mcp/` (never over the hook's or the Action's), and return its path and
    its prompt form. `run`: runs `ctxguard bundle` with these arguments (ctxguard.commands.mcp
    gives it: the agents' tools sit below the commands)."""
    budget = _budget(max_tokens)
    ws.own.mkdir(parents=True, exist_ok=True)
    argv = ["--repo", str(ws.top), "--output", str(ws.own / "bundle.json")]
    argv += ["--prompt", str(ws.own / "bundle.prompt.md")]
    for flag, value in (("--diff", diff), ("--task", task), ("--since", since)):
        if value:
            if value.startswith("-"):
                raise UsageError(f"{flag[2:]} {value!r}: a value cannot start with '-'")
            argv += [flag, value]
    if total_budget is not None:
        if total_budget < 1:
            raise UsageError(f"total_budget is a number of tokens, 1 or more (got {total_budget})")
        argv += ["--total-budget", str(total_budget)]
    with redirect_stdout(sys.stderr):  # (stdout is the protocol's channel)
        run(argv)
    prompt = (ws.own / "bundle.prompt.md").read_text(encoding="utf-8").rstrip("\n").split("\n")
    shown = os.path.relpath(ws.own / "bundle.json", ws.top)
    head = f"bundle written to {shown} (pass bundle={shown!r} to the other tools); its prompt form:"
    rest = f"read_artifact(name, bundle={shown!r}) gives each artifact's record, list_artifacts() the list"
    return _fit(head, prompt, "", budget, ws.tokenizer, lambda _: rest)
