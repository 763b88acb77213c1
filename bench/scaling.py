"""How compress time grows with input size: generated artifacts of 1, 2, 4 and 8 MB.

    python bench/scaling.py [--sizes 1,2,4,8] [--ratio 0.2] [--repeat 3] [--types diff,log,json,markdown]

For each type and size, times `compress` at `ratio` of the raw tokens and one
`encode_ordinary` of the same text (median of --repeat, caches emptied before each run), and
prints seconds per MB and their ratio. Target: time per MB at the largest size within 1.5x of
that at the smallest, for every type (linear growth), and compress within 3x one encode at 8 MB.
The garbage collector is tuned as the command line tunes it (`ctxguard.tuning.tune_gc`);
--library-gc keeps CPython's defaults, as a program importing ctxguard has them.
The texts are deterministic (seeded) and look like real artifacts: many files of Python code
in a diff, a service log with errors and tracebacks, a JSON array of records with nested
objects and long strings, a markdown document with sections, tables, code and prose.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

import tiktoken

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout, not an installed copy

from ctxguard.engine.tiers import compress  # noqa: E402
from ctxguard.tokens.load import get_tokenizer  # noqa: E402

MB = 1 << 20
WORDS = (
    "request",
    "invoice",
    "retry",
    "payment",
    "gateway",
    "timeout",
    "ledger",
    "account",
    "user",
    "session",
    "cache",
    "worker",
    "batch",
    "queue",
    "event",
    "record",
    "amount",
    "refund",
)


def diff_of(size: int, rng: random.Random) -> str:
    out: list[str] = []
    n = written = 0
    while written < size:
        body = []
        for k in range(rng.randint(5, 40)):
            body.append(f"+def {rng.choice(WORDS)}_{n}_{k}(self, {rng.choice(WORDS)}):\n")
            for _ in range(rng.randint(3, 12)):
                body.append(
                    f"+    {rng.choice(WORDS)} = self.{rng.choice(WORDS)}({rng.choice(WORDS)}, {rng.randint(0, 999)})\n"
                )
            if rng.random() < 0.2:
                body.append(f"+    raise ValueError('bad {rng.choice(WORDS)} {n}')\n")
        out.append(
            f"diff --git a/pkg/mod_{n}.py b/pkg/mod_{n}.py\nnew file mode 100644\nindex 0000000..{n:07x}\n"
            f"--- /dev/null\n+++ b/pkg/mod_{n}.py\n@@ -0,0 +1,{len(body)} @@\n" + "".join(body)
        )
        written += len(out[-1])
        n += 1
    return "".join(out)


def log_of(size: int, rng: random.Random) -> str:
    out: list[str] = []
    total = i = 0
    while total < size:
        i += 1
        second = f"2024-05-01 10:{(i // 60) % 60:02d}:{i % 60:02d},{i % 1000:03d}"
        r = rng.random()
        if r < 0.01:
            line = (
                f"{second} ERROR {rng.choice(WORDS)} failed for id={rng.randint(0, 10**6)}\n"
                "Traceback (most recent call last):\n"
                f'  File "/app/{rng.choice(WORDS)}.py", line {rng.randint(1, 500)}, in run\n'
                f"    self.{rng.choice(WORDS)}()\n"
                f"{rng.choice(['ValueError', 'KeyError', 'TimeoutError'])}: {rng.choice(WORDS)} {rng.randint(0, 99)}\n"
            )
        elif r < 0.05:
            line = f"{second} WARNING slow {rng.choice(WORDS)}: {rng.random() * 9:.2f}s on shard {rng.randint(0, 64)}\n"
        else:
            line = f"{second} INFO {rng.choice(WORDS)} {rng.choice(WORDS)} id={rng.randint(0, 10**6)} ok\n"
        out.append(line)
        total += len(line)
    return "".join(out)


def json_of(size: int, rng: random.Random) -> str:
    items = []
    total = 0
    while total < size:
        item = {
            "id": len(items),
            "name": f"{rng.choice(WORDS)}-{rng.randint(0, 10**6)}",
            "tags": [rng.choice(WORDS) for _ in range(rng.randint(0, 15))],
            "owner": {"user": rng.choice(WORDS), "team": rng.choice(WORDS), "level": rng.randint(1, 9)},
            "notes": " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 80))),
        }
        items.append(item)
        total += len(json.dumps(item)) + 4
    return json.dumps({"results": items, "count": len(items)}, indent=2)


def markdown_of(size: int, rng: random.Random) -> str:
    out: list[str] = ["# Generated plan\n\n"]
    n, written = 0, len(out[0])
    while written < size:
        start = len(out)
        n += 1
        out.append(f"## Section {n}: {rng.choice(WORDS)}\n\n")
        for _ in range(rng.randint(1, 4)):
            sentences = [
                " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18))).capitalize() + "."
                for _ in range(rng.randint(2, 6))
            ]
            out.append(" ".join(sentences) + "\n\n")
        if rng.random() < 0.3:
            out.append(
                "| field | value |\n|---|---|\n"
                + "".join(f"| {rng.choice(WORDS)} | {rng.randint(0, 999)} |\n" for _ in range(rng.randint(2, 8)))
                + "\n"
            )
        if rng.random() < 0.3:
            out.append(
                "```python\n"
                + "".join(f"{rng.choice(WORDS)} = {rng.randint(0, 99)}\n" for _ in range(rng.randint(2, 10)))
                + "```\n\n"
            )
        if rng.random() < 0.2:
            out.append(f"- [ ] {rng.choice(WORDS)} the {rng.choice(WORDS)}\n\n")
        written += sum(map(len, out[start:]))
    return "".join(out)


MAKERS = {"diff": diff_of, "log": log_of, "json": json_of, "markdown": markdown_of}


def _forget() -> None:
    """Nothing to empty: ctxguard keeps no cache of texts (each run reads its artifact once);
    its per-line memos of definitions and error lines stay, as in a long-lived process."""


def _median_time(fn: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        _forget()
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,2,4,8")
    parser.add_argument("--ratio", type=float, default=0.2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--types", default="diff,log,json,markdown")
    parser.add_argument(
        "--library-gc",
        action="store_true",
        help="keep CPython's default collector thresholds (the library's); by default the command line's (tune_gc)",
    )
    args = parser.parse_args()
    if not args.library_gc:
        from ctxguard.tuning import tune_gc

        tune_gc()
    tokenizer = get_tokenizer("o200k_base")
    if not tokenizer.exact:
        sys.exit("no tiktoken encoding available: set TIKTOKEN_CACHE_DIR")
    encoding = tiktoken.get_encoding("o200k_base")
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'type':<9} {'MB':>3} {'tokens':>9} {'encode s':>9} {'compress s':>10} {'s/MB':>7} {'x encode':>8}")
    for kind in args.types.split(","):
        per_mb = []
        for size in sizes:
            text = MAKERS[kind](size * MB, random.Random(size))
            tokens = len(encoding.encode_ordinary(text))
            budget = max(64, int(tokens * args.ratio))
            encode = _median_time(lambda: encoding.encode_ordinary(text), args.repeat)
            took = _median_time(lambda: compress(text, budget, tokenizer=tokenizer, artifact_type=kind), args.repeat)
            per_mb.append(took / (len(text) / MB))
            print(
                f"{kind:<9} {size:>3} {tokens:>9} {encode:>9.2f} {took:>10.2f} {per_mb[-1]:>7.2f} {took / encode:>8.1f}"
            )
        print(f"{kind:<9} time per MB at {sizes[-1]} MB / at {sizes[0]} MB: {per_mb[-1] / per_mb[0]:.2f}x\n")


if __name__ == "__main__":
    main()
