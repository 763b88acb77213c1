"""headroom's compressors timed on the dev corpus, against one encode_ordinary in the same process.

    /path/to/venv/bin/python bench/headroom_speed.py --corpus DIR [--repeat 3]

Run with the Python of a virtual environment holding `pip install headroom-ai` (its dependencies
are many; ctxguard's stay out of it): `python bench/speed.py --headroom /path/to/venv/bin/python`
does that and prints the result beside ctxguard's. Per type, the compressor a user of headroom
would call on such text: DiffCompressor (diffs), LogCompressor (logs), SmartCrusher.crush (JSON),
TextCrusher (markdown). They take no token budget (each decides how much to keep), so this
compares time only; it prints one JSON line: {type: [ratios], "big": [[name, tokens, ratio]],
"each": [[type, file name without its suffix, tokens, ratio]]}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _median_time(fn: Callable[[], Any], repeat: int) -> float:  # (as bench/speed.py's: this runs without ctxguard)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import tiktoken
    from headroom.transforms.diff_compressor import DiffCompressor
    from headroom.transforms.log_compressor import LogCompressor
    from headroom.transforms.smart_crusher import SmartCrusher
    from headroom.transforms.text_crusher import TextCrusher

    encoding = tiktoken.get_encoding("o200k_base")
    compressors: dict[str, Callable[[str], Any]] = {
        "diff": DiffCompressor().compress,
        "log": LogCompressor().compress,
        "json": SmartCrusher().crush,
        "markdown": TextCrusher().compress,
    }
    out: dict[str, Any] = {"big": []}
    for path in sorted(p for p in args.corpus.rglob("*") if p.is_file() and p.name != "manifest.json"):
        kind = path.parent.name
        if kind not in compressors:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        raw = len(encoding.encode_ordinary(text))
        floor = _median_time(lambda: encoding.encode_ordinary(text), args.repeat)
        try:
            cost = _median_time(lambda: compressors[kind](text), args.repeat)
        except Exception as exc:  # a compressor that fails on an input is reported, not timed
            out.setdefault("failed", []).append([path.name, f"{type(exc).__name__}: {exc}"[:200]])
            continue
        out.setdefault(kind, []).append(cost / floor)
        out.setdefault("each", []).append([kind, path.stem, raw, cost / floor])
        if raw > 100_000:
            out["big"].append([path.name, raw, cost / floor])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
