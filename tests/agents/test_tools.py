"""The agents' tools over a real bundle in a real repository: lines a cut left out come back
exactly, every answer keeps to its max_tokens and says how to get the rest, paths stay confined."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from ctxguard.agents import tools
from ctxguard.commands.mcp import run_bundle
from ctxguard.errors import CtxguardError, UsageError
from ctxguard.main import main
from tests.gitrepo import Repo, configured
from tests.helpers import independent_count

FAILING = "tests/test_money.py::test_total_balance FAILED"


def _log() -> str:
    lines = [f"tests/test_mod{i % 40}.py::test_case_{i} PASSED [{i * 100 // 3000:3d}%]" for i in range(3000)]
    lines.insert(2000, FAILING)
    lines += [
        "=================================== FAILURES ===================================",
        "______________________________ test_total_balance ______________________________",
        "    def test_total_balance():",
        ">       assert total([1, 2]) == 4",
        "E       assert 3 == 4",
        "tests/test_money.py:12: AssertionError",
        "FAILED tests/test_money.py::test_total_balance - assert 3 == 4",
        "======================== 1 failed, 2999 passed in 12.3s ========================",
    ]
    return "\n".join(lines) + "\n"


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = configured(
        tmp_path / "repo",
        "version: 1\nartifacts:\n  - {name: diff, budget: 2000}\n"
        "  - {name: logs, paths: ['reports/*.log'], budget: 600}\n",
    )
    repo.write("reports/tests.log", _log())
    repo.commit("a log")
    repo.write("app.py", "def main():\n    return 2\n")
    repo.add("app.py")
    assert main(["bundle", "--repo", str(repo.path)]) == 0
    return repo


@pytest.fixture
def ws(repo: Repo) -> tools.Workspace:
    return tools.Workspace.open(repo.path)


def _numbered(answer: str) -> dict[int, str]:
    """The numbered lines of a read_artifact answer (`N<TAB>text`)."""
    found = (re.match(r"(\d+)\t(.*)", line) for line in answer.split("\n"))
    return {int(m.group(1)): m.group(2) for m in found if m}


def test_list_artifacts_names_each_record_with_the_gaps_its_content_has(ws: tools.Workspace, repo: Repo) -> None:
    data = json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())
    log = next(r for r in data["artifacts"] if r["artifact_name"] == "reports/tests.log")
    gaps = re.findall(r"^\.\.\. \(lines (\d+)-(\d+) omitted\)$", log["content"], re.M)
    assert gaps  # (the cut left something out)
    answer = tools.list_artifacts(ws)
    row = next(line for line in answer.split("\n") if line.startswith("- reports/tests.log"))
    assert "TRUNCATED" in row and f"{log['raw_tokens']:,} -> {log['compacted_tokens']:,}" in row
    assert ", ".join(f"{a}-{b}" for a, b in gaps) in row
    assert "- diff [diff]" in answer


def test_every_gap_reads_back_exactly_the_raw_lines_it_stands_for(ws: tools.Workspace, repo: Repo) -> None:
    raw = (repo.path / "reports/tests.log").read_text().split("\n")
    data = json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())
    content = next(r["content"] for r in data["artifacts"] if r["artifact_name"] == "reports/tests.log")
    for first, last in re.findall(r"^\.\.\. \(lines (\d+)-(\d+) omitted\)$", content, re.M):
        a, b = int(first), int(last)
        got: dict[int, str] = {}
        call = f"{a}-{b}"
        for _ in range(200):  # a cut answer names the call that gives the rest: follow it
            answer = tools.read_artifact(ws, "reports/tests.log", lines=call, max_tokens=3000)
            assert independent_count(answer) <= 3000
            got.update(_numbered(answer))
            more = re.search(r"lines='(\d+-\d+)'\)\]$", answer.strip())
            if more is None:
                break
            call = more.group(1)
        assert got == {n: raw[n - 1] for n in range(a, b + 1)}


@pytest.mark.parametrize("max_tokens", [200, 500, 2000])
def test_every_answer_keeps_to_its_max_tokens_and_says_when_it_cut(ws: tools.Workspace, max_tokens: int) -> None:
    answers = [
        tools.list_artifacts(ws, max_tokens=max_tokens),
        tools.read_artifact(ws, "reports/tests.log", max_tokens=max_tokens),
        tools.read_artifact(ws, "reports/tests.log", lines="1-3000", max_tokens=max_tokens),
        tools.search(ws, "PASSED", max_tokens=max_tokens),
    ]
    for answer in answers:
        assert independent_count(answer) <= max_tokens
    # 3,000 numbered lines never fit: the answer says it was cut and where the rest starts
    assert re.search(
        r"\[cut at max_tokens=[\d,]+: \d+ more lines; read_artifact\('reports/tests.log', lines='\d+-3000'\)\]",
        answers[2],
    )


def test_search_puts_error_lines_first_and_counts_every_match(ws: tools.Workspace, repo: Repo) -> None:
    raw = (repo.path / "reports/tests.log").read_text().split("\n")[:-1]
    answer = tools.search(ws, r"test_total_balance", name="reports/tests.log", context=0, max_tokens=5000)
    matches = [line for line in answer.split("\n") if re.match(r"reports/tests\.log:\d+:", line)]
    expected = [n + 1 for n, line in enumerate(raw) if "test_total_balance" in line]
    assert answer.startswith(f"{len(expected)} matches for /test_total_balance/")
    assert sorted(int(m.split(":")[1]) for m in matches) == expected
    failed = [n for n in expected if "FAILED" in raw[n - 1]]
    assert [int(m.split(":")[1]) for m in matches][: len(failed)] == failed  # the failing lines first


def test_search_caps_its_matches_and_says_how_many_more(ws: tools.Workspace) -> None:
    answer = tools.search(ws, r"PASSED", context=0, max_matches=5, max_tokens=5000)
    assert answer.startswith("3000 matches for /PASSED/")
    assert answer.count("reports/tests.log:") == 5
    assert "[2995 more beyond max_matches=5]" in answer


def test_bad_calls_are_usage_errors_with_a_sentence(ws: tools.Workspace) -> None:
    with pytest.raises(UsageError, match="not a regular expression"):
        tools.search(ws, "(")
    with pytest.raises(UsageError, match="no artifact 'nope'"):
        tools.read_artifact(ws, "nope")
    with pytest.raises(UsageError, match="the full text has 3009 lines"):
        tools.read_artifact(ws, "reports/tests.log", lines="4000-4001")
    with pytest.raises(UsageError, match="max_tokens is 200 to 100,000"):
        tools.list_artifacts(ws, max_tokens=10)
    with pytest.raises(UsageError, match="cannot start with '-'"):
        tools.make_bundle(ws, run_bundle, diff="--output=/tmp/x")
    with pytest.raises(UsageError, match="1 or more"):
        tools.make_bundle(ws, run_bundle, total_budget=0)


def test_a_bundle_or_a_full_text_outside_the_repository_is_refused(ws: tools.Workspace, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text((ws.state / "bundle.json").read_text())
    with pytest.raises(UsageError, match="outside the repository"):
        tools.list_artifacts(ws, bundle=str(outside))
    with pytest.raises(UsageError, match="outside the repository"):
        tools.list_artifacts(ws, bundle="../elsewhere.json")
    # a bundle in the repository naming a full text outside it, with the right digest: refused
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the agent\n")
    data = json.loads((ws.state / "bundle.json").read_text())
    record = next(r for r in data["artifacts"] if r.get("offload"))
    record["offload"] = {"path": "../../../secret.txt", "sha256": hashlib.sha256(secret.read_bytes()).hexdigest()}
    hostile = ws.state / "hostile.json"
    hostile.write_text(json.dumps(data))
    with pytest.raises(UsageError, match="outside the bundle's folders"):
        tools.read_artifact(ws, record["artifact_name"], lines="1", bundle=str(hostile))
    with pytest.raises(UsageError, match="outside the bundle's folders"):
        tools.search(ws, "agent", bundle=str(hostile))


def test_a_changed_full_text_is_refused(ws: tools.Workspace) -> None:
    data = json.loads((ws.state / "bundle.json").read_text())
    record = next(r for r in data["artifacts"] if r.get("offload"))
    target = ws.state / record["offload"]["path"]
    target.write_text("something else\n")
    with pytest.raises(UsageError, match="sha256 differs"):
        tools.read_artifact(ws, record["artifact_name"], lines="1")


def test_make_bundle_returns_the_prompt_and_writes_only_in_the_git_directory(repo: Repo) -> None:
    ws = tools.Workspace.open(repo.path)
    before = repo.snapshot()
    hooks = (ws.state / "bundle.json").read_bytes()
    answer = tools.make_bundle(ws, run_bundle, diff="HEAD", task="check the balance total", max_tokens=8000)
    assert repo.snapshot() == before
    assert (ws.state / "bundle.json").read_bytes() == hooks  # the hook's bundle is never overwritten
    assert (ws.own / "bundle.json").exists() and (ws.own / "bundle.prompt.md").exists()
    assert "bundle written to .git/ctxguard/mcp/bundle.json (pass bundle='.git/ctxguard/mcp/bundle.json'" in answer
    assert "check the balance total" in answer and "reports/tests.log" in answer
    assert independent_count(answer) <= 8000
    listed = tools.list_artifacts(ws, bundle=".git/ctxguard/mcp/bundle.json")
    assert "bundle .git/ctxguard/mcp/bundle.json" in listed or str(ws.own / "bundle.json") in listed
    assert "- app.py" not in tools.list_artifacts(ws)  # (the default is still the hook's: staged app.py)
    small = tools.make_bundle(ws, run_bundle, diff="staged", max_tokens=300)
    assert independent_count(small) <= 300 and "[cut at max_tokens=300" in small


def test_no_bundle_yet_says_what_to_do(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "fresh")
    with pytest.raises(CtxguardError, match=r"call bundle\(\) first"):
        tools.list_artifacts(tools.Workspace.open(repo.path))


def test_a_bundle_tools_bundle_is_the_default_only_when_the_hook_wrote_none(repo: Repo) -> None:
    ws = tools.Workspace.open(repo.path)
    (ws.state / "bundle.json").unlink()
    tools.make_bundle(ws, run_bundle, diff="HEAD")
    assert ws.bundle_path(None) == ws.own / "bundle.json"
    assert "reports/tests.log" in tools.list_artifacts(ws)


def _edited(ws: tools.Workspace, offload: str, text: bytes) -> None:
    """The hook's bundle with its log record's offload pointed at another file, the right digits."""
    path = ws.state / "bundle.json"
    data = json.loads(path.read_text())
    log = next(r for r in data["artifacts"] if r["artifact_name"] == "reports/tests.log")
    log["offload"] = {"path": offload, "sha256": hashlib.sha256(text).hexdigest()[:16]}
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("target", ["../config", "../../.env"])
def test_an_edited_bundle_cannot_turn_the_read_tools_on_another_file(
    ws: tools.Workspace, repo: Repo, target: str
) -> None:
    secret = b"[core]\n\ttoken = ghp_notAnOffloadButNamedAsOne0123456789\n"
    (repo.path / ".env").write_bytes(secret)
    (ws.state.parent / "config").write_bytes(secret) if target == "../config" else None
    _edited(ws, target, secret if target == "../../.env" else (ws.state.parent / "config").read_bytes())
    for call in (
        lambda: tools.read_artifact(ws, "reports/tests.log", lines="1-2"),
        lambda: tools.search(ws, "token", name="reports/tests.log"),
    ):
        with pytest.raises(UsageError, match="not a file ctxguard wrote"):
            call()


def test_a_fifo_named_as_a_bundle_or_an_offload_is_refused_at_once(ws: tools.Workspace, repo: Repo) -> None:
    import os

    fifo = repo.path / ".git" / "ctxguard" / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="not a regular file"):
        tools.list_artifacts(ws, bundle=".git/ctxguard/pipe.json")
    named = ws.state / "offload" / "0123456789abcdef.log"
    os.mkfifo(named)
    _edited(ws, "offload/0123456789abcdef.log", b"")
    path = ws.state / "bundle.json"
    data = json.loads(path.read_text())
    next(r for r in data["artifacts"] if r["artifact_name"] == "reports/tests.log")["offload"]["sha256"] = (
        "0123456789abcdef"
    )
    path.write_text(json.dumps(data))
    with pytest.raises(UsageError, match="not a regular file"):
        tools.read_artifact(ws, "reports/tests.log", lines="1-2")


def test_a_catastrophic_pattern_is_stopped_at_its_deadline(
    ws: tools.Workspace, repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxguard.bundle import search

    monkeypatch.setattr(search, "DEADLINE_SECONDS", 0.5)
    import time

    repo.write("reports/slow.log", "a" * 40 + "!\n")
    assert main(["bundle", "--repo", str(repo.path)]) == 0
    started = time.monotonic()
    with pytest.raises(UsageError, match=r"took more than 0.5 s .* was stopped"):
        tools.search(ws, "(a|aa)+$")
    assert time.monotonic() - started < 5
    assert "1 match" in tools.search(ws, "a{40}!")  # (the next call is answered as before)


def test_show_grep_stops_a_catastrophic_pattern_too(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ctxguard.bundle import search

    monkeypatch.setattr(search, "DEADLINE_SECONDS", 0.5)
    repo.write("reports/slow.log", "a" * 40 + "!\n")
    assert main(["bundle", "--repo", str(repo.path)]) == 0
    capsys.readouterr()
    assert main(["show", str(repo.path / ".git/ctxguard/bundle.json"), "--grep", "(a|aa)+$"]) == 2
    assert "was stopped" in capsys.readouterr().err


def test_a_context_line_two_matches_share_is_printed_once_as_grep_prints_it() -> None:
    from ctxguard.bundle.search import Match, blocks

    lines = {n: f"line {n}" for n in range(1, 12)}

    def match(n: int) -> Match:
        return Match("a.log", n, lines[n], tuple((k, lines[k]) for k in (n - 2, n - 1)), ((n + 1, lines[n + 1]),))

    said = blocks([match(3), match(5), match(10)])
    assert said[0] == "".join(
        f"a.log{':' if n in (3, 5) else '-'}{n}{':' if n in (3, 5) else '-'}line {n}\n" for n in range(1, 7)
    )  # (line 4 once, and line 5 a match, not 3's context)
    assert said[1] == "a.log-8-line 8\na.log-9-line 9\na.log:10:line 10\na.log-11-line 11\n"
