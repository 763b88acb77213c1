"""Do streamed artifacts fill a big budget, and keep their task? Logs past the streaming
threshold (ctxguard.read.STREAM_BYTES), cut at shares of their raw tokens.

    python bench/stream_fill.py [--sizes 64,256] [--shares 0.05,0.3] [--types log,diff,json] [--task TEXT]

For each type and size (MB) an artifact is generated (bench/scaling.py's service log, its diff
of many Python files, or its JSON report, seeded), one line in 40 of a log or diff rewritten to
name the task, and written to a temporary file; `ctxguard.api.compress_file_record` streams it
at each share of its raw tokens. Prints the tokens kept, their share of the budget (target: at
least 95 %), how many of the task's lines the cut shows against how many the file has, the CPU
seconds of the one streaming cut (the pass that learns the raw count first is not timed) and the
process's peak RSS.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout

from ctxguard.api import compress_file_record  # noqa: E402
from ctxguard.options import Options  # noqa: E402
from ctxguard.tuning import tune_gc  # noqa: E402
from ctxguard.words import mentions, task_words  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scaling import diff_of, json_of, log_of  # noqa: E402

MB = 1_000_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="64,256")
    parser.add_argument("--shares", default="0.05,0.3")
    parser.add_argument("--types", default="log,diff")
    parser.add_argument("--task", default="checkout 4711")
    args = parser.parse_args()
    tune_gc()  # (as the command line runs)
    words = task_words(args.task)
    heads = ("type", "MB", "share", "raw tokens", "budget", "kept", "fill", "task lines", "cpu s", "peak MB")
    print(" ".join(f"{h:>{w}}" for h, w in zip(heads, (5, 4, 6, 11, 10, 10, 6, 11, 7, 8))))
    with tempfile.TemporaryDirectory() as folder:
        for kind in args.types.split(","):
            for size in (int(s) for s in args.sizes.split(",")):
                _measure(Path(folder), kind, size, args.shares, args.task, words)


def _measure(folder: Path, kind: str, size: int, shares: str, task: str, words: frozenset[str]) -> None:
    rng = random.Random(size)
    path = folder / f"big-{size}.{kind}"
    if kind == "json":  # (a report: its items do not name the task; the fill is what is measured)
        path.write_text(json_of(size * MB, rng))
    else:
        make, line = (log_of, "2024-05-01 10:00:00 INFO checkout 4711 step {k} done\n")
        if kind == "diff":
            make, line = (diff_of, "+    checkout_4711(step={k})\n")
        lines = make(size * MB, rng).splitlines(keepends=True)
        for k in range(0, len(lines), max(1, len(lines) // 40)):  # the task's lines, spread out
            if kind == "log" or lines[k].startswith("+    "):
                lines[k] = line.format(k=k)
        path.write_text("".join(lines))
        del lines
    tasked = sum(1 for text in path.open() if mentions(text, words))
    raw = compress_file_record(path, 64, options=Options(task=task)).raw_tokens  # (one pass, not timed)
    for share in (float(s) for s in shares.split(",")):
        budget = max(64, int(raw * share))
        start = time.process_time()
        record = compress_file_record(path, budget, options=Options(task=task))
        took = time.process_time() - start
        shown = sum(1 for text in record.content.splitlines() if mentions(text, words))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(
            f"{kind:>5} {size:>4} {share:>6} {record.raw_tokens:>11,} {budget:>10,} {record.compacted_tokens:>10,} "
            f"{record.compacted_tokens / budget:>6.1%} {shown:>5}/{tasked:<5} {took:>7.1f} {peak:>8}"
        )


if __name__ == "__main__":
    main()
