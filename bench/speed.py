"""Compress throughput against the floor of one encode_ordinary of the raw text.

    python bench/speed.py --corpus DIR [--repeat 5] [--headroom VENV_PYTHON] [--stages [--sizes 1,8,32|each]]

DIR is the dev corpus built by ../shared/corpus/build_dev_corpus.py. For every artifact and
budgets of 80 %, 50 % and 20 % of its raw tokens, times `compress` (redaction included, as a
bundle runs it) and one `encode_ordinary` of the raw text in the same run (median of
--repeat), and prints per type the median ratio, and separately for artifacts over 100k tokens
(target: at most 3x).

--stages: where the time goes, per type at 50 %: each stage of a bundle's run timed on its own,
as a ratio to the same encode (median over the type's artifacts): redaction, the tokenizer's
encode of the redacted text, the kind's `read`, its `plan`, and the rest of `compress` given
those (the packer, the probes, the record). By default the corpus's artifacts of each type are
joined into one of each of the sizes the speed targets are set at, 1, 8 and 32 MB (diffs, logs
and markdown one after another; JSON documents as the items of one array), each measured as one
artifact, with the garbage collector tuned as the command line tunes it; `--sizes 2,4` other
sizes, `--sizes each` every corpus artifact as it is.

--generated 1,8,32: with --stages, bench/scaling.py's generated artifacts of those sizes in MB
instead (one per type and size; --corpus is not needed).

--code DIR: the ctxguard checkout to measure (default: this one). --vs DIR (with --stages): this
checkout and DIR measured in turns, --rounds times each, each run in a fresh process, and per
stage the median of each side's runs printed side by side: a change's effect measured in one
run on one machine (its load moves both sides alike).

The plan stage and the rest are timed each with a fresh reading of the text, less the time
of the reading: what a kind works out lazily from its reading is counted where it is asked.

--headroom: the Python of a virtual environment holding `pip install headroom-ai`; its
compressors are timed on the same artifacts (bench/headroom_speed.py, run with that Python)
and printed beside ctxguard's, as ratios to one encode in their own process. With --stages,
a column beside `all` (and a head cut's: the text encoded and its first half decoded, what a
tool that only truncates spends).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import tiktoken


def _code() -> Path:
    """The checkout to measure: --code DIR, else this one (read before the imports below)."""
    if "--code" in sys.argv[:-1]:
        return Path(sys.argv[sys.argv.index("--code") + 1]).resolve()
    return Path(__file__).resolve().parent.parent


sys.path.insert(0, str(_code()))  # measure a checkout, not an installed copy
sys.path.insert(0, str(Path(__file__).resolve().parent))  # (the generators of bench/scaling.py)

from ctxguard.engine.tiers import compress  # noqa: E402
from ctxguard.kinds.registry import KINDS  # noqa: E402
from ctxguard.options import MIN_BUDGET  # noqa: E402
from ctxguard.read import read_artifact  # noqa: E402
from ctxguard.secrets.redact import redact  # noqa: E402
from ctxguard.tokens.load import get_tokenizer  # noqa: E402


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


def _headroom(python: Path, corpus: Path, repeat: int) -> dict[str, Any]:
    """headroom's timings from bench/headroom_speed.py, run by the given Python."""
    script = Path(__file__).resolve().parent / "headroom_speed.py"
    done = subprocess.run(
        [str(python), str(script), "--corpus", str(corpus), "--repeat", str(repeat)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"speed: headroom timing failed: {done.stderr.strip()[-500:]}")
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--headroom", type=Path, help="a Python with headroom-ai installed")
    parser.add_argument("--stages", action="store_true", help="time each stage at 50 %% instead")
    parser.add_argument("--generated", help="with --stages: generated artifacts of these sizes in MB (1,8,32)")
    parser.add_argument(
        "--sizes", default="1,8,32", help="with --stages --corpus: the corpus joined per type to these MB, or each"
    )
    parser.add_argument("--code", type=Path, help="the ctxguard checkout to measure (default: this one)")
    parser.add_argument("--vs", type=Path, help="with --stages: another checkout, measured in turns")
    parser.add_argument("--rounds", type=int, default=3, help="with --vs: runs of each side")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # (--vs reads its runs so)
    args = parser.parse_args()
    if args.vs is not None:
        if not args.stages or (args.generated is None and (args.corpus is None or args.sizes == "each")):
            parser.error("--vs goes with --stages, and --generated or --corpus joined to --sizes")
        joined = ["--corpus", str(args.corpus), "--sizes", args.sizes]
        what = ["--generated", args.generated] if args.generated else joined
        versus(args.vs, what, args.repeat, args.rounds)
        return
    if args.stages and args.generated:
        from ctxguard.tuning import tune_gc

        tune_gc()
        sizes = [float(size) for size in args.generated.split(",")]
        stages(_generated(sizes), args.repeat, by_size=True, as_json=args.json, headroom=args.headroom)
        return
    if args.corpus is None:
        parser.error("--corpus is required (except with --stages --generated)")
    if args.stages and args.sizes != "each":
        from ctxguard.tuning import tune_gc

        tune_gc()
        sizes = [float(size) for size in args.sizes.split(",")]
        stages(_joined(args.corpus, sizes), args.repeat, by_size=True, as_json=args.json, headroom=args.headroom)
        return
    if args.stages:
        stages(_corpus(args.corpus), args.repeat, headroom=args.headroom)
        return
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
                lambda: (
                    _forget(),
                    compress(redact(text).text, budget, tokenizer=tokenizer, name=path.name, artifact_type=kind),
                ),
                args.repeat,
            )
            rows.setdefault(f"{kind} @{int(share * 100)}%", []).append(cost / floor)
            if raw > 100_000:
                big.append(cost / floor)
                big_rows.append(f"  {path.name} ({raw:,} tokens) @{int(share * 100)}%: {cost / floor:.2f}x")
    theirs = _headroom(args.headroom, args.corpus, args.repeat) if args.headroom else {}
    print(
        f"{'type @budget':<16} {'n':>3} {'median compress/encode':>24} {'max':>8}"
        + (f" {'headroom median':>16}" if theirs else "")
    )
    for key in sorted(rows):
        ratios = rows[key]
        other = theirs.get(key.split(" ")[0])
        beside = f" {statistics.median(other):>15.2f}x" if other else ""
        print(f"{key:<16} {len(ratios):>3} {statistics.median(ratios):>23.2f}x {max(ratios):>7.2f}x" + beside)
    if big:
        print("\n".join(big_rows))
        print(
            f"artifacts over 100k tokens: n={len(big)} median {statistics.median(big):.2f}x "
            f"max {max(big):.2f}x (target <= 3x)"
        )
    if theirs.get("big"):
        print("headroom on the same artifacts over 100k tokens (no budget: it decides what to keep):")
        print("\n".join(f"  {name} ({raw:,} tokens): {ratio:.2f}x" for name, raw, ratio in theirs["big"]))
    for name, problem in theirs.get("failed", []):
        print(f"  headroom failed on {name}: {problem}")
    print(json.dumps({"repeat": args.repeat, "encoding": "o200k_base"}))


