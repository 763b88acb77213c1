"""Time and memory to fetch a workflow run's failed job log from a local server that answers as
GitHub's REST API does (tests/github/server.py) and cut it into a bundle, beside reading the
same log from a file.

    python bench/github_run.py [--mb 50] [--budget 20000]

Each measure runs in a fresh process (`ctxguard bundle`), so its peak memory is its own.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.github.server import TOKEN, State, github, job  # noqa: E402 (after the path)

FAILURE = (
    "2026-11-27T10:00:02.0000000Z FAILED tests/test_ledger.py::test_round - AssertionError: 15.0 != 1.5\n"
    "2026-11-27T10:00:02.0000000Z ========== 1 failed, 9999 passed in 93.1s ==========\n"
    "2026-11-27T10:00:02.0000000Z ##[error]Process completed with exit code 1.\n"
)


def job_log(megabytes: int) -> bytes:
    """A job log of about `megabytes` MB: a test run's passing lines, timestamped, then its failure."""
    line = "2026-11-27T10:00:01.{:07d}Z tests/test_ledger.py::test_case_{:06d} PASSED                 [ 42%]\n"
    lines, size, k = [], 0, 0
    while size < megabytes * 1_000_000:
        text = line.format(k % 10_000_000, k)
        lines.append(text)
        size += len(text)
        k += 1
    return ("".join(lines) + FAILURE).encode()


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import resource, sys\nfrom ctxguard.main import main\ncode = main(sys.argv[1:])\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\nsys.exit(code)",
            *args,
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return elapsed, int(done.stderr.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--budget", type=int, default=20_000)
    args = parser.parse_args()
    log = job_log(args.mb)
    state = State()
    state.runs[7] = {"id": 7, "name": "CI", "status": "completed", "conclusion": "failure"}
    state.jobs[7] = [job(103, "test", "failure", failed_step="Run tests"), job(104, "lint", "success")]
    state.logs[103] = log
    with tempfile.TemporaryDirectory() as folder, github(state) as base:
        repo = Path(folder)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "job.log").write_bytes(log)
        run_config = (
            f"version: 1\nartifacts:\n  - name: ci\n    source: github-run\n    run: 7\n    budget: {args.budget}\n"
        )
        file_config = f"version: 1\nartifacts:\n  - name: ci\n    paths: [job.log]\n    budget: {args.budget}\n"
        (repo / "run.yaml").write_text(run_config)
        (repo / "file.yaml").write_text(file_config)
        env = dict(os.environ, GITHUB_API_URL=base, GITHUB_TOKEN=TOKEN, GITHUB_REPOSITORY="acme/ledger")
        env.update(NO_PROXY="127.0.0.1", no_proxy="127.0.0.1")
        for name, config in (("from the local API", "run.yaml"), ("from a file", "file.yaml")):
            seconds, peak = _run(
                ["bundle", "--config", str(repo / config), "--repo", str(repo), "--fail-on", "never"], repo, env
            )
            record = json.loads((repo / ".git/ctxguard/bundle.json").read_text())["artifacts"][0]
            kept = "test_round - AssertionError: 15.0 != 1.5" in record["content"]
            print(
                f"{name}: {len(log) / 1e6:.1f} MB, {record['raw_tokens']:,} tokens -> {record['compacted_tokens']:,}: "
                f"{seconds:.2f} s, peak {peak / 1024:.0f} MiB; the failure kept: {kept}"
            )


if __name__ == "__main__":
    main()
