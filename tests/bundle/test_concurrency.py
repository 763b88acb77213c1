"""Parallel writers never corrupt a bundle; Ctrl-C leaves no partial bundle and exits 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import ROOT
from tests.generate import log_of
from tests.gitrepo import Repo, configured

pytestmark = pytest.mark.slow
SCHEMA = json.loads((ROOT / "ctxguard/schemas/bundle.schema.json").read_text())


def _repo(tmp_path: Path, log: str) -> Repo:
    repo = configured(
        tmp_path / "repo",
        "version: 1\nfail_on: never\nartifacts:\n  - name: diff\n    diff: staged\n"
        '    budget: 2000\n  - name: logs\n    paths: ["reports/*.log"]\n    budget: 2000\n',
    )
    repo.write("app.py", "def main():\n    return 2\n")
    repo.add("app.py")
    repo.write("reports/run.log", log)
    return repo


def _ctxguard(repo: Repo, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ctxguard", "bundle", "--repo", str(repo.path), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ,
        # A suite started in the background by a shell that ignores SIGINT passes that on to its
        # children: the child gets the default handler back, as a terminal's Ctrl-C finds it.
        preexec_fn=_default_sigint,
    )


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cpu_seconds(pid: int) -> float:
    """CPU time a process has used (Linux /proc): how far its work has gone, whatever the load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_parallel_bundles_never_leave_a_corrupt_file(tmp_path: Path) -> None:
    repo = _repo(tmp_path, log_of(20_000))
    before = repo.snapshot()
    bundle = repo.path / ".git/ctxguard/bundle.json"
    for _ in range(3):
        runs = [_ctxguard(repo) for _ in range(4)]
        while any(run.poll() is None for run in runs):  # a reader meanwhile: whole files only
            if bundle.exists():
                jsonschema.validate(json.loads(bundle.read_text()), SCHEMA)
        assert all(run.wait() == 0 for run in runs)
        jsonschema.validate(json.loads(bundle.read_text()), SCHEMA)
    assert not list(bundle.parent.glob(".*.tmp"))  # no temporary file left behind
    assert repo.snapshot() == before


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads a process's CPU time from /proc")
def test_ctrl_c_exits_130_and_leaves_no_partial_bundle(tmp_path: Path) -> None:
    line = "2024-05-01 10:00:00 INFO worker handled request id=1234567 status=200 in 12ms\n"
    repo = _repo(tmp_path, line * 600_000)  # about 50 MB: seconds of work to interrupt
    run = _ctxguard(repo)
    # Interrupt it well into its work (past start-up, which takes well under a second of CPU),
    # measured in its own CPU time, so a loaded machine does not change the moment.
    while run.poll() is None and _cpu_seconds(run.pid) < 1.5:
        time.sleep(0.05)
    assert run.poll() is None, "finished before it could be interrupted"
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    folder = repo.path / ".git/ctxguard"
    assert not (folder / "bundle.json").exists()
    assert not list(folder.glob(".*.tmp")) and not list(folder.glob("*.tmp"))
