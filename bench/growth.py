"""Does time grow with the input, and no faster? Inputs that once grew faster than linear.

    python bench/growth.py [--line 1.25,2.5,5] [--files 2000,8000,20000] [--logs 2000,8000,16000]
                           [--hunk 2000,8000,32000] [--diff-files 2000,8000,32000] [--rules 2000,8000,32000]
                           [--sarif 2000,8000,32000] [--links 1000,4000,16000]
                           [--paragraphs 2000,8000,32000] [--repeat 3]

- **one long line**: a log line of `name=value` pairs (names with secret words in them:
  `session_id=`, `token_type=`, `cache_key=`), 1x, 2x, 4x the size; CPU time of
  `ctxguard.redact.redact` (the inline-assignment reader once read the line again at each pair).
- **split: file**: a staged change of N new files in a real temporary repository, bundled with
  `split: file` (one record per file); CPU time of one `ctxguard bundle` process (children
  included), N = 2,000 / 8,000 / 20,000 (each offload write once scanned the offload folder).
- **files by a glob**: N small log files named by one entry's glob, `split: file`; CPU time of
  one `ctxguard bundle` process (each file matched was once looked for in the list of those
  matched before it), N = 2,000 / 8,000 / 16,000.
- **one Python hunk**: a diff of one hunk of N lines of Python edited in place (a number
  bumped on each), N = 2,000 / 8,000 / 32,000; CPU time of `compress` at half its tokens (a
  docstring test once walked the hunk from each edited line).
- **one diff of many files**: N small Python files changed, N = 2,000 / 8,000 / 32,000; CPU time
  of `compress` at half its tokens (each path the cut left out was once searched for in all of
  the content: the probes' check).
- **one paragraph of rules**: a markdown paragraph of N sentences `It MUST do thing 12.`, N =
  2,000 / 8,000 / 32,000; CPU time of `compress` at half its tokens (each rule was searched for
  in the content, and each sentence ending in a digit read its line back to its start).
- **many paragraphs of sentences**: a markdown document of N paragraphs, each one line of three
  sentences, N = 2,000 / 8,000 / 32,000; CPU time of `compress` at half its tokens (each line
  is one tokenizer segment spread over its sentences' units, and each such spread once walked
  the units' ends from the start to its own).
- **a SARIF log**: N results of 30 rules over 500 files, one in seven an error; CPU time of
  `compress` at half its tokens (each result's key was searched for in the content: the count
  of what a cut left out; JUnit's failing testcases and a JSON report's failing items alike).
- **failures to their causes**: N hunks over N/5 files and N/10 failures of 8 frames each, their
  log 13 lines a failure; CPU time of `ctxguard.links.link` (each failure checked every hunk,
  and read every line of its log for its frames).

Prints CPU seconds, the time per unit (per MB, per 1,000 files) and its ratio to the smallest
size's: linear growth keeps the ratio near 1.0 (within 10 %, where the process's fixed start
is a small share). Minimum of --repeat runs each.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # measure this checkout, not an installed copy

from ctxguard.engine.tiers import compress  # noqa: E402
from ctxguard.kinds.base import Change, Failure  # noqa: E402
from ctxguard.links import link  # noqa: E402
from ctxguard.secrets.redact import redact  # noqa: E402
from ctxguard.tokens.load import get_tokenizer  # noqa: E402

NAMES = ["user", "session_id", "auth_method", "key_count", "token_type", "status", "latency_ms", "pass_rate"]
NAMES.append("cache_key")


def long_line(megabytes: float, seed: int = 3) -> str:
    pick = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < megabytes * (1 << 20):
        part = f"{pick.choice(NAMES)}={pick.randint(0, 99999)}x"
        parts.append(part)
        size += len(part) + 1
    return " ".join(parts)


def time_line(megabytes: float, repeat: int) -> float:
    text = long_line(megabytes)
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        redact(text)
        best = min(best, time.process_time() - start)
    return best


def python_hunk(lines: int) -> str:
    """A diff of one hunk of Python in which every third line is edited in place."""
    body = []
    for i in range(lines // 3):
        body += [f"-    total_{i} = compute(a, b) + {i}\n", f"+    total_{i} = compute(a, b) + {i + 1}\n"]
        body.append(f"     check(total_{i})\n")
    old = new = sum(1 for line in body if line[0] != "+")
    return f"diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,{old} +1,{new} @@\n" + "".join(body)


def many_files(count: int) -> str:
    """A diff changing one line of each of `count` small Python files at the top of a repository
    (a path with no word inside it: `m12.py`)."""
    return "".join(
        f"diff --git a/m{i}.py b/m{i}.py\n--- a/m{i}.py\n+++ b/m{i}.py\n"
        f"@@ -1,2 +1,2 @@\n def f():\n-    return {i}\n+    return {i + 1}\n"
        for i in range(count)
    )


def rules_paragraph(count: int) -> str:
    """A markdown document of one paragraph of `count` MUST rules."""
    return "# Spec\n\n" + " ".join(f"It MUST do thing {i}." for i in range(count)) + "\n"


def paragraphs(count: int) -> str:
    """A markdown document of `count` paragraphs, each a line of three sentences."""
    return "# Notes\n\n" + "".join(
        f"Step {i} reads the file. It keeps what it needs. The rest waits for step {i + 1}.\n\n" for i in range(count)
    )


def sarif_log(count: int) -> str:
    """A SARIF 2.1.0 log of `count` results."""
    results = [
        {
            "ruleId": f"R{i % 30}",
            "level": "error" if i % 7 == 0 else "warning",
            "message": {"text": f"problem {i} found here"},
            "locations": [
                {"physicalLocation": {"artifactLocation": {"uri": f"src/f{i % 500}.py"}, "region": {"startLine": i}}}
            ],
        }
        for i in range(count)
    ]
    rules = [{"id": f"R{k}"} for k in range(30)]
    return json.dumps(
        {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "lint", "rules": rules}}, "results": results}]}
    )


def time_links(hunks: int, repeat: int) -> float:
    """CPU seconds of linking hunks/10 failures to `hunks` hunks (least of repeat)."""
    pick = random.Random(2)
    files = [f"src/pkg{i % 40}/mod{i}.py" for i in range(hunks // 5)]
    changes = [
        (0, "pr.diff", Change(files[h // 5], 10 * (h % 5) + 1, 10 * (h % 5) + 6, (f"parse_thing{h}",), (3 * h,)))
        for h in range(hunks)
    ]
    failures, lines = [], []
    for f in range(hunks // 10):
        frames = [f"/work/repo/{pick.choice(files)}:{pick.randint(1, 60)}" for _ in range(8)]
        tests = [f"tests/test_mod{f}.py::test_parse_thing{pick.randint(0, hunks)}"]
        failures.append((1, "test.log", Failure(f"AssertionError: {f}", frames[-1], tests, frames)))
        lines += [f'  File "{frame.rsplit(":", 1)[0]}", line {frame.rsplit(":", 1)[1]}, in f\n' for frame in frames]
        lines += [f"E   assert {f}\n"] * 5
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        link(failures, changes, lambda at: lines if at == 1 else ())
        best = min(best, time.process_time() - start)
    return best


def time_diff(text: str, repeat: int, kind: str = "diff") -> float:
    """CPU seconds of compress at half the text's tokens (least of repeat)."""
    tokenizer = get_tokenizer("o200k_base")
    budget = tokenizer.count(text) // 2
    compress(text[:4096], 64, tokenizer=tokenizer, name=f"m.{kind}", artifact_type=kind)  # (imports, caches)
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        compress(text, budget, tokenizer=tokenizer, name=f"m.{kind}", artifact_type=kind)
        best = min(best, time.process_time() - start)
    return best


