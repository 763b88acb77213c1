"""What the stages take at one turn as one unit. An array's middle item whose values all share
its stage is one unit, shown whole or not at all; items the stages would shorten, outliers and
items with a key of their own stay in units. A long string's characters up to 200 that come at
its own stage are its first unit's."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from ctxguard import compress_text
from ctxguard.kinds.json import read, units
from ctxguard.kinds.json.plan import plan
from ctxguard.kinds.json.units import Layout, walk
from ctxguard.tokens.load import get_tokenizer
from tests.helpers import budget_for_tier2


def _report(n: int = 120) -> dict[str, Any]:
    tests: list[dict[str, Any]] = [
        {
            "nodeid": f"tests/test_m.py::test_{i}",
            "lineno": 10 * i,
            "outcome": "passed",
            "keywords": [f"test_{i}", "test_m.py", "tests"],
            "call": {"duration": 0.001 * i, "outcome": "passed"},
        }
        for i in range(n)
    ]
    tests[n // 3]["outcome"] = "failed"
    tests[n // 3]["call"] = {"duration": 0.2, "outcome": "failed", "longrepr": "E   assert 1 == 2\n" * 30}
    return {"summary": {"passed": n - 1, "failed": 1}, "tests": tests}


def _units(doc: dict[str, Any], whole: int = units.WHOLE) -> int:
    text = json.dumps(doc, indent=2)
    tokenizer = get_tokenizer("o200k_base")
    saved, units.WHOLE = units.WHOLE, whole
    try:
        return len(plan(read(text), tokenizer.encode(text), tokenizer).units)
    finally:
        units.WHOLE = saved


def test_a_plain_middle_item_is_one_unit() -> None:
    doc = _report()
    found = walk([doc], Layout(":", ",", False))
    whole = [i for i, body in enumerate(found.body) if body.startswith('{"nodeid"')]
    assert len(whole) == 120 - 5 - 2 - 1  # (all but the head's 5, the tail's 2 and the failed one)
    assert _units(doc) < _units(doc, whole=0) // 5  # (no item written whole: one unit per value)


@pytest.mark.parametrize("ratio", [0.6, 0.3, 0.1])
def test_a_whole_item_is_shown_whole_or_not_at_all(ratio: float) -> None:
    doc = _report()
    text = json.dumps(doc, indent=2)
    raw = compress_text(text, 10**9, name="r.json")["raw_tokens"]
    record = compress_text(text, int(raw * ratio), name="r.json")
    kept = json.loads(record["content"])
    shown = {int(item["nodeid"].rsplit("_", 1)[1]): item for item in kept["tests"] if "nodeid" in item}
    middle = [i for i in shown if 5 <= i < 118 and i != 40]  # (not the head, the tail, the failed one)
    assert middle and all(shown[i] == doc["tests"][i] for i in middle)
    assert shown[40]["outcome"] == "failed"  # (the outlier first, in its units)


def test_what_a_stage_shortens_keeps_its_units() -> None:
    """A long string, a long array or a key no head or tail item has: the item stays in units,
    so the string is cut, the array shortened, the key kept at tier 2."""
    doc = _report()
    doc["tests"][60]["call"]["stdout"] = "x" * 300
    doc["tests"][61]["keywords"] = [f"k{i}" for i in range(11)]
    doc["tests"][62]["rare"] = {"only": "here"}
    layout = Layout(":", ",", False)
    found = walk([doc], layout)
    whole = {i for i, body in enumerate(found.body) if body.startswith('{"nodeid"')}
    written = {json.loads(found.body[i])["nodeid"] for i in whole}
    assert not written & {f"tests/test_m.py::test_{i}" for i in (40, 60, 61, 62)}  # (40 failed)
    assert "tests/test_m.py::test_59" in written
    text = json.dumps(doc, indent=2)
    record = compress_text(text, budget_for_tier2(text), name="r.json")
    assert record["tier"] == 2 and json.loads(record["content"])["tests"][62]["rare"]["only"] == "here"


def test_the_deepest_level_counts_inside_whole_items() -> None:
    """A compact document that fits is indented as deep as fits: the levels inside whole items
    count, as they did when every value was a unit."""
    # (the head's and the tail's items hold the same keys less deep: only whole items reach 6)
    doc = {"rows": [{"a": [i] if i < 5 or i >= 28 else [[[i]]]} for i in range(30)]}
    layout = Layout(":", ",", False)
    saved = units.WHOLE
    try:
        units.WHOLE = 0
        per_value = walk([doc], layout).deepest
    finally:
        units.WHOLE = saved
    found = walk([doc], layout)
    assert any(body.startswith('{"a"') for body in found.body)  # (some items are whole)
    assert found.deepest == per_value == 6  # (top, rows, item, a, [, [, i)


def test_a_whole_item_with_a_lone_surrogate_stays_in_units() -> None:
    """json.dumps writes a lone surrogate as it is; the units escape it: such an item is not
    written whole, and the cut stays valid UTF-8."""
    doc = _report(40)
    doc["tests"][20]["nodeid"] = "bad \ud800 name"
    found = walk([doc], Layout(":", ",", False))
    assert not any("\ud800" in body for body in found.body)


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    """Arrays of every length around the stages' limits, strings around 200 characters."""
    pick = rng.random()
    if depth < 2 and pick < 0.5:
        return [_random_value(rng, depth + 1) for _ in range(rng.choice([1, 3, 10, 11, 14, 20, 30]))]
    if pick < 0.8:
        return "w" * rng.choice([3, 20, 150, 200, 201, 450])
    return rng.randint(0, 99)


