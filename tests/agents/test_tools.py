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
    (ws.state / "bundle.json").unlink()
    answer = tools.make_bundle(ws, run_bundle, diff="staged", task="check the balance total", max_tokens=8000)
    assert repo.snapshot() == before
    assert (ws.state / "bundle.json").exists() and (ws.state / "bundle.prompt.md").exists()
    assert "check the balance total" in answer and "reports/tests.log" in answer
    assert independent_count(answer) <= 8000
    small = tools.make_bundle(ws, run_bundle, diff="staged", max_tokens=300)
    assert independent_count(small) <= 300 and "[cut at max_tokens=300" in small


def test_no_bundle_yet_says_what_to_do(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "fresh")
    with pytest.raises(CtxguardError, match=r"call bundle\(\) first"):
        tools.list_artifacts(tools.Workspace.open(repo.path))
