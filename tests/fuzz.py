"""Fuzz the whole compress path with mutated real samples, for a chosen number of seconds.

    python -m tests.fuzz --seconds 60 [--seed 1]

Inputs are the samples in tests/samples and examples/artifacts, mutated (bytes flipped, lines
cut, duplicated or shuffled, special-token text and control characters inserted, the text
truncated anywhere). Each runs through `compress` at random budgets with both tier 3 modes;
the invariants: no exception, the record validates against the bundle schema, content within
budget, tier 1 is the identity, a marker only with truncated, salient JSON output parses when the
raw JSON did, redaction keeps every line and its ending. A failing input is saved to
tests/samples/regressions/ (named by its hash), where tests/engine/test_properties.py replays it forever
after.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
import traceback
from pathlib import Path

import jsonschema

from ctxguard.api import compress_text
from ctxguard.read import decode
from ctxguard.secrets.redact import redact

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = (
    [p for p in sorted((ROOT / "tests/samples").iterdir()) if p.is_file()]
    + [p for p in sorted((ROOT / "tests/samples/secrets").iterdir()) if p.suffix == ".txt"]
    + [p for p in sorted((ROOT / "examples/artifacts").iterdir()) if p.is_file()]
)
REGRESSIONS = ROOT / "tests/samples/regressions"
SCHEMA = json.loads((ROOT / "ctxguard/schemas/bundle.schema.json").read_text())
RECORD = {"$defs": SCHEMA["$defs"], "$ref": "#/$defs/record"}
NOISE = [
    "<|endoftext|>",
    "<|im_start|>",
    "\x00",
    "\x1b[31m",
    "\r\n",
    "\ufeff",
    "\udcff",
    "\t" * 40,
    "Traceback (most recent call last):\n",
    "@@ -1 +1 @@\n",
    "diff --git a/x b/x\n",
    "{",
    "]",
    '"',
    "- [ ] ",
    "# ",
    "```\n",
    "ERROR ",
    "A" * 5000,
]


def mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines(keepends=True) or [""]
    for _ in range(rng.randint(1, 6)):
        action = rng.randrange(6)
        i = rng.randrange(len(lines))
        if action == 0:
            lines.insert(i, rng.choice(NOISE))
        elif action == 1 and len(lines) > 1:
            del lines[i]
        elif action == 2:
            lines[i:i] = lines[i : i + rng.randint(1, 20)] * rng.randint(2, 50)
        elif action == 3:
            line = lines[i]
            cut = rng.randrange(len(line) + 1)
            lines[i] = line[:cut] + rng.choice(NOISE) + line[cut:]
        elif action == 4:
            rng.shuffle(lines)
        else:
            joined = "".join(lines)
            lines = [joined[: rng.randrange(len(joined) + 1)]]
    return "".join(lines)


def endings(text: str) -> list[str]:
    """Each line's ending, in order."""
    return [line[len(line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")) :] for line in text.splitlines(True)]


def check(text: str, name: str, budget: int, tier3: str) -> None:
    """Raise AssertionError (or anything else) when an invariant breaks."""
    assert endings(redact(text).text) == endings(text), "redaction changed the line structure"
    record = compress_text(text, budget, name=name, tier3=tier3)
    jsonschema.validate(record, RECORD)
    assert record["compacted_tokens"] <= budget, "over budget"
    if record["tier"] == 1:
        assert record["content"] == text or record.get("redacted"), "tier 1 changed the text"
    assert ("[TRUNCATED: " in record["content"]) >= record["truncated"], "cut without a marker"
    if record["type"] == "json" and tier3 == "salient" and record["tier"] == 3:
        try:
            json.loads(text)
        except (ValueError, RecursionError):  # not JSON to Python either (too deep): nothing to keep valid
            return
        json.loads(record["content"])


def save(text: str, name: str) -> Path:
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    REGRESSIONS.mkdir(parents=True, exist_ok=True)
    path = REGRESSIONS / f"{digest}{Path(name).suffix or '.txt'}"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    texts = [(p.name, decode(p.read_bytes()).text or "") for p in SAMPLES]
    end, runs, found = time.monotonic() + args.seconds, 0, 0
    while time.monotonic() < end:
        name, text = rng.choice(texts)
        mutated = mutate(text, rng)
        budget = rng.choice([32, 48, 80, 150, 400, 1500, 6000])
        tier3 = rng.choice(["salient", "head"])
        runs += 1
        try:
            check(mutated, name, budget, tier3)
        except Exception:  # a finding: keep the input, report, go on
            found += 1
            path = save(mutated, name)
            print(f"FOUND ({name}, budget {budget}, tier3 {tier3}) -> {path}", file=sys.stderr)
            traceback.print_exc()
    print(f"seed {seed}: {runs} inputs in {args.seconds:.0f}s, {found} findings")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
