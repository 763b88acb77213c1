"""`ctxguard mcp` driven by the MCP SDK's own client over stdio: a real subprocess, the protocol's
handshake, the four tools listed with their schemas, answers and errors as an agent gets them."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from ctxguard.errors import UsageError
from tests.gitrepo import Repo, configured
from tests.helpers import independent_count

pytest.importorskip("mcp", reason="the mcp extra (pip install '.[test]' has it)")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

LOG = "\n".join(
    [f"tests/test_mod{i % 40}.py::test_case_{i} PASSED" for i in range(1500)]
    + ["tests/test_money.py::test_total_balance FAILED", "E       assert 3 == 4"]
    + [f"tests/test_tail{i}.py::test_t{i} PASSED" for i in range(1500)]
    + ["FAILED tests/test_money.py::test_total_balance - assert 3 == 4", "1 failed, 3000 passed in 9.1s"]
)


def _session(repo: Repo, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], list[Any]]:
    """The tools the server lists, and each call's result, from one session with a subprocess."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "ctxguard", "mcp"], cwd=str(repo.path))

    async def run() -> tuple[list[Any], list[Any]]:
        with anyio.fail_after(120):
            async with Client(params) as client:
                listed = (await client.list_tools()).tools
                return listed, [await client.call_tool(name, arguments) for name, arguments in calls]

    return anyio.run(run)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = configured(tmp_path / "repo", "version: 1\nartifacts:\n  - {name: logs, paths: ['ci/*.log'], budget: 400}\n")
    repo.write("ci/tests.log", LOG + "\n")
    repo.commit("ci log")
    return repo


def test_an_agent_builds_a_bundle_then_recovers_what_the_cut_left_out(repo: Repo) -> None:
    before = repo.snapshot()
    listed, results = _session(
        repo,
        [
            ("bundle", {"diff": "HEAD~1...HEAD", "task": "why does the balance test fail"}),
            ("list_artifacts", {}),
            ("search", {"pattern": "test_total_balance", "context": 1}),
            ("read_artifact", {"name": "ci/tests.log", "lines": "1500-1503"}),
            ("read_artifact", {"name": "ci/tests.log", "lines": "1-3004", "max_tokens": 300}),
            ("read_artifact", {"name": "missing.log"}),
            ("list_artifacts", {"bundle": "/etc/hosts"}),
        ],
    )
    assert [tool.name for tool in listed] == ["list_artifacts", "read_artifact", "search", "bundle"]
    schema = next(tool for tool in listed if tool.name == "read_artifact").input_schema
    assert schema["required"] == ["name"] and {"lines", "bundle", "max_tokens"} <= set(schema["properties"])
    made, names, found, lines, capped, missing, outside = (r for r in results)
    for ok in (made, names, found, lines, capped):
        assert not ok.is_error, ok.content[0].text
    assert "why does the balance test fail" in made.content[0].text
    gaps = re.search(r"ci/tests.log \[log\] TRUNCATED: .*gaps \(lines left out\): ([\d, -]+)", names.content[0].text)
    assert gaps is not None
    assert "ci/tests.log:1501:tests/test_money.py::test_total_balance FAILED" in found.content[0].text
    assert "1501\ttests/test_money.py::test_total_balance FAILED\n1502\tE       assert 3 == 4" in lines.content[0].text
    assert independent_count(capped.content[0].text) <= 300 and "[cut at max_tokens=300" in capped.content[0].text
    assert missing.is_error and "no artifact 'missing.log'" in missing.content[0].text
    assert outside.is_error and "outside the repository" in outside.content[0].text
    assert repo.snapshot() == before  # the work tree and the index as they were


def test_without_the_sdk_the_command_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from ctxguard.commands import mcp

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(UsageError, match=r"pip install 'ctxguard-review\[mcp\]'"):
        mcp.run_mcp(argparse.Namespace(repo="."))


def test_the_hook_never_imports_the_sdk(repo: Repo) -> None:
    """The extra installed or not, a bundle run imports nothing of it: the hook's start-up is
    what it was."""
    import subprocess

    code = (
        "import sys; from ctxguard.main import main; code = main(['bundle', '--repo', sys.argv[1]]); "
        "assert code == 0, code; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'pydantic', 'anyio')))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(repo.path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_read_tools_say_they_are_read_only_and_the_bundle_tool_that_it_writes(repo: Repo) -> None:
    listed, _ = _session(repo, [])
    hints = {tool.name: tool.annotations for tool in listed}
    for name in ("list_artifacts", "read_artifact", "search"):
        assert hints[name] is not None
        assert (hints[name].read_only_hint, hints[name].idempotent_hint, hints[name].open_world_hint) == (
            True,
            True,
            False,
        )
    assert hints["bundle"] is not None and hints["bundle"].read_only_hint is False


def test_a_catastrophic_pattern_is_stopped_and_other_calls_are_answered_meanwhile(repo: Repo) -> None:
    import time

    repo.write("ci/slow.log", "a" * 40 + "!\n")
    repo.commit("a line a backtracking pattern chokes on")
    params = StdioServerParameters(command=sys.executable, args=["-m", "ctxguard", "mcp"], cwd=str(repo.path))
    done: dict[str, tuple[float, Any]] = {}

    async def run() -> None:
        with anyio.fail_after(120):
            async with Client(params) as client:
                await client.call_tool("bundle", {"diff": "HEAD~1...HEAD"})
                started = time.monotonic()

                async def call(key: str, name: str, arguments: dict[str, Any]) -> None:
                    result = await client.call_tool(name, arguments)
                    done[key] = (time.monotonic() - started, result)

                async with anyio.create_task_group() as group:
                    group.start_soon(
                        call, "slow", "search", {"pattern": "(a|aa)+$", "bundle": ".git/ctxguard/mcp/bundle.json"}
                    )
                    await anyio.sleep(0.3)
                    group.start_soon(call, "quick", "list_artifacts", {"bundle": ".git/ctxguard/mcp/bundle.json"})

    anyio.run(run)
    slow_after, slow = done["slow"]
    quick_after, quick = done["quick"]
    assert slow.is_error and "was stopped" in slow.content[0].text
    assert slow_after < 30  # (5 s of matching, and the server's start under load)
    assert not quick.is_error and "ci/slow.log" in quick.content[0].text
    assert quick_after < slow_after  # answered while the pattern ran
