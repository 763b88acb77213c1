"""See ctxguard work end to end in a throwaway repository.

    python examples/demo.py [--keep DIR]

Creates a git repository with a real change staged (an invoice parser switched to Decimal),
a failing pytest log, the plan the change implements and a judge's JSON result; writes the
reviewer config; runs `ctxguard bundle`; prints the summary table and the start of the bundle.
Nothing outside the temporary directory is touched (or DIR, with --keep).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

BEFORE = '''\
import logging

log = logging.getLogger("invoice")


def parse_amount(raw: str) -> float:
    """An invoice amount such as "12" or "1.5"."""
    return float(raw)


def total(lines: list[str]) -> float:
    return sum(parse_amount(line.split(";")[2]) for line in lines)
'''

AFTER = '''\
import logging
from decimal import Decimal

log = logging.getLogger("invoice")


def parse_amount(raw: str) -> Decimal:
    """An invoice amount such as "12", "1.5" or "1,5", parsed exactly."""
    log.info("parsing amount %r", raw)
    return Decimal(raw.replace(",", ""))


def total(lines: list[str]) -> Decimal:
    return sum((parse_amount(line.split(";")[2]) for line in lines), Decimal(0))
'''


# A fixed date: the same commit id at every run, so the demo's bundle is the same too.
_DATES = {"GIT_AUTHOR_DATE": "2024-05-01T10:00:00Z", "GIT_COMMITTER_DATE": "2024-05-01T10:00:00Z"}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env={**os.environ, **_DATES})


def build(repo: Path) -> None:
    """The repository: one commit, then the change staged and the artifacts beside it."""
    repo.mkdir(parents=True, exist_ok=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "demo@example.com")
    _git(repo, "config", "user.name", "ctxguard demo")
    (repo / "invoice.py").write_text(BEFORE)
    _git(repo, "add", "invoice.py")
    _git(repo, "commit", "-q", "-m", "invoice parser")
    (repo / "invoice.py").write_text(AFTER)
    _git(repo, "add", "invoice.py")
    (repo / "reports").mkdir()
    shutil.copy(HERE / "artifacts/failing-tests.log", repo / "reports/tests.log")
    (repo / "docs").mkdir()
    shutil.copy(HERE / "artifacts/plan.md", repo / "docs/plan.md")
    (repo / "build").mkdir()
    shutil.copy(HERE / "artifacts/judge-result.json", repo / "build/judge-result.json")
    config = (HERE / "configs/reviewer.yaml").read_text()
    # A small total, so the demo shows all three tiers on small artifacts.
    config = config.replace("total_budget: 60000", "total_budget: 2400")
    # The plan is background here: a small budget, so the failing tests get more.
    config = config.replace(
        '    paths: ["docs/plan.md"]\n    budget: 6000\n', '    paths: ["docs/plan.md"]\n    budget: 190\n'
    )
    # The log may take what the others leave unused (budgets are otherwise caps).
    config = config.replace("    type: log\n", "    type: log\n    share_surplus: true\n")
    config += '  - name: results\n    paths: ["build/*.json"]\n    budget: 1000\n'
    (repo / ".ctxguard.yaml").write_text(config)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctxguard-demo-") as tmp:
        repo = args.keep.resolve() if args.keep else Path(tmp) / "shop"
        build(repo)
        print(f"$ ctxguard bundle   (in {repo})", flush=True)
        done = subprocess.run([sys.executable, "-m", "ctxguard", "bundle"], cwd=repo)
        if done.returncode != 0:
            return done.returncode
        bundle = json.loads((repo / ".git/ctxguard/bundle.json").read_text())
        sys.stderr.flush()
        print("\nThe bundle (.git/ctxguard/bundle.json), each artifact's record without its content:")
        for record in bundle["artifacts"]:
            print(
                json.dumps(
                    {
                        k: v
                        for k, v in record.items()
                        if k in ("artifact_name", "raw_tokens", "compacted_tokens", "truncated", "tier", "budget")
                    }
                )
            )
        print("\nThe diff as the reviewer sees it:\n")
        print(bundle["artifacts"][0]["content"])
        for record in bundle["artifacts"][1:]:
            if record["tier"] > 1:
                how = "cut (tier 3)" if record["truncated"] else "compressed (tier 2)"
                print(f"\n{record['artifact_name']}, {how}:\n")
                print(record["content"], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
