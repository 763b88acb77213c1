"""Secret redaction: recall per kind on fresh fake secrets, and lines changed on real artifacts.

    python bench/redaction.py [--rounds 20] [--corpus DIR ...]

Recall: every kind of bench/fake_secrets.py, with new random values each round, written as a
user would write it and placed in a diff, a log, a markdown document and a text file; a secret
counts as caught when its value no longer appears after redaction. Each result is also checked
to keep its line count and line endings.

Lines changed: every file under each --corpus folder is redacted; the share of its lines that
change is the false-positive rate (real artifacts hold no live secrets, so nearly every change
is a false alarm). The target is under 1 %.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_secrets import CONTEXTS, HELD_OUT, KINDS, NEUTRAL, PREFIXED, core, secret_value, written  # noqa: E402

from ctxguard.read import read_artifact  # noqa: E402
from ctxguard.secrets.redact import redact  # noqa: E402
from tests.fuzz import endings  # noqa: E402


def _places(kind: str, value: str, held_out: bool) -> list[str]:
    if not held_out:
        return [place(written(kind, value)) for place in CONTEXTS.values()]
    texts = [place(written(kind, value)) for place in HELD_OUT.values()]
    if kind in PREFIXED:
        texts += [place(value) for place in NEUTRAL.values()]
    return texts


def recall(rounds: int, seed: int, held_out: bool = False) -> tuple[dict[str, tuple[int, int]], int]:
    """Per kind: (caught, tried); and how many results changed the line structure."""
    rng = random.Random(seed)
    scores: dict[str, tuple[int, int]] = {}
    broken = 0
    for kind in KINDS:
        caught = tried = 0
        for _ in range(rounds):
            value = secret_value(kind, rng)
            for text in _places(kind, value, held_out):
                out = redact(text).text
                tried += 1
                caught += core(kind, value) not in out
                broken += endings(out) != endings(text)
        scores[kind] = (caught, tried)
    return scores, broken


def lines_changed(folders: list[Path]) -> tuple[int, int, Counter[str], list[str]]:
    """Lines in all files, lines redaction changed, kinds found, and a few changed lines."""
    total = changed = 0
    kinds: Counter[str] = Counter()
    examples: list[str] = []
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            loaded = read_artifact(path)
            if loaded.text is None:
                continue
            found = redact(loaded.text)
            before, after = loaded.text.splitlines(), found.text.splitlines()
            total += len(before)
            kinds.update(found.counts)
            for old, new in zip(before, after):
                if old != new:
                    changed += 1
                    if len(examples) < 12:
                        examples.append(f"{path.name}: {new.strip()[:150]}")
    return total, changed, kinds, examples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20, help="fresh values per kind (each in 4 places)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--corpus",
        type=Path,
        action="append",
        default=[],
        help="a folder of real artifacts for the lines-changed rate (repeatable)",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    tuned, broken = recall(args.rounds, args.seed)
    held, broken_held = recall(args.rounds, args.seed + 1, held_out=True)
    print(f"{'kind':<22} {'tuned on':>14} {'held out':>14}")
    for kind in tuned:
        cells = [f"{c:>4}/{t:<4} {c / t:>4.0%}" for c, t in (tuned[kind], held[kind])]
        print(f"{kind:<22} {cells[0]:>14} {cells[1]:>14}")
    for label, scores, changed in (("tuned-on places", tuned, broken), ("held-out places", held, broken_held)):
        caught = sum(c for c, _ in scores.values())
        tried = sum(t for _, t in scores.values())
        print(
            f"recall, {label}: {caught} / {tried} = {caught / tried:.1%} over {len(scores)} kinds; "
            f"results that changed line structure: {changed}"
        )
    if args.corpus:
        total, changed, kinds, examples = lines_changed(args.corpus)
        print(f"\nlines changed on real artifacts: {changed} / {total} = {changed / max(1, total):.3%}")
        print("kinds found there: " + (", ".join(f"{k} {n}" for k, n in kinds.most_common()) or "none"))
        for line in examples:
            print(f"  {line}")
    print(f"\n({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
