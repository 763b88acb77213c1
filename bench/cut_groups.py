"""Where a cut falls: of a diff's hunks (of markdown's paragraphs), how many a tier-3 cut shows
whole, leaves out whole or splits, and how many of the plan's units each of those holds. What
coarse units would save: a group shown or left out whole could be one unit; a group the cut
splits is made of its lines' units anyway.

    python bench/cut_groups.py --corpus DEVCORPUS [--types diff,markdown] [--size 8] [--ratios 0.5,0.2,0.05,0.01]

The type's dev-corpus artifacts are joined to --size MB as bench/speed.py joins them. A diff's
group is a hunk's body (from its `@@` line to the next hunk or file header); markdown's, a run of
non-blank lines (a paragraph, a list, a table).
"""

from __future__ import annotations

import argparse
import collections
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import speed  # noqa: E402  (bench/speed.py, beside this file: the corpus joined as it joins it)

from ctxguard.engine import packer  # noqa: E402
from ctxguard.engine.tiers import marker  # noqa: E402
from ctxguard.kinds.registry import KINDS  # noqa: E402
from ctxguard.tokens.load import get_tokenizer  # noqa: E402


def groups(kind: str, texts: Sequence[str]) -> list[list[int]]:
    """The plan's units by group (see the module's docstring), each a list of unit indexes."""
    found: list[list[int]] = []
    current: list[int] = []
    for i, text in enumerate(texts):
        if kind == "diff":
            starts = text.startswith(("@@", "diff --git"))
            member = not starts and text[:1] in (" ", "+", "-", "\\", "\n")
        else:
            member = bool(text.strip())
            starts = not member
        if starts and current:
            found.append(current)
            current = []
        if member:
            current.append(i)
    if current:
        found.append(current)
    return found


def where_cuts_fall(kind: str, text: str, ratios: Sequence[float]) -> list[tuple[float, dict[str, list[int]]]]:
    """Per ratio of the raw tokens: per "whole", "out" and "split", [groups, their units]."""
    tokenizer = get_tokenizer("o200k_base")
    encoded = tokenizer.encode(text)
    reader = KINDS[kind]
    plan = reader.plan(reader.read(text, f"joined.{'md' if kind == 'markdown' else kind}"), encoded, tokenizer)
    members = groups(kind, plan.texts)
    chosen: list[Sequence[bool]] = []
    render = packer.render

    def remembered(p, kept, *args, **kwargs):  # type: ignore[no-untyped-def]
        chosen.append(list(kept))  # (the last one rendered is the cut)
        return render(p, kept, *args, **kwargs)

    packer.render = remembered  # type: ignore[assignment]
    out = []
    try:
        for ratio in ratios:
            packer.pack(plan, int(encoded.count * ratio), encoded.recount, marker)
            kept = chosen[-1]
            tally: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
            for group in members:
                shown = sum(kept[i] for i in group)
                where = "whole" if shown == len(group) else "out" if not shown else "split"
                tally[where][0] += 1
                tally[where][1] += len(group)
            out.append((ratio, dict(tally)))
    finally:
        packer.render = render  # type: ignore[assignment]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--types", default="diff,markdown")
    parser.add_argument("--size", type=float, default=8)
    parser.add_argument("--ratios", default="0.5,0.2,0.05,0.01")
    args = parser.parse_args()
    kinds = args.types.split(",")
    ratios = [float(r) for r in args.ratios.split(",")]
    print("type  size  ratio   groups whole/out/split   their units whole/out/split   units in split groups")
    for kind, name, text in speed._joined(args.corpus, [args.size]):
        if kind not in kinds:
            continue
        for ratio, tally in where_cuts_fall(kind, text, ratios):
            counts = [tally.get(where, [0, 0]) for where in ("whole", "out", "split")]
            units = sum(n for _, n in counts)
            print(
                f"{kind:8} {name:6} {ratio:5}   {'/'.join(str(g) for g, _ in counts):>22}"
                f"   {'/'.join(str(n) for _, n in counts):>27}   {100 * counts[2][1] / max(1, units):.0f} %"
            )


if __name__ == "__main__":
    main()
