"""Retention and budget compliance of ctxguard against two baselines, on real artifacts.

    python bench/retention.py --corpus DIR [--ratios 1,0.8,0.5,0.2]

DIR is the dev corpus built by ../shared/corpus/build_dev_corpus.py (or any folder of real
artifacts). For each artifact and budget (a ratio of its raw tokens) three methods run in the
same process:

    ctxguard   the three tiers, salient tier 3 (the default)
    head       a token-exact head cut at a paragraph boundary with the marker (tier3: head)
    chars4     the literal cut: budget x 4 characters, back to a blank line, plus the marker

Compliance counts content tokens with tiktoken directly (not ctxguard's tokenizer); retention
is probes kept / probes (ctxguard.probes). Probe retention saturates, so two more figures stand
beside it:

    recall       the share of the raw text's distinct 5-word shingles (words are \\w+ runs)
                 still in the content; a head cut at x of the tokens scores about x
    utilization  content tokens / budget, where the raw text is over budget (median and min)

Prints a table per type and budget, then the retention ratios against the head cut, then
probe retention, recall and utilization per type and ratio for every method.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # measure this checkout, not an installed copy

from ctxguard.engine.tiers import marker  # noqa: E402
from ctxguard.evaluate import Method, Row, ctxguard_method, evaluate, load, table  # noqa: E402
from ctxguard.tokens.load import get_tokenizer  # noqa: E402

_WORD = re.compile(r"\w+")


def shingles(text: str) -> set[int]:
    """The distinct 5-word shingles of a text (hashed)."""
    words = _WORD.findall(text)
    return {hash(" ".join(words[i : i + 5])) for i in range(len(words) - 4)}


def orphans(content: str) -> tuple[int, int]:
    """Shown +/- lines not under their own file's header (its `diff --git` line or the `+++ b/path`
    line naming it) and a hunk header, of all shown +/- lines."""
    lost = shown = 0
    header = hunk = False
    for line in content.splitlines():
        if line.startswith(("diff --git ", "+++ ")):
            header, hunk = True, False
        elif line.startswith("@@"):
            hunk = header
        elif line[:1] in ("+", "-") and not line.startswith(("+++ ", "--- ")):
            shown += 1
            lost += not (header and hunk)
    return lost, shown


class Recall:
    """Wraps eval methods so each content's recall of its raw text, whether it was cut (tier 3)
    and, for diffs, its orphan lines are kept beside the rows."""

    def __init__(self) -> None:
        self.raw: dict[str, set[int]] = {}
        self.found: dict[tuple[str, str, int], float] = {}
        self.cut: dict[tuple[str, str, int], bool] = {}
        self.orphans: dict[tuple[str, str, int], tuple[int, int]] = {}

    def wrap(self, method: str, fn: Method) -> Method:
        def run(text: str, kind: str, name: str, budget: int) -> str:
            content = fn(text, kind, name, budget)
            if name not in self.raw:
                self.raw[name] = shingles(text)
            raw = self.raw[name]
            key = (name, method, budget)
            self.found[key] = len(raw & shingles(content)) / len(raw) if raw else 1.0
            self.cut[key] = "[TRUNCATED:" in content
            if kind == "diff":
                self.orphans[key] = orphans(content)
            return content

        return run


def monotonicity(rows: list[Row], recall: Recall) -> dict[str, tuple[int, int]]:
    """Per type: (violations, pairs): a bigger ratio with lower probe retention, or recall lower
    by more than 0.02, for ctxguard, between neighbouring ratios of one artifact."""
    by_artifact: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        if row.method == "ctxguard":
            by_artifact[row.name].append(row)
    out: dict[str, tuple[int, int]] = {}
    for group in by_artifact.values():
        group.sort(key=lambda r: r.ratio)
        bad, pairs = out.get(group[0].kind, (0, 0))
        for small, big in zip(group, group[1:]):
            pairs += 1
            drop = (
                recall.found[(small.name, "ctxguard", small.budget)] - recall.found[(big.name, "ctxguard", big.budget)]
            )
            bad += big.retention < small.retention or drop > 0.02
        out[group[0].kind] = (bad, pairs)
    return out


def figures(rows: list[Row], recall: Recall, ratios: list[float]) -> str:
    """Probe retention, recall and utilization (median, min) per type, ratio and method."""
    groups: dict[tuple[str, float, str], list[Row]] = defaultdict(list)
    for row in rows:
        groups[(row.kind, row.ratio, row.method)].append(row)
    header = (
        f"{'type':<9} {'ratio':>5}  {'method':<9} {'retention':>9} {'recall':>7} "
        f"{'util med':>8} {'util min':>8} {'cut %':>6} {'orphan %':>8}"
    )
    lines = [header, "-" * len(header)]
    for kind in sorted({r.kind for r in rows}):
        for ratio in sorted(ratios, reverse=True):
            for method in ("ctxguard", "head", "chars4"):
                group = groups.get((kind, ratio, method), [])
                if not group:
                    continue
                over = [r.tokens / r.budget for r in group if r.raw > r.budget]
                util = f"{statistics.median(over):>8.3f} {min(over):>8.3f}" if over else f"{'-':>8} {'-':>8}"
                keys = [(r.name, method, r.budget) for r in group]
                cut = 100 * sum(recall.cut[k] for k in keys) / len(keys)
                lost = [recall.orphans[k] for k in keys if k in recall.orphans]
                shown = sum(n for _, n in lost)
                orphan = f"{100 * sum(o for o, _ in lost) / shown:>8.1f}" if shown else f"{'-':>8}"
                lines.append(
                    f"{kind:<9} {ratio:>5.2f}  {method:<9} "
                    f"{statistics.mean(r.retention for r in group):>9.3f} "
                    f"{statistics.mean(recall.found[k] for k in keys):>7.3f} {util} {cut:>6.0f} {orphan}"
                )
    return "\n".join(lines)


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
    recall = Recall()
    rows = evaluate(
        artifacts,
        ratios,
        {
            "ctxguard": recall.wrap("ctxguard", ctxguard_method(tokenizer)),
            "head": recall.wrap("head", ctxguard_method(tokenizer, tier3="head")),
            "chars4": recall.wrap("chars4", chars4),
        },
        tokenizer,
    )
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
    print("\nprobe retention, recall and utilization (content / budget where raw > budget), share cut")
    print("(tier 3, truncated) and, for diffs, shown +/- lines without their file and hunk header:")
    print(figures(rows, recall, ratios))
    print("\nmonotonicity (ctxguard; a bigger ratio with lower retention, or recall lower by > 0.02):")
    for kind, (bad, pairs) in sorted(monotonicity(rows, recall).items()):
        print(f"  {kind:<9} {bad} violations in {pairs} pairs")


if __name__ == "__main__":
    main()
