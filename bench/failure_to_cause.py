"""From failure to cause: a release diff of a pinned package with one injected behaviour change,
and the real failing test logs of that tree, bundled together at total budgets that are shares
of the two raws (each artifact given its share of its own raw tokens). Per case and share: the
injected line kept in the diff's record (the cause), and the log's needles kept in its record
(the symptom), beside head cuts of the same budgets.

    python bench/needles.py build --out DIR --only \
        more-itertools-release,toolz-release,more-itertools-grouper,mit-empty-window,toolz-merge-sorted,mit-grouper-fill,\
        markupsafe-release,markupsafe-mul,simplejson-release,simplejson-true-key,cachetools-release,cachetools-size,\
        idna-release,idna-label
    python bench/failure_to_cause.py --cases DIR [--ratios 0.3,0.1,0.05,0.03] [--ctxguard CHECKOUT]

`--ctxguard` measures another checkout of ctxguard (a worktree of an older commit) with the
same cases: before and after.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# (the release diff, the failing logs of the same injected change: every mode the build ran)
JOINT = (
    ("more-itertools-release.diff", "mit-empty-window"),
    ("toolz-release.diff", "toolz-merge-sorted"),
    ("more-itertools-grouper.diff", "mit-grouper-fill"),  # (a quoted string changed)
    ("markupsafe-release.diff", "markupsafe-mul"),
    ("simplejson-release.diff", "simplejson-true-key"),  # (run by unittest: its tests stop in the test)
    ("cachetools-release.diff", "cachetools-size"),  # (a mixin's tests: the same names fail in eight classes)
    ("idna-release.diff", "idna-label"),
)
SUFFIXES = ("", "-verbose", "-short", "-quiet", "-actions", "-unittest", "-unittest-verbose")


def _bundle(code: Path, folder: Path, diff: Path, log: Path, ratio: float) -> dict:  # type: ignore[type-arg]
    """The two artifacts bundled at `ratio` of their raws, by the ctxguard in `code`."""
    sys.path.insert(0, str(code))
    from ctxguard.tokens.load import get_tokenizer

    count = get_tokenizer("o200k_base").count
    budgets = [max(64, int(count(p.read_text()) * ratio)) for p in (diff, log)]
    config = folder.parent / "joint.yaml"
    config.write_text(
        "version: 1\nfail_on: never\nartifacts:\n"
        f"  - name: change\n    paths: [{diff.name}]\n    type: diff\n    budget: {budgets[0]}\n"
        f"  - name: tests\n    paths: [{log.name}]\n    type: log\n    budget: {budgets[1]}\n"
    )
    out = folder.parent / "bundle.json"
    script = "import sys\nfrom ctxguard.main import main\nsys.exit(main(sys.argv[1:]))"
    argv = ["bundle", "--repo", str(folder), "--config", str(config), "--output", str(out), "--no-redact"]
    done = [sys.executable, "-c", script, *argv]
    subprocess.run(done, check=True, capture_output=True, cwd=folder.parent, env={**_env(), "PYTHONPATH": str(code)})
    return json.loads(out.read_text())


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=Path, required=True)
    parser.add_argument("--ratios", default="0.3,0.1,0.05,0.03")
    parser.add_argument("--ctxguard", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    args = parser.parse_args()
    ratios = [float(r) for r in args.ratios.split(",")]
    # Per share: the cause kept, the cases, the symptom's needles kept, the needles, the head cut's two.
    totals = {r: [0, 0, 0, 0, 0, 0] for r in ratios}
    for diff_name, case in JOINT:
        diff = args.cases / diff_name
        if not diff.exists():
            continue
        injected = json.loads((args.cases / f"{diff_name}.needles.json").read_text())["needles"]
        for suffix in SUFFIXES:
            log = args.cases / f"{case}{suffix}.log"
            if not log.exists():
                continue
            needles = json.loads((args.cases / f"{log.name}.needles.json").read_text())["needles"]
            for ratio in ratios:
                with tempfile.TemporaryDirectory() as tmp:
                    folder = Path(tmp) / "repo"
                    subprocess.run(["git", "init", "-q", str(folder)], check=True)
                    for path in (diff, log):
                        (folder / path.name).write_text(path.read_text())
                    bundle = _bundle(args.ctxguard, folder, folder / diff.name, folder / log.name, ratio)
                records = {r["artifact_name"]: r for r in bundle["artifacts"]}
                change, tests = records[diff.name]["content"], records[log.name]["content"]
                cause = all(line in change for line in injected)
                kept = sum(needle in tests for needle in needles)
                head_change = diff.read_text()[: len(change)]
                head_tests = log.read_text()[: len(tests)]
                row = totals[ratio]
                row[0] += cause
                row[1] += 1
                row[2] += kept
                row[3] += len(needles)
                row[4] += all(line in head_change for line in injected)
                row[5] += sum(needle in head_tests for needle in needles)
                print(
                    f"{diff.name} + {log.name} at {ratio:.0%}: cause {'kept' if cause else 'LOST'}, "
                    f"symptom {kept}/{len(needles)}"
                )
    print("\nshare  cause (ctxguard / head)   symptom (ctxguard / head)")
    for ratio, (cause, cases, kept, needles, head_cause, head_kept) in totals.items():
        if cases:
            print(
                f"{ratio:>5.0%}  {cause}/{cases} {cause / cases:4.0%} / {head_cause / cases:4.0%}"
                f"        {kept}/{needles} {kept / max(1, needles):4.0%} / {head_kept / max(1, needles):4.0%}"
            )


if __name__ == "__main__":
    main()
