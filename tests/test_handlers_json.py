from __future__ import annotations

import json

from ctxguard import compress_text
from ctxguard.handlers.base import Context
from ctxguard.handlers.json import JsonHandler
from tests.helpers import budget_for_tier2, independent_count


def _keys(value: object, prefix: str = "") -> set[str]:
    if isinstance(value, dict):
        out = set()
        for key, item in value.items():
            out |= {prefix + "." + key} | _keys(item, prefix + "." + key)
        return out
    if isinstance(value, list):
        return set().union(*(_keys(item, prefix + "[]") for item in value)) if value else set()
    return set()


def test_deep_json_strings_shortened_visibly(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("deep.json")
    ctx = Context(budget=100, name="deep.json", task_words=frozenset())
    first = json.loads(next(JsonHandler().candidates(text, ctx)))
    note = first["level1"]["level2"]["level3"]["level4"]["note"]
    assert note == "x" * 200 + "... (300 chars omitted)"


def test_every_candidate_parses(sample) -> None:  # type: ignore[no-untyped-def]
    for name in ("deep.json", "long-array.json"):
        ctx = Context(budget=100, name=name, task_words=frozenset())
        for candidate in JsonHandler().candidates(sample(name), ctx):
            json.loads(candidate)


def test_invalid_json_is_handled_as_text_with_a_note(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("invalid.json")
    record = compress_text(text, budget_for_tier2(text), name="broken.json")
    assert "content is not valid json; compressed as text" in record["notes"]
    assert record["compacted_tokens"] <= record["budget"]


def test_nesting_too_deep_does_not_crash() -> None:
    text = "[" * 5000 + "]" * 5000
    record = compress_text(text, 100, name="deep.json")
    assert record["compacted_tokens"] <= 100


def test_an_indented_form_that_may_fit_is_still_tried() -> None:
    doc = {"records": [{"id": i, "name": f"user {i}"} for i in range(8)]}
    text = json.dumps(doc, indent=2)
    density = independent_count(text) / len(text)
    ctx = Context(budget=independent_count(text), name="x.json", task_words=frozenset(), density=density)
    assert "\n  " in next(JsonHandler().candidates(text, ctx))


def test_shrink_lengths_are_the_written_lengths_without_writing(sample) -> None:  # type: ignore[no-untyped-def]
    from ctxguard.handlers.json import SHRINK_LEVELS, _dump, shrink, shrink_lengths

    plain = [
        json.loads(sample("deep.json")),
        {"rows": [{"id": i, "name": "n" * (i * 13), "tags": list(range(i)), "ok": i % 2 == 0, "x": None,
                   "f": i / 3} for i in range(25)], "empty": {}, "none": []},
        [[1, 2, 3]] * 12, list(range(30)), "s" * 500, 7, None, {}, [],
    ]
    for value in plain:  # strings that need no escapes: exact
        written = [len(_dump(shrink(value, level), None)) for level in SHRINK_LEVELS]
        assert shrink_lengths(value, SHRINK_LEVELS) == written, value
    escaped = {"doc": 'say "hi"\n\\' * 40, "items": ['a "b"'] * 3}
    for level, length in zip(SHRINK_LEVELS, shrink_lengths(escaped, SHRINK_LEVELS)):
        written = len(_dump(shrink(escaped, level), None))
        assert written * 0.5 <= length <= written  # escapes only ever make the written text longer