def _wholes_checked(doc: dict[str, Any]) -> int:
    """How many items of doc["items"] are written whole, each checked to be one whose values,
    walked one unit each, all have the item's stage."""
    layout = Layout(":", ",", False)
    found = walk([doc], layout)
    saved, units.WHOLE = units.WHOLE, 0
    try:
        each = walk([doc], layout)  # (no item written whole: a unit per value)
    finally:
        units.WHOLE = saved
    openings = [i for i in range(len(each.kind)) if each.kind[i] == units.OPEN and each.depth[i] == 2]
    items = [i for i in range(len(found.kind)) if found.depth[i] == 2 and found.kind[i] in (units.OPEN, units.LEAF)]
    assert len(items) == len(openings) == len(doc["items"])
    wholes = 0
    for opening, i in zip(openings, items):
        if found.kind[i] == units.LEAF:
            wholes += 1
            stages = each.stage[opening : each.end[opening] + 1]
            assert {stage for stage in stages if stage < units._TAILS} == {found.stage[i]}
            # A long string's characters past the first 200: in the same pieces, at the same stages.
            last = found.items.get(i, i)
            assert sorted(stage for stage in stages if stage >= units._TAILS) == sorted(
                found.stage[j] for j in range(i, last + 1) if found.kind[j] == units.PIECE_OF
            )
    return wholes


def test_a_whole_item_is_one_the_units_took_at_one_stage() -> None:
    """Every item written whole is one whose values, walked one unit each, all have the item's
    stage: the packer took them one after another anyway (the rule is exact, not a guess)."""
    rng = random.Random(7)
    found = sum(
        _wholes_checked({"items": [{"a": _random_value(rng), "b": {"c": _random_value(rng)}} for _ in range(40)]})
        for _ in range(25)
    )
    assert found > 100  # (the rule was put to the test: 165 of 825 middle items)


@pytest.mark.parametrize("n", [10, 11, 14, 20, 33])
def test_an_array_in_an_item_is_whole_from_the_stage_of_its_last_middle_item(n: int) -> None:
    """The middle of an array of n items is taken up to stage _MIDDLE + n - 8: an item holding
    one is whole from that stage on (every stage of 40 items' middle is met)."""
    doc = {"items": [{"a": list(range(n))} for _ in range(40)]}
    wholes = _wholes_checked(doc)
    stages = range(units._MIDDLE, units._MIDDLE + 33)
    assert wholes == sum(1 for stage in stages if n <= units._LONG_ARRAY or units._MIDDLE + n - 8 <= stage)


