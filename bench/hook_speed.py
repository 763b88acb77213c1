"""The pre-commit hook's cost against its floor: interpreter start plus the encoding load.

    python bench/hook_speed.py [--repeat 15]

Builds a temporary repository with a small staged commit (a config, a changed Python file, a
short log), then alternates fresh processes of

    floor:  python -c "import tiktoken; tiktoken.get_encoding('o200k_base')"
    bundle: ctxguard bundle            (what the `ctxguard` hook runs, minus pre-commit itself)
    check:  ctxguard check
    cold:   ctxguard bundle            without the ranks cache (ctxguard.ranks_cache)
    dir set: ctxguard bundle           with TIKTOKEN_CACHE_DIR set (the floor's), ranks cached

and prints the median wall time of each and the ratios to the floor (target: bundle and dir
set <= 0.85x).
The floor needs TIKTOKEN_CACHE_DIR (or a warm tiktoken cache) so no run downloads anything;
ctxguard runs as an installed hook does: the encoding files shipped in the package (no
TIKTOKEN_CACHE_DIR), their ranks cached by the first run in a temporary CTXGUARD_CACHE_DIR.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIG = """\
version: 1
fail_on: never
artifacts:
  - name: diff
    diff: staged
    budget: 4000
  - name: logs
    paths: ["reports/*.log"]
    budget: 1000
"""


def _repo(path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "user.email", "bench@example.com")
    git("config", "user.name", "bench")
    (path / ".ctxguard.yaml").write_text(CONFIG)
    (path / "app.py").write_text("".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(50)))
    git("add", "-A")
    git("commit", "-q", "-m", "initial")
    (path / "app.py").write_text("".join(f"def f{i}(x):\n    return x * {i}\n\n" for i in range(50)))
    (path / "reports").mkdir()
    (path / "reports/test.log").write_text("".join(f"INFO step {i} ok\n" for i in range(40)) + "ERROR boom\n")
    git("add", "app.py")


def _time(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    ctxguard = shutil.which("ctxguard")
    if not ctxguard:
        sys.exit("ctxguard is not installed (pip install .)")
    commands = {
        "floor": [sys.executable, "-c", "import tiktoken; tiktoken.get_encoding('o200k_base')"],
        "bundle": [ctxguard, "bundle"],
        "check": [ctxguard, "check"],
        "cold": [ctxguard, "bundle"],
        "dir set": [ctxguard, "bundle"],
    }
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        _repo(repo)
        hook = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"}
        envs = {
            "floor": dict(os.environ),
            "bundle": {**hook, "CTXGUARD_CACHE_DIR": str(Path(tmp) / "cache")},
            "check": {**hook, "CTXGUARD_CACHE_DIR": str(Path(tmp) / "cache")},
            "cold": {**hook, "CTXGUARD_CACHE_DIR": "/dev/null/no-cache"},  # (never written)
            # TIKTOKEN_CACHE_DIR set (the floor's), as in a CI job that sets it: the same ranks cache.
            "dir set": {**os.environ, "CTXGUARD_CACHE_DIR": str(Path(tmp) / "cache")},
        }
        for name, command in commands.items():  # warm the page cache, and the ranks cache, once
            _time(command, repo, envs[name])
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, command in commands.items():
                times[name].append(_time(command, repo, envs[name]))
    floor = statistics.median(times["floor"])
    print(f"{'command':<8} {'median':>9} {'ratio':>7}   (n={args.repeat}, fresh process each)")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<8} {median * 1000:>7.0f}ms {median / floor:>6.2f}x")


if __name__ == "__main__":
    main()
