"""One sha256 over everything ctxguard outputs for a fixed set of inputs: the proof that a
refactor is behaviour-neutral (the same digest before and after).

    python bench/outputs_digest.py DIR [DIR ...] [--ratios 0.8,0.5,0.2,0.05] [--show]

- every file under each DIR (the needle cases, the dev corpus) compressed at each ratio of its
  raw tokens, through the public API (`ctxguard.compress_file`): the whole record, as JSON;
- the logs and diffs among them streamed (the streaming threshold lowered to 20,000 bytes) at
  300 and 1,500 tokens;
- `ctxguard bundle` (the command, in a fresh process) on a repository built the same way every
  time (fixed dates, so fixed commit ids) holding a change, a log, a plan and a JSON report, in
  the three forms, at three totals, with the offloads it writes.

`--show` prints one digest per part, to find which part changed.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # measure this checkout, not an installed copy

import ctxguard  # noqa: E402

STREAMED = (".log", ".diff", ".patch", ".out")


def _files(folders: list[Path]) -> list[Path]:
    found = []
    for folder in folders:
        found += [p for p in sorted(folder.rglob("*")) if p.is_file() and not p.name.endswith(".needles.json")]
    return found


def compressed(files: list[Path], ratios: list[float]) -> bytes:
    out = []
    for path in files:
        raw = ctxguard.count_tokens(path.read_text(encoding="utf-8", errors="replace"))
        for ratio in ratios:
            budget = max(64, int(raw * ratio))
            record = ctxguard.compress_file(path, budget)
            record["artifact_name"] = path.name
            out.append(json.dumps(record, sort_keys=True))
    return "\n".join(out).encode()


def _threshold_module() -> object:
    """The module whose STREAM_BYTES the streaming path reads (it moved between versions)."""
    for name in ("ctxguard.read", "ctxguard.engine.stream", "ctxguard.stream"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "STREAM_BYTES"):
            return module
    raise SystemExit("no streaming threshold")


def streamed(files: list[Path]) -> bytes:
    module = _threshold_module()
    before = module.STREAM_BYTES  # type: ignore[attr-defined]
    module.STREAM_BYTES = 20_000  # type: ignore[attr-defined]
    try:
        out = []
        for path in files:
            if path.suffix not in STREAMED or path.stat().st_size <= 20_000:
                continue
            for budget in (300, 1500):
                record = ctxguard.compress_file(path, budget)
                record["artifact_name"] = path.name
                out.append(json.dumps(record, sort_keys=True))
        return "\n".join(out).encode()
    finally:
        module.STREAM_BYTES = before  # type: ignore[attr-defined]


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent)}
    env |= {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z"}
    env |= {"GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}
    env |= {"GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


def bundled() -> bytes:
    out = []
    with tempfile.TemporaryDirectory() as folder:
        repo = Path(folder) / "repo"
        repo.mkdir()
        _git(repo, "init", "-q", "-b", "main")
        artifacts = ROOT / "examples" / "artifacts"
        for name in ("failing-tests.log", "plan.md", "judge-result.json"):
            shutil.copy(artifacts / name, repo / name)
        source = ROOT / "tests" / "samples" / "enclosing-def.diff"
        (repo / "app.py").write_text("".join(f"def handler_{i}(request):\n    return {i}\n\n" for i in range(60)))
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", "base")
        (repo / "app.py").write_text(
            "".join(f"def handler_{i}(request):\n    return {i if i % 7 else -i}\n\n" for i in range(60))
            + source.read_text()[:2000].replace("\t", "    ").replace("\n", "\n# ")
        )
        _git(repo, "add", "app.py")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        for total in (900, 2500, 8000):
            (repo / ".ctxguard.yaml").write_text(
                f"version: 1\ntotal_budget: {total}\nfail_on: never\nartifacts:\n"
                "  - {name: diff, diff: staged, budget: 3000}\n"
                "  - {name: logs, paths: ['*.log'], budget: 400}\n"
                "  - {name: plan, paths: ['plan.md'], budget: 200, priority: high}\n"
                "  - {name: judge, paths: ['*.json'], budget: 150}\n"
            )
            for fmt in ("json", "markdown", "prompt"):
                target = Path(folder) / f"out-{total}" / f"bundle.{fmt}"
                done = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "ctxguard",
                        "bundle",
                        "--repo",
                        str(repo),
                        "--format",
                        fmt,
                        "--output",
                        str(target),
                    ],
                    capture_output=True,
                    text=True,
                    env=env,
                )
                out.append(f"{total} {fmt} exit {done.returncode}\n{done.stderr.replace(folder, '<tmp>')}")
                if target.exists():
                    out.append(target.read_text().replace(folder, "<tmp>"))
                for offload in sorted((target.parent / "offload").glob("*")):
                    out.append(f"{offload.name}\n{offload.read_text()}")
    return "\n".join(out).encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--ratios", default="0.8,0.5,0.2,0.05")
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args(argv)
    files = _files(args.folders)
    parts = {
        "compressed": compressed(files, [float(r) for r in args.ratios.split(",")]),
        "streamed": streamed(files),
        "bundled": bundled(),
    }
    whole = hashlib.sha256()
    for name, data in parts.items():
        whole.update(data)
        if args.show:
            print(f"{name:<11} {hashlib.sha256(data).hexdigest()}  ({len(data):,} bytes)")
    print(f"{len(files)} files; sha256 of all outputs: {whole.hexdigest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