STAGES = ("redact", "encode", "read", "plan", "pack+probes", "all")


def _corpus(corpus: Path) -> Iterator[tuple[str, str, str]]:
    """The dev corpus's artifacts of the four types: (type, name, text)."""
    for path in sorted(p for p in corpus.rglob("*") if p.is_file() and p.name != "manifest.json"):
        kind = path.parent.name
        text = read_artifact(path).text
        if text and kind in ("diff", "log", "json", "markdown"):
            yield kind, path.name, text


def _joined(corpus: Path, sizes: list[float]) -> Iterator[tuple[str, str, str]]:
    """The dev corpus's artifacts of each type joined into one of each size in MB, in turn as
    often as it takes: (type, name, text). JSON documents are an array's items, each as the
    corpus writes it (one document)."""
    by_kind: dict[str, list[str]] = {}
    for kind, _, text in _corpus(corpus):
        by_kind.setdefault(kind, []).append(text.strip() if kind == "json" else text)  # (as written)
    for kind in ("diff", "log", "json", "markdown"):
        texts = by_kind.get(kind, [])
        if not texts:
            continue
        for size in sizes:
            want, parts, total, k = int(size * 1024 * 1024), [], 0, 0
            while total < want:
                part = texts[k % len(texts)]
                parts.append(part if kind == "json" or part.endswith("\n") else part + "\n")
                total, k = total + len(part) + 1, k + 1
            text = "[" + ",\n".join(parts) + "]\n" if kind == "json" else "".join(parts)
            yield kind, f"{size:g} MB", text


def _generated(sizes: list[float]) -> Iterator[tuple[str, str, str]]:
    """bench/scaling.py's generated artifacts, one per type and size: (type, name, text)."""
    import scaling  # (bench/scaling.py, beside this file)

    for kind in ("diff", "log", "json", "markdown"):
        for size in sizes:
            make = getattr(scaling, f"{kind}_of")
            yield kind, f"{size:g} MB", make(int(size * scaling.MB), random.Random(0))


def _headroom_joined(python: Path, artifacts: list[tuple[str, str, str]], repeat: int) -> dict[tuple[str, str], float]:
    """headroom's time on each joined artifact, x one encode in its own process: the artifacts
    written to a temporary corpus (one folder per type) that bench/headroom_speed.py reads."""
    with tempfile.TemporaryDirectory() as folder:
        for kind, name, text in artifacts:
            (Path(folder) / kind).mkdir(exist_ok=True)
            (Path(folder) / kind / f"{name}.txt").write_text(text, encoding="utf-8")
        found = _headroom(python, Path(folder), repeat)
    return {(kind, name): ratio for kind, name, _, ratio in found.get("each", [])}


