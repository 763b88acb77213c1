"""Retention and budget compliance of ctxguard against two baselines, on real artifacts.

    python bench/retention.py --corpus DIR [--ratios 1,0.8,0.5,0.2]

DIR is the dev corpus built by ../shared/corpus/build_dev_corpus.py (or any folder of real
artifacts). For each artifact and budget (a ratio of its raw tokens) three methods run in the
same process:

    ctxguard   the three tiers, salient tier 3 (the default)
    head       a token-exact head cut at a paragraph boundary with the marker (tier3: head)
    chars4     the literal cut: budget x 4 characters, back to a blank line, plus the marker

Compliance counts content tokens with tiktoken directly (not ctxguard's tokenizer); retention
is probes kept / probes (ctxguard.probes). Prints a table per type and budget, then the
ratios the targets are stated in.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from ctxguard.evaluate import ctxguard_method, evaluate, load, table
from ctxguard.tiers import marker
from ctxguard.tokens import get_tokenizer


def chars4(text: str, kind: str, name: str, budget: int) -> str:
    """What a 4-characters-per-token estimate does: cut at budget*4 chars, at a blank line."""
    limit = budget * 4
    if len(text) <= limit:
        return text
    head = text[:limit]
    cut = head.rfind("\n\n")
    shown = head[: cut + 2] if cut > 0 else head
    return shown + marker(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True, nargs="+")
    parser.add_argument("--ratios", default="1,0.8,0.5,0.2")
    args = parser.parse_args()
    ratios = [float(r) for r in args.ratios.split(",")]
    tokenizer = get_tokenizer("o200k_base")
    if not tokenizer.exact:
        sys.exit("no tiktoken encoding available: set TIKTOKEN_CACHE_DIR")
    artifacts, skipped = load(args.corpus)
    artifacts = [a for a in artifacts if not a.name.endswith(("LICENSE", "manifest.json"))]
    start = time.perf_counter()
    rows = evaluate(artifacts, ratios, {
        "ctxguard": ctxguard_method(tokenizer),
        "head": ctxguard_method(tokenizer, tier3="head"),
        "chars4": chars4,
    }, tokenizer)
    print(f"{len(artifacts)} artifacts, ratios {ratios}, {time.perf_counter() - start:.1f}s")
    print(table(rows))
    print("\nretention ratio ctxguard / head (mean over artifacts):")
    means: dict[tuple[str, float, str], list[float]] = defaultdict(list)
    for row in rows:
        means[(row.kind, row.ratio, row.method)].append(row.retention)
    for kind in sorted({r.kind for r in rows}):
        parts = []
        for ratio in ratios:
            ours = statistics.mean(means[(kind, ratio, "ctxguard")])
            head = statistics.mean(means[(kind, ratio, "head")])
            parts.append(f"{ratio:.0%}: {ours:.3f}/{head:.3f} = {ours / head if head else float('inf'):.2f}x")
        print(f"  {kind:<9} " + "   ".join(parts))


if __name__ == "__main__":
    main()