def time_hunk(lines: int, repeat: int) -> float:
    return time_diff(python_hunk(lines), repeat)


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com"}
    env |= {"GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


def files_repo(folder: Path, count: int) -> Path:
    """A repository with one commit and `count` new files staged, split: file."""
    repo = folder / f"repo-{count}"
    repo.mkdir()
    _git(repo, "init", "-q")
    entry = f"  - {{name: diff, diff: staged, budget: {count * 40}, split: file}}\n"
    (repo / ".ctxguard.yaml").write_text(f"version: 1\nfail_on: never\nartifacts:\n{entry}")
    (repo / "README").write_text("base\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    for i in range(count):
        folder_i = repo / "src" / f"m{i // 500}"
        folder_i.mkdir(parents=True, exist_ok=True)
        body = "".join(f"def handler_{i}_{k}(request):\n    return {k} * {i}\n\n" for k in range(6))
        (folder_i / f"f{i}.py").write_text(body)
    _git(repo, "add", "-A")
    return repo


def logs_repo(folder: Path, count: int) -> Path:
    """A repository whose config names `count` log files by a glob, split: file (ignored by git:
    files, not a diff)."""
    repo = folder / f"logs-{count}"
    (repo / "logs").mkdir(parents=True)
    _git(repo, "init", "-q")
    entry = f"  - {{name: logs, paths: ['logs/*.log'], budget: {count * 40}, split: file}}\n"
    (repo / ".ctxguard.yaml").write_text(f"version: 1\nfail_on: never\nartifacts:\n{entry}")
    (repo / ".gitignore").write_text("logs/\n")
    for i in range(count):
        (repo / "logs" / f"job{i}.log").write_text(f"start job {i}\nERROR step {i} failed: code {i % 7}\nend\n")
    return repo


def time_files(repo: Path, repeat: int) -> float:
    best = float("inf")
    env = {k: v for k, v in os.environ.items()} | {"PYTHONPATH": str(ROOT)}
    for _ in range(repeat):
        out = repo.parent / f"{repo.name}.json"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(
            [sys.executable, "-m", "ctxguard", "bundle", "--repo", str(repo), "--output", str(out)],
            capture_output=True,
            text=True,
            env=env,
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1):
            raise SystemExit(done.stderr)
        best = min(best, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return best


def _table(title: str, unit: str, rows: list[tuple[float, float]]) -> None:
    print(f"\n{title}")
    print(f"{'size':>10}  {'cpu s':>8}  {unit:>12}  {'ratio':>6}")
    first = rows[0][1] / rows[0][0]
    for size, seconds in rows:
        per = seconds / size
        print(f"{size:>10,g}  {seconds:>8.2f}  {per:>12.4f}  {per / first:>6.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--line", default="1.25,2.5,5", help="sizes of the long line, in MB")
    parser.add_argument("--files", default="2000,8000,20000", help="numbers of files for split: file")
    parser.add_argument("--logs", default="2000,8000,16000", help="log files an entry's glob names")
    parser.add_argument("--hunk", default="2000,8000,32000", help="lines of the one Python hunk")
    parser.add_argument("--diff-files", default="2000,8000,32000", help="files changed in the one diff")
    parser.add_argument("--rules", default="2000,8000,32000", help="MUST sentences in the one paragraph")
    parser.add_argument("--sarif", default="2000,8000,32000", help="results in the SARIF log")
    parser.add_argument("--links", default="1000,4000,16000", help="hunks the failures are linked to")
    parser.add_argument("--paragraphs", default="2000,8000,32000", help="paragraphs of the markdown document")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if args.line:
        sizes = [float(s) for s in args.line.split(",")]
        _table("one long line of name=value pairs: redact", "s per MB", [(s, time_line(s, args.repeat)) for s in sizes])
    if args.files:
        counts = [int(s) for s in args.files.split(",")]
        rows = []
        with tempfile.TemporaryDirectory() as folder:
            for count in counts:
                repo = files_repo(Path(folder), count)
                rows.append((count / 1000, time_files(repo, args.repeat)))
        _table("split: file, a staged change of N new files: ctxguard bundle", "s per 1k", rows)
    if args.logs:
        counts = [int(s) for s in args.logs.split(",")]
        rows = []
        with tempfile.TemporaryDirectory() as folder:
            for count in counts:
                rows.append((count / 1000, time_files(logs_repo(Path(folder), count), args.repeat)))
        _table("split: file, N log files by a glob: ctxguard bundle", "s per 1k", rows)
    if args.hunk:
        counts = [int(s) for s in args.hunk.split(",")]
        rows = [(count / 1000, time_hunk(count, args.repeat)) for count in counts]
        _table("one Python hunk of N lines edited in place: compress at 50 %", "s per 1k", rows)
    if args.diff_files:
        counts = [int(s) for s in args.diff_files.split(",")]
        rows = [(count / 1000, time_diff(many_files(count), args.repeat)) for count in counts]
        _table("one diff of N changed files: compress at 50 %", "s per 1k", rows)
    if args.rules:
        counts = [int(s) for s in args.rules.split(",")]
        rows = [(count / 1000, time_diff(rules_paragraph(count), args.repeat, "markdown")) for count in counts]
        _table("one markdown paragraph of N MUST rules: compress at 50 %", "s per 1k", rows)
    if args.paragraphs:
        counts = [int(s) for s in args.paragraphs.split(",")]
        rows = [(count / 1000, time_diff(paragraphs(count), args.repeat, "markdown")) for count in counts]
        _table("a markdown document of N paragraphs of sentences: compress at 50 %", "s per 1k", rows)
    if args.sarif:
        counts = [int(s) for s in args.sarif.split(",")]
        rows = [(count / 1000, time_diff(sarif_log(count), args.repeat, "sarif")) for count in counts]
        _table("a SARIF log of N results: compress at 50 %", "s per 1k", rows)
    if args.links:
        counts = [int(s) for s in args.links.split(",")]
        rows = [(count / 1000, time_links(count, args.repeat)) for count in counts]
        _table("N hunks, N/10 failures: links.link", "s per 1k", rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
