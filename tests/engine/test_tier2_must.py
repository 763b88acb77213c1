"""Tier 2 keeps the seed's must set, or the record says it is tier 3 (`truncated: true`).

Checked on 300 random nested JSON documents and 300 random logs, each at a budget where tier 2
is allowed (raw at most 1.5 x the budget). The must set is read here from the raw text and the
content alone (an oracle of its own, not the kinds' code): JSON keeps every key of every object
it shows and each long array's first 5 and last 2 items; a log keeps its first and last 10
lines and every line that says ERROR or WARNING (the gap lines say which lines are left out).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from ctxguard.engine.tiers import compress
from ctxguard.tokens.load import get_tokenizer

GAP = re.compile(r"^\.\.\. \(lines? (\d+)(?:-(\d+))? omitted\)$", re.M)
WORDS = "alpha beta gamma delta user request cache worker build step sync load retry".split()


def _json_broken(original: Any, shown: Any, path: str = "$") -> str | None:
    if isinstance(original, dict):
        if not isinstance(shown, dict):
            return f"{path}: not an object"
        for key, value in original.items():
            found = (
                f"{path}: key {key!r} lost" if key not in shown else _json_broken(value, shown[key], f"{path}.{key}")
            )
            if found:
                return found
        return None
    if not isinstance(original, list):
        return None
    if not isinstance(shown, list):
        return f"{path}: not an array"
    at, kept = 0, set()
    for item in shown:
        says = item.get("_truncated") if isinstance(item, dict) and len(item) == 1 else None
        if isinstance(says, str) and says.endswith("omitted"):
            at += int(says.split()[0])
            continue
        found = _json_broken(original[at], item, f"{path}[{at}]")
        if found:
            return found
        kept.add(at)
        at += 1
    n = len(original)
    if n > 7 and not {0, 1, 2, 3, 4, n - 2, n - 1} <= kept:
        return f"{path}: an array of {n} without its first 5 and last 2 items"
    return None


def _log_broken(text: str, content: str) -> str | None:
    lines = text.split("\n")[:-1]
    gone = {k for m in GAP.finditer(content) for k in range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1)}
    need = {*range(1, 11), *range(len(lines) - 9, len(lines) + 1)}
    need |= {i + 1 for i, line in enumerate(lines) if re.search(r"\b(ERROR|WARNING)\b", line)}
    lost = sorted(need & gone)
    return f"lines {lost[:5]} left out" if lost else None


def _document(rng: random.Random, left: list[int], depth: int = 0) -> Any:
    """A random value of at most `left[0]` nodes in all (arrays up to 40 items, 5 levels)."""
    left[0] -= 1
    r = rng.random()
    if depth > 4 or r < 0.35 or left[0] <= 0:
        words = " ".join(rng.choices(WORDS, k=rng.randint(1, 12)))
        return rng.choice([rng.randint(-(10**6), 10**6), words, True, None, "x" * rng.randint(0, 400)])
    if r < 0.7:
        n = rng.choice([rng.randint(0, 6), rng.randint(8, 40)])
        return [_document(rng, left, depth + 1) for _ in range(n)]
    return {f"{rng.choice(WORDS)}_{i}": _document(rng, left, depth + 1) for i in range(rng.randint(0, 7))}


def _log(rng: random.Random) -> str:
    out = []
    for i in range(rng.randint(15, 220)):
        r, stamp = rng.random(), f"2026-11-27 10:{i // 60:02d}:{i % 60:02d}"
        said = " ".join(rng.choices(WORDS, k=rng.randint(2, 12)))
        if r < 0.06:
            out.append(f"{stamp} ERROR {said} failed (code {rng.randint(1, 99)})")
        elif r < 0.12:
            out.append(f"{stamp} WARNING {said}")
        elif r < 0.2:
            out.append(f"tests/test_{rng.choice(WORDS)}.py::test_{rng.choice(WORDS)}_{i} PASSED")
        elif r < 0.23:
            out.append(" ".join(rng.choices(WORDS, k=rng.randint(30, 120))))
        else:
            out.append(f"{stamp} INFO {said}" if r > 0.26 else "")
    return "\n".join(out) + "\n"


def _tier2_budget(rng: random.Random, raw: int) -> int:
    return max(32, int(raw / rng.uniform(1.02, 1.45)))


def test_no_json_record_at_tier_2_leaves_out_its_must_set() -> None:
    tokenizer, rng = get_tokenizer(), random.Random(7)
    tier2 = rejected = 0
    broken = []
    for _ in range(300):
        value = _document(rng, [400])
        value = {"root": value} if rng.random() < 0.5 else value
        text = json.dumps(value, indent=2)
        record = compress(text, _tier2_budget(rng, tokenizer.count(text)), tokenizer=tokenizer, name="x.json")
        rejected += any("tier 2 result rejected" in note for note in record.notes)
        if record.tier == 2:
            tier2 += 1
            broken += [why] if (why := _json_broken(value, json.loads(record.content))) else []
        elif record.tier == 3:
            assert record.truncated
    assert broken == []
    assert tier2 >= 100 and rejected >= 5  # (both branches ran: kept whole, and refused as tier 3)


def test_no_log_record_at_tier_2_leaves_out_its_first_and_last_lines_or_an_error() -> None:
    tokenizer, rng = get_tokenizer(), random.Random(11)
    tier2 = 0
    broken = []
    for _ in range(300):
        text = _log(rng)
        record = compress(text, _tier2_budget(rng, tokenizer.count(text)), tokenizer=tokenizer, name="x.log")
        if record.tier == 2:
            tier2 += 1
            broken += [why] if (why := _log_broken(text, record.content)) else []
    assert broken == []
    assert tier2 >= 200  # (the branch ran)
