"""Peak memory and time of `ctxguard compress` on big generated logs and diffs.

    python bench/memory.py [--sizes 10,100] [--budget 8000] [--types log,diff]
    python bench/memory.py --generated --sizes 8,32 --ratio 0.5 [--types diff,log,json,markdown]

For each size (MB) and type, writes a generated artifact to a temporary folder, runs
`python -m ctxguard compress FILE --budget N` in a fresh process, and prints wall time, peak
RSS (ru_maxrss of the child), peak / input size, and seconds per MB (linear time means a
constant s/MB). Baseline in the same run: the peak and time of a process that only reads the
file and encodes it with tiktoken (`encode_ordinary`), the floor for any exact counter that
holds the text and its tokens. Logs, diffs and JSON over 32 MB are streamed
(ctxguard/engine/stream.py): their peak grows with the budget, not the file.

--generated: the artifacts of bench/scaling.py instead (any of diff, log, json, markdown; sizes
in MB of 2**20 bytes), and with --ratio the budget is that share of the raw tokens: issue 37's
memory target (peak at most 1.5x the floor's at 32 MB, at 50 %) is measured so. The last
column is the peak over the floor's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLOOR = (
    "import sys, tiktoken; t = open(sys.argv[1], encoding='utf-8').read(); "
    "print(len(tiktoken.get_encoding('o200k_base').encode_ordinary(t)))"
)


def _log(path: Path, megabytes: int) -> None:
    with path.open("w") as out:
        i, written = 0, 0
        while written < megabytes * 1_000_000:
            i += 1
            level = "ERROR" if i % 5000 == 0 else "WARN" if i % 700 == 0 else "INFO"
            stamp = f"2024-05-01 10:{i // 60 % 60:02d}:{i % 60:02d}"
            line = f"{stamp} {level} worker-{i % 7} request id={i * 7919 % 10**7} took {i % 90}ms\n"
            written += out.write(line)


def _diff(path: Path, megabytes: int) -> None:
    with path.open("w") as out:
        i, written = 0, 0
        while written < megabytes * 1_000_000:
            i += 1
            body = "".join(f"+    value_{j} = compute(value_{j - 1}, {i})\n" for j in range(1, 30))
            written += out.write(
                f"diff --git a/pkg/m{i}.py b/pkg/m{i}.py\nindex 1111111..2222222 100644\n"
                f"--- a/pkg/m{i}.py\n+++ b/pkg/m{i}.py\n@@ -1 +1,31 @@\n import os\n"
                f"+def handler_{i}(request):\n{body}+    raise ValueError('bad {i}')\n"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10,100")
    parser.add_argument("--budget", type=int, default=8000)
    parser.add_argument("--types", default="log,diff", help="log and/or diff (with --generated: json, markdown too)")
    parser.add_argument("--generated", action="store_true", help="bench/scaling.py's artifacts, of any type")
    parser.add_argument("--ratio", type=float, help="with --generated: the budget as this share of raw tokens")
    args = parser.parse_args()
    if args.generated:
        generated(args.types.split(","), [float(s) for s in args.sizes.split(",")], args.ratio, args.budget)
        return
    print(
        f"{'artifact':<14} {'MB':>5} {'ctxguard s':>10} {'s/MB':>6} {'peak MB':>8} {'peak/in':>8}"
        f" {'floor s':>8} {'floor peak MB':>13}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for kind, make, suffix in (("log", _log, ".log"), ("diff", _diff, ".diff")):
            if kind not in args.types.split(","):
                continue
            for size in (int(s) for s in args.sizes.split(",")):
                path = Path(tmp) / f"big{suffix}"
                make(path, size)
                mb = path.stat().st_size / 1e6
                # ru_maxrss of children is a running maximum: measure each in its own wrapper.
                wrap = [
                    sys.executable,
                    "-c",
                    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
                    "capture_output=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
                ]
                ours = subprocess.run(
                    wrap + [sys.executable, "-m", "ctxguard", "compress", str(path), "--budget", str(args.budget)],
                    capture_output=True,
                    text=True,
                    env=os.environ,
                )
                floor_time, floor_peak = float("nan"), float("nan")
                if size <= 200:  # above that the floor itself needs tens of GB
                    start = time.perf_counter()
                    floor = subprocess.run(
                        wrap + [sys.executable, "-c", FLOOR, str(path)], capture_output=True, text=True, env=os.environ
                    )
                    floor_time = time.perf_counter() - start
                    floor_peak = int(floor.stdout.split()[-1]) / 1024
                start = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "ctxguard", "compress", str(path), "--budget", str(args.budget)],
                    capture_output=True,
                    env=os.environ,
                )
                our_time = time.perf_counter() - start
                ours_peak = int(ours.stdout.split()[-1]) / 1024
                print(
                    f"{kind:<14} {mb:>5.0f} {our_time:>10.1f} {our_time / mb:>6.2f} {ours_peak:>8.0f} "
                    f"{ours_peak / mb:>7.1f}x {floor_time:>8.1f} {floor_peak:>13.0f}"
                )
                path.unlink()


def _peak(command: list[str]) -> tuple[float, float]:
    """The seconds and the peak RSS in MB of a command run in a fresh process."""
    wrap = [
        sys.executable,
        "-c",
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
        "capture_output=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
    ]
    start = time.perf_counter()
    done = subprocess.run(wrap + command, capture_output=True, text=True, env=os.environ, check=True)
    return time.perf_counter() - start, int(done.stdout.split()[-1]) / 1024


def generated(types: list[str], sizes: list[float], ratio: float | None, budget: int) -> None:
    """Peak RSS and time of `ctxguard compress` on bench/scaling.py's artifacts, and the floor's."""
    import random

    import tiktoken

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import scaling  # (bench/scaling.py, beside this file)

    suffix = {"diff": ".diff", "log": ".log", "json": ".json", "markdown": ".md"}
    heads = ("ctxguard s", "peak MB", "floor s", "floor MB", "peak/floor")
    print(f"{'type':<9} {'MB':>5} {'budget':>9} " + " ".join(f"{head:>10}" for head in heads))
    with tempfile.TemporaryDirectory() as tmp:
        for kind in types:
            for size in sizes:
                text = getattr(scaling, f"{kind}_of")(int(size * scaling.MB), random.Random(0))
                path = Path(tmp) / f"big{suffix[kind]}"
                path.write_text(text, encoding="utf-8")
                raw = len(tiktoken.get_encoding("o200k_base").encode_ordinary(text)) if ratio else 0
                del text
                want = max(64, int(raw * ratio)) if ratio else budget
                ours_s, ours = _peak([sys.executable, "-m", "ctxguard", "compress", str(path), "--budget", str(want)])
                floor_s, floor = _peak([sys.executable, "-c", FLOOR, str(path)])
                print(
                    f"{kind:<9} {size:>5g} {want:>9,} {ours_s:>10.1f} {ours:>10.0f} {floor_s:>10.1f} {floor:>10.0f}"
                    f" {ours / floor:>9.2f}x"
                )
                path.unlink()


if __name__ == "__main__":
    main()