OMITTED_TAIL = re.compile(r"^(.*)\.\.\. \((\d+) chars omitted\)$", re.S)


@pytest.mark.parametrize("ratio", [0.9, 0.6, 0.3, 0.1])
def test_a_whole_item_with_long_strings_shows_their_start_and_counts_the_rest(ratio: float) -> None:
    """A middle item whose long strings are all a stage would cut is whole all the same: its
    strings' first 200 characters with it, the rest in pieces, last, as a string's in units;
    a string cut says how many characters it left out."""
    rng = random.Random(3)
    doc = {
        "items": [
            {
                "id": i,
                "note": " ".join(rng.choice(["alpha", "beta", "gamma"]) for _ in range(rng.randint(5, 90))),
                "n": i,
            }
            for i in range(200)
        ]
    }
    found = walk([doc], Layout(":", ",", False))
    assert found.items and any(found.kind[j] == units.REST for j in found.items.values())
    text = json.dumps(doc, indent=2)
    raw = compress_text(text, 10**9, name="r.json")["raw_tokens"]
    record = compress_text(text, int(raw * ratio), name="r.json")
    kept = json.loads(record["content"])  # (valid JSON)
    shown = [item for item in kept["items"] if "id" in item]
    left_out = sum(int(item["_truncated"].split()[0]) for item in kept["items"] if "id" not in item)
    assert shown and len(shown) + left_out == 200  # (every item shown or counted once)
    for item in shown:
        original = doc["items"][item["id"]]
        assert set(item) == set(original) and item["n"] == original["n"]
        cut = OMITTED_TAIL.match(item["note"])
        if cut is None:
            assert item["note"] == original["note"]
        else:
            start, left = cut.group(1), int(cut.group(2))
            assert (
                original["note"].startswith(start) and len(start) >= 16 and len(start) + left == len(original["note"])
            )


def _string_stages(found: units.Units) -> list[list[float]]:
    """For each string of more than 16 characters (not in a whole item), the stage at which
    each of its characters comes in: its first unit's for the characters that unit shows, each
    piece's for its own."""
    strings = []
    for i, kind in enumerate(found.kind):
        if kind != units.LEAF or found.chars[i] <= units.STAGES[0][3] or i in found.items:
            continue
        if found.end[i] == i:  # (the whole string in one unit)
            strings.append([found.stage[i]] * found.chars[i])
            continue
        stages = [found.stage[i]] * found.shown.get(i, units.STAGES[0][3])
        for j in range(i + 1, found.end[i] + 1):
            stages += [found.stage[j]] * found.chars[j]
        strings.append(stages)
    return strings


@pytest.mark.parametrize("seed", range(6))
def test_a_long_strings_characters_at_its_own_stage_are_its_first_units(seed: int) -> None:
    """Every character of every string comes in at the stage it did when each of the stages'
    lengths (16, 30, 60, 120, 200 characters) was a piece of its own; no piece left is at the
    stage of the unit before it; and the units' text is the document's."""
    rng = random.Random(seed)
    doc = _report(60)  # (a failing item's message: all its first 200 characters at its stage)
    doc["items"] = [{"a": _random_value(rng), "b": {"c": _random_value(rng)}} for _ in range(40)]
    doc["top"] = ["v" * rng.choice([20, 150, 250]) for _ in range(12)]  # (stage 0: still in pieces)
    layout = Layout(":", ",", False)
    found = walk([doc], layout)
    saved, units._FOLDED = units._FOLDED, 0
    try:
        pieces = walk([doc], layout)  # (a unit per stage's length)
    finally:
        units._FOLDED = saved
    assert _string_stages(found) == _string_stages(pieces)
    assert len(found.kind) < len(pieces.kind)
    assert found.joined() == pieces.joined() == json.dumps(doc, separators=(",", ":")) + "\n"
    for j, kind in enumerate(found.kind):
        if kind == units.PIECE_OF:
            assert found.stage[j] > found.stage[j - 1]
    assert any(kind == units.PIECE_OF and stage < units._TAILS for kind, stage in zip(found.kind, found.stage))
