"""`source: github-run` against a local server that answers as GitHub's REST API does
(tests/github/server.py): the failed jobs' logs in the bundle, the token kept to the API."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxguard import read
from ctxguard.config.load import parse_config
from ctxguard.errors import ConfigError
from ctxguard.github import api, run
from ctxguard.main import main
from tests.generate import log_of
from tests.github.server import TOKEN, State, github, job
from tests.gitrepo import Repo, configured

CONFIG = """\
version: 1
artifacts:
  - name: ci
    source: github-run
    run: 7
    budget: 3000
"""
FAILING_LOG = (
    "2026-11-27T10:00:00.0000000Z ##[group]Run python -m pytest\n"
    + "".join(f"2026-11-27T10:00:01.0000000Z tests/test_ledger.py::test_{i} PASSED\n" for i in range(400))
    + "2026-11-27T10:00:02.0000000Z FAILED tests/test_ledger.py::test_round - AssertionError: 15.0 != 1.5\n"
    + "2026-11-27T10:00:02.0000000Z ##[error]Process completed with exit code 1.\n"
)


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test fetches afresh (the logs are fetched once per process), without waiting."""
    monkeypatch.setattr(run, "_FETCHED", {})
    monkeypatch.setattr(api, "BACKOFF", (0.0, 0.0))
    for name in ("GH_TOKEN", "GITHUB_EVENT_PATH", "GITHUB_RUN_ID"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def state() -> State:
    s = State()
    s.runs[7] = {"id": 7, "name": "CI", "status": "completed", "conclusion": "failure"}
    s.jobs[7] = [
        job(101, "lint", "success"),
        job(102, "docs", "skipped"),
        job(103, "test (3.11)", "failure", failed_step="Run tests"),  # (on the second page)
        job(104, "build", "success"),
    ]
    s.logs.update({101: b"2026-11-27T10:00:00.0000000Z all good\n", 103: FAILING_LOG.encode(), 104: b"built\n"})
    return s


@pytest.fixture
def served(state: State, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with github(state) as base:
        for name in ("NO_PROXY", "no_proxy"):  # (the local server is reached directly: .ci/run sets proxies)
            monkeypatch.setenv(name, "127.0.0.1")
        monkeypatch.setenv("GITHUB_API_URL", base)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("GITHUB_REPOSITORY", "acme/ledger")
        yield base


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return configured(tmp_path / "repo", CONFIG)


def _bundle(repo: Repo, *args: str, code: int = 0) -> dict:  # type: ignore[type-arg]
    before = repo.snapshot()
    assert main(["bundle", "--repo", str(repo.path), *args]) == code
    assert repo.snapshot() == before
    return json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())


def _everything_written(repo: Repo, captured: tuple[str, str]) -> str:
    folder = repo.path / ".git/ctxguard"
    return "".join(captured) + "".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file())


def test_the_failed_job_is_a_record_and_the_token_reaches_no_other_origin(
    repo: Repo, state: State, served: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _bundle(repo)
    records = {r["artifact_name"]: r for r in data["artifacts"]}
    assert list(records) == ["CI / test (3.11)"]  # passing and skipped jobs are not fetched
    content = records["CI / test (3.11)"]["content"]
    assert content.startswith("# CI / test (3.11): failure; step 2 'Run tests' failed (https://github.com/")
    assert "FAILED tests/test_ledger.py::test_round - AssertionError: 15.0 != 1.5" in content
    assert "##[error]Process completed with exit code 1." in content
    # The jobs were read page by page (2 a page: the failed job is on the second) with the token;
    # the log's storage (another port) was sent no Authorization.
    jobs = [auth for path, auth in state.requests if path.endswith("/runs/7/jobs")]
    assert jobs == [f"Bearer {TOKEN}"] * 2
    assert state.storage == [("/logs/103", None)]
    assert TOKEN not in _everything_written(repo, capsys.readouterr())


def test_every_job_with_jobs_all_the_failed_first(repo: Repo, state: State, served: str) -> None:
    repo.write(".ctxguard.yaml", CONFIG + "    jobs: all\n")
    names = [r["artifact_name"] for r in _bundle(repo)["artifacts"]]
    assert names == ["CI / test (3.11)", "CI / lint", "CI / docs", "CI / build"]


def test_bundle_run_adds_an_entry_to_the_config(tmp_path: Path, state: State, served: str) -> None:
    repo = configured(tmp_path / "repo", "version: 1\nartifacts:\n  - name: diff\n    diff: HEAD\n    budget: 800\n")
    names = [r["artifact_name"] for r in _bundle(repo, "--run", "7")["artifacts"]]
    assert names == ["diff", "CI / test (3.11)"]
    assert main(["bundle", "--repo", str(repo.path), "--run", "seven"]) == 2


@pytest.mark.parametrize(
    ("token", "run_id", "said"),
    [
        ("ghs_not-a-valid-token-0000000000000000", 7, "GitHub answered 401 (Bad credentials)"),
        (TOKEN, 8, "GitHub answered 404 (Not Found)"),
    ],
)
def test_an_answer_that_is_not_the_logs_is_a_missing_record_with_a_sentence(
    repo: Repo,
    served: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    token: str,
    run_id: int,
    said: str,
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", token)
    repo.write(".ctxguard.yaml", CONFIG.replace("run: 7", f"run: {run_id}"))
    record = _bundle(repo)["artifacts"][0]
    assert record["missing"] is True and said in record["error"] and f"run {run_id} of acme/ledger" in record["error"]
    out, err = capsys.readouterr()
    assert "Traceback" not in err and token not in out + err
    assert main(["check", "--repo", str(repo.path), "--fail-on", "missing"]) == 1  # fail_on decides
    assert main(["check", "--repo", str(repo.path)]) == 0


def test_a_server_error_is_retried_and_then_said(repo: Repo, state: State, served: str) -> None:
    path = "/repos/acme/ledger/actions/runs/7"
    state.failures[path] = [(500, {}), (502, {})]  # (two tries fail, the third is answered)
    assert _bundle(repo)["artifacts"][0]["artifact_name"] == "CI / test (3.11)"
    state.failures[path] = [(500, {})] * api.TRIES
    run._FETCHED.clear()
    record = _bundle(repo)["artifacts"][0]
    assert record["missing"] and "GitHub answered 500 (Server Error)" in record["error"]


def test_a_spent_rate_limit_is_waited_for_within_reason(repo: Repo, state: State, served: str) -> None:
    path = "/repos/acme/ledger/actions/runs/7/jobs"
    reset = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()))}
    state.failures[path] = [(403, reset), (429, {"retry-after": "0"})]
    assert _bundle(repo)["artifacts"][0]["artifact_name"] == "CI / test (3.11)"
    run._FETCHED.clear()
    far = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time()) + 3600)}
    state.failures[path] = [(403, far)]  # (an hour away: said at once, not waited for)
    started = time.monotonic()
    record = _bundle(repo)["artifacts"][0]
    assert time.monotonic() - started < 10
    assert record["missing"] and "rate limit is spent" in record["error"]


