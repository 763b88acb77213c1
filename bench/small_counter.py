"""The Python counter of small texts (ctxguard.tokens.small) against tiktoken: the same ids on
every file given, and what each costs.

    python bench/small_counter.py DIR [DIR ...] [--sizes 1,8,32,128,256]

Equality: every file under each DIR (the dev corpus, the needle cases), decoded as UTF-8 with
replacement, encoded by both paths under o200k_base and cl100k_base, whole (the Python path
without its LIMIT), compared id for id. Cost: texts of each size in KB cut from those files,
the Python path timed from a fresh state (no piece known) against tiktoken's encode_ordinary,
and the one-time costs beside them: building tiktoken's encoding from the cached ranks (what
the Python path saves a small run) and making the Python counter.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout

from ctxguard.tokens import ranks_cache, small  # noqa: E402
from ctxguard.tokens.load import tiktoken_encoding  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--sizes", default="1,8,32,128,256")
    args = parser.parse_args()
    files = sorted(p for folder in args.folders for p in folder.rglob("*") if p.is_file())
    texts = [p.read_bytes().decode("utf-8", "replace") for p in files]
    for name in ("o200k_base", "cl100k_base"):
        real = tiktoken_encoding(name)
        ours = small.SmallFirst(real._mergeable_ranks, real._pat_str, lambda: real)
        same = checked = 0
        chars = 0
        for text in texts:
            found = ours._small(text)
            if found is None:
                continue  # (a piece over LONGEST bytes: the real encoding answers it)
            checked += 1
            chars += len(text)
            same += found == real.encode_ordinary(text)
        print(
            f"{name}: {same} of {checked} files identical ({chars:,} characters; "
            f"{len(texts) - checked} with a long piece)"
        )
    real = tiktoken_encoding("o200k_base")
    spec = ranks_cache._spec("o200k_base", real._mergeable_ranks)
    assert spec is not None
    import tiktoken

    builds = []
    for _ in range(3):
        start = time.perf_counter()
        tiktoken.Encoding(**spec)
        builds.append(time.perf_counter() - start)
    makes = []
    for _ in range(3):
        start = time.perf_counter()
        small.SmallFirst(spec["mergeable_ranks"], spec["pat_str"], lambda: real)
        makes.append(time.perf_counter() - start)
    print(
        f"building tiktoken's o200k_base from the ranks: {1000 * min(builds):.0f} ms; "
        f"the Python counter: {1000 * min(makes):.1f} ms"
    )
    joined = "\n".join(texts)
    print(f"{'KB':>5} {'python ms':>10} {'tiktoken ms':>12}")
    for size in (int(s) for s in args.sizes.split(",")):
        ours_ms, real_ms = [], []
        for start_at in range(0, min(len(joined), 20 * size * 1024), size * 1024):
            text = joined[start_at : start_at + size * 1024]
            fresh = small.SmallFirst(spec["mergeable_ranks"], spec["pat_str"], lambda: real)
            t0 = time.perf_counter()
            fresh._small(text)
            t1 = time.perf_counter()
            real.encode_ordinary(text)
            t2 = time.perf_counter()
            ours_ms.append(1000 * (t1 - t0))
            real_ms.append(1000 * (t2 - t1))
        print(f"{size:>5} {statistics.median(ours_ms):>10.1f} {statistics.median(real_ms):>12.2f}")


if __name__ == "__main__":
    main()