def stages(
    artifacts: Iterable[tuple[str, str, str]],
    repeat: int,
    by_size: bool = False,
    as_json: bool = False,
    headroom: Path | None = None,
) -> dict[str, dict[str, float]]:
    """Per type (and size, by_size), each stage's median time over one encode_ordinary of the
    raw text, at 50 %: printed as a table, or (as_json) as one line of JSON. Beside them, a head
    cut's time (the raw text encoded, its first half decoded: what a tool that only truncates
    spends) and, given headroom's Python, headroom's compressor's on the same text."""
    encoding = tiktoken.get_encoding("o200k_base")
    tokenizer = get_tokenizer("o200k_base")
    found: dict[str, dict[str, list[float]]] = {}
    artifacts = list(artifacts)
    theirs = _headroom_joined(headroom, artifacts, repeat) if headroom is not None else {}
    for kind, name, text in artifacts:
        floor = _median_time(lambda: encoding.encode_ordinary(text), repeat)
        clean = redact(text).text
        encoded = tokenizer.encode(clean)
        budget = max(MIN_BUDGET, encoded.count // 2)
        read = KINDS[kind].read
        timed = {
            "redact": lambda: (_forget(), redact(text)),
            "encode": lambda: (_forget(), tokenizer.encode(clean)),
            "read": lambda: (_forget(), read(clean, name)),
            "read+plan": lambda: (_forget(), KINDS[kind].plan(read(clean, name), encoded, tokenizer, frozenset())),
            "read+all": lambda: (
                _forget(),
                compress(
                    clean,
                    budget,
                    tokenizer=tokenizer,
                    name=name,
                    artifact_type=kind,
                    encoded=encoded,
                    doc=read(clean, name),
                ),
            ),
        }
        times = {name: _median_time(fn, repeat) / floor for name, fn in timed.items()}
        times["plan"] = max(0.0, times.pop("read+plan") - times["read"])
        times["pack+probes"] = max(0.0, times.pop("read+all") - times["read"] - times["plan"])
        times["all"] = sum(times.values())
        head = lambda: encoding.decode(encoding.encode_ordinary(text)[:budget])  # noqa: E731 (the same half)
        times["head cut"] = _median_time(head, repeat) / floor
        if (kind, name) in theirs:
            times["headroom"] = theirs[(kind, name)]
        row = f"{kind} {name}" if by_size else kind
        for stage, ratio in times.items():
            found.setdefault(row, {}).setdefault(stage, []).append(ratio)
    columns = [*STAGES, "head cut", *(["headroom"] if theirs else [])]
    medians = {
        row: {stage: statistics.median(by[stage]) for stage in columns if stage in by} for row, by in found.items()
    }
    if as_json:
        print(json.dumps(medians))
        return medians
    if not found:
        raise SystemExit("speed: no artifact to time (a corpus built by build_dev_corpus.py, with its manifest?)")
    width = max([10, *map(len, found)])
    print(f"{'type @50%':<{width}} {'n':>3} " + " ".join(f"{stage:>12}" for stage in columns))
    for row, by in found.items() if by_size else sorted(found.items()):
        cells = " ".join(f"{medians[row][stage]:>11.2f}x" if stage in by else f"{'-':>12}" for stage in columns)
        print(f"{row:<{width}} {len(by['all']):>3} {cells}")
    print("(each a median over the type's artifacts, so the stages need not add up to `all`)")
    return medians


def versus(other: Path, what: list[str], repeat: int, rounds: int) -> None:
    """This checkout and another, each stage of each artifact (`what`: the options that choose
    them), measured in turns in fresh processes; per stage, each side's median over its rounds."""
    sides = {"this": _code(), "vs": other.resolve()}
    runs: dict[str, list[dict[str, dict[str, float]]]] = {side: [] for side in sides}
    for _ in range(rounds):
        for side, code in sides.items():
            done = subprocess.run(
                [sys.executable, __file__, "--stages", *what, "--repeat", str(repeat)]
                + ["--code", str(code), "--json"],
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                raise SystemExit(f"speed: the run of {code} failed: {done.stderr.strip()[-500:]}")
            runs[side].append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"this: {sides['this']}  vs: {sides['vs']}  ({rounds} runs each, in turns; x one encode_ordinary)")
    rows = list(runs["this"][0])
    if not rows:
        raise SystemExit("speed: no artifact to time (a corpus built by build_dev_corpus.py, with its manifest?)")
    width = max([10, *map(len, rows)])
    print(f"{'type @50%':<{width}} " + " ".join(f"{stage:>17}" for stage in STAGES))
    for row in rows:
        cells = []
        for stage in STAGES:
            this, vs = (statistics.median(run[row][stage] for run in runs[side]) for side in sides)
            cells.append(f"{vs:>7.2f} -> {this:>5.2f}")
        print(f"{row:<{width}} " + " ".join(cells))
    print("(each cell: the other checkout -> this one)")


if __name__ == "__main__":
    main()