def test_a_run_in_progress_and_a_green_run(repo: Repo, state: State, served: str) -> None:
    state.runs[7].update(status="in_progress", conclusion=None)
    for listed in state.jobs[7]:
        if listed["conclusion"] == "failure":
            listed.update(status="in_progress", conclusion=None)
    record = _bundle(repo)["artifacts"][0]
    assert record["missing"] and "is in_progress: no failed job yet" in record["error"]
    run._FETCHED.clear()
    state.runs[7].update(status="completed", conclusion="success")
    state.jobs[7] = [job(101, "lint", "success")]
    record = _bundle(repo)["artifacts"][0]
    assert not record.get("missing") and record["content"] == "[NO FAILED JOBS: run 7 (CI) concluded success]"


def test_run_auto_is_the_workflow_run_events_else_this_runs(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "completed", "workflow_run": {"id": 4242, "conclusion": "failure"}}))
    assert run.run_id("auto", {"GITHUB_EVENT_PATH": str(event), "GITHUB_RUN_ID": "9"}) == 4242
    assert run.run_id(None, {"GITHUB_EVENT_PATH": str(tmp_path / "push.json"), "GITHUB_RUN_ID": "9"}) == 9
    assert run.run_id("31", {}) == 31
    with pytest.raises(run.RunError, match="GITHUB_RUN_ID"):
        run.run_id("auto", {})
    assert run.repository({}, "git@github.com:acme/ledger.git") == "acme/ledger"
    assert run.repository({}, "https://ghe.example.com/acme/ledger") == "acme/ledger"
    assert run.repository({"GITHUB_REPOSITORY": "o/r"}, None) == "o/r"


def test_a_big_log_takes_the_streaming_path(
    repo: Repo, state: State, served: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxguard.engine import stream

    monkeypatch.setattr(read, "STREAM_BYTES", 1 << 20)
    finished = []  # (a spy on the streaming path's last step: the real one runs)
    real = stream.finish
    monkeypatch.setattr(stream, "finish", lambda *a, **k: finished.append(a[2]) or real(*a, **k))
    state.logs[103] = (log_of(3000) * 140 + FAILING_LOG).encode()
    assert len(state.logs[103]) > 1 << 20
    record = _bundle(repo)["artifacts"][0]
    assert len(finished) == 1 and finished[0].name == "7-103.log"
    assert record["truncated"] and record["compacted_tokens"] <= 3000
    assert "test_round - AssertionError: 15.0 != 1.5" in record["content"]


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ("    source: git\n    run: 7\n", "applies to a github-run artifact"),
        ("    source: github-run\n    jobs: some\n", "must be one of failed, all"),
        ("    source: github-run\n    run: latest\n", "must be auto or a run id"),
        ("    source: github-run\n    paths: [x.log]\n", "reads a workflow run's jobs, not paths"),
    ],
)
def test_a_wrong_github_run_entry_is_a_config_error(entry: str, said: str) -> None:
    with pytest.raises(ConfigError, match=said):
        parse_config(f"version: 1\nartifacts:\n  - name: ci\n    budget: 100\n{entry}")


def test_the_example_config_shows_the_failure_and_the_change_together(
    tmp_path: Path, state: State, served: str
) -> None:
    from tests.conftest import ROOT

    repo = Repo(tmp_path / "repo")
    repo.write("ledger.py", "def round_half(x):\n    return round(x, 1)\n")
    repo.commit("initial")
    repo.write("ledger.py", "def round_half(x):\n    return round(x * 10, 1)\n")
    repo.write(
        "reports/unit/junit.xml",
        '<testsuite name="pytest" tests="2"><testcase classname="tests.test_ledger" name="test_round">'
        '<failure message="AssertionError: 15.0 != 1.5">assert 15.0 == 1.5</failure></testcase>'
        '<testcase classname="tests.test_ledger" name="test_total"/></testsuite>\n',
    )
    config = str(ROOT / "examples/configs/ci-failure.yaml")
    data = _bundle(repo, "--config", config, "--run", "7")
    records = {r["artifact_name"]: r for r in data["artifacts"]}
    assert list(records) == ["CI / test (3.11)", "reports/unit/junit.xml", "diff"]
    assert "test_round - AssertionError: 15.0 != 1.5" in records["CI / test (3.11)"]["content"]
    assert records["reports/unit/junit.xml"]["type"] == "junit"
    assert "+    return round(x * 10, 1)" in records["diff"]["content"]
