"""Compress throughput against the floor of one encode_ordinary of the raw text.

    python bench/speed.py --corpus DIR [--repeat 5]

DIR is the dev corpus built by ../shared/corpus/build_dev_corpus.py. For every artifact and
budgets of 80 %, 50 % and 20 % of its raw tokens, times `compress` and one `encode_ordinary`
of the raw text in the same run (median of --repeat), and prints per type the median ratio,
and separately for artifacts over 100k tokens (target: at most 2x).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import tiktoken

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout, not an installed copy

from ctxguard.read import read_artifact  # noqa: E402
from ctxguard.tiers import MIN_BUDGET, compress  # noqa: E402
from ctxguard.tokens import get_tokenizer  # noqa: E402


def _forget() -> None:
    """Empty ctxguard's per-line memos, so repeated runs are not faster than a first one.
    (The loaded encodings and their token tables stay: a process loads them once. ctxguard
    keeps no cache of texts: each run reads its artifact once.)"""
    import ctxguard

    keep = {"_load", "_token_lengths"}
    for module in [m for name, m in sys.modules.items() if name.startswith(ctxguard.__name__)]:
        for name, value in list(vars(module).items()):
            if hasattr(value, "cache_clear") and name not in keep:
                value.cache_clear()


def _median_time(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    encoding = tiktoken.get_encoding("o200k_base")
    tokenizer = get_tokenizer("o200k_base")
    rows: dict[str, list[float]] = {}
    big: list[float] = []
    big_rows: list[str] = []
    for path in sorted(p for p in args.corpus.rglob("*") if p.is_file() and p.name != "manifest.json"):
        kind = path.parent.name
        text = read_artifact(path).text
        if not text or kind not in ("diff", "log", "json", "markdown"):
            continue
        raw = len(encoding.encode_ordinary(text))
        floor = _median_time(lambda: encoding.encode_ordinary(text), args.repeat)
        for share in (0.8, 0.5, 0.2):
            budget = max(MIN_BUDGET, int(raw * share))
            cost = _median_time(
                lambda: (_forget(), compress(text, budget, tokenizer=tokenizer, name=path.name, artifact_type=kind)),
                args.repeat,
            )
            rows.setdefault(f"{kind} @{int(share * 100)}%", []).append(cost / floor)
            if raw > 100_000:
                big.append(cost / floor)
                big_rows.append(f"  {path.name} ({raw:,} tokens) @{int(share * 100)}%: {cost / floor:.2f}x")
    print(f"{'type @budget':<16} {'n':>3} {'median compress/encode':>24} {'max':>8}")
    for key in sorted(rows):
        ratios = rows[key]
        print(f"{key:<16} {len(ratios):>3} {statistics.median(ratios):>23.2f}x {max(ratios):>7.2f}x")
    if big:
        print("\n".join(big_rows))
        print(f"artifacts over 100k tokens: n={len(big)} median {statistics.median(big):.2f}x max {max(big):.2f}x (target <= 2x)")
    print(json.dumps({"repeat": args.repeat, "encoding": "o200k_base"}))


if __name__ == "__main__":
    main()
