"""JSON planned and packed: every key, arrays and strings shortened only as far as the room
requires (the longest first), the whole document when its compact form fits, always valid JSON."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ctxguard import compress_text
from ctxguard.engine.packer import pack
from ctxguard.engine.tiers import marker
from ctxguard.kinds.json import read
from ctxguard.kinds.json.plan import plan
from ctxguard.tokens.load import get_tokenizer
from tests.helpers import budget_for_tier2, independent_count, probes_kept

OMITTED_ITEMS = re.compile(r"(\d+) items? omitted")
OMITTED_CHARS = re.compile(r"^(x*)\.\.\. \((\d+) chars omitted\)$")


def _keys(value: object, prefix: str = "") -> set[str]:
    if isinstance(value, dict):
        out = set()
        for key, item in value.items():
            if key != "_truncated":
                out |= {prefix + "." + key} | _keys(item, prefix + "." + key)
        return out
    if isinstance(value, list):
        return set().union(*(_keys(item, prefix + "[]") for item in value)) if value else set()
    return set()


def _shown_items(items: list[Any]) -> tuple[list[Any], int]:
    """The items of a shortened array, and how many its notes say were left out."""
    shown, left = [], 0
    for item in items:
        if isinstance(item, dict) and set(item) == {"_truncated"}:
            left += int(OMITTED_ITEMS.search(item["_truncated"]).group(1))  # type: ignore[union-attr]
        else:
            shown.append(item)
    return shown, left


def test_long_array_fills_the_room_keeping_every_key_and_the_first_and_last_items(sample) -> None:  # type: ignore[no-untyped-def]
    text = json.dumps(json.loads(sample("long-array.json")))  # compact: a cut is needed
    budget = budget_for_tier2(text)
    record = compress_text(text, budget, name="results.json")
    assert record["tier"] == 2 and independent_count(record["content"]) <= budget
    assert record["compacted_tokens"] >= 0.9 * budget  # the room is used, not one coarse level
    data = json.loads(record["content"])
    raw = json.loads(text)
    shown, left = _shown_items(data["tests"])
    assert len(shown) + left == len(raw["tests"]) and 0 < left  # every item shown or counted
    ids = [item["id"] for item in shown]
    assert ids[:5] == ["t0", "t1", "t2", "t3", "t4"] and ids[-2:] == ["t58", "t59"]
    by_id = {item["id"]: item for item in raw["tests"]}
    for item in shown:  # every key, in order; long strings may be shortened (they go first)
        assert list(item) == list(by_id[item["id"]]) and item["outcome"] == by_id[item["id"]]["outcome"]
    assert _keys(raw) - _keys(data) == set()


def test_middle_items_are_spread_evenly() -> None:
    rows = [{"n": i, "label": f"row number {i}"} for i in range(400)]
    text = json.dumps({"rows": rows})
    record = compress_text(text, budget_for_tier2(text, 1.45), name="rows.json")
    shown, _ = _shown_items(json.loads(record["content"])["rows"])
    numbers = [row["n"] for row in shown]
    gaps = [b - a for a, b in zip(numbers, numbers[1:])]
    assert numbers[0] == 0 and numbers[-1] == 399 and 50 < len(numbers) < 400
    assert max(gaps) <= 4  # no long run left out while another part is shown densely


def test_the_longest_array_is_shortened_first() -> None:
    doc = {"short": [f"short item {i}" for i in range(30)], "long": [f"long item {i}" for i in range(600)]}
    text = json.dumps(doc)
    record = compress_text(text, budget_for_tier2(text, 1.4), name="x.json")
    data = json.loads(record["content"])
    assert record["tier"] == 2 and data["short"] == doc["short"]
    shown, left = _shown_items(data["long"])
    assert left > 0 and len(shown) + left == 600


def test_the_longest_string_is_shortened_first_and_says_by_how_much() -> None:
    doc = {"summary": "x" * 900, "log": "x" * 9000, "ok": True}
    text = json.dumps(doc)
    record = compress_text(text, budget_for_tier2(text, 1.4), name="x.json")
    data = json.loads(record["content"])
    assert record["tier"] == 2 and data["summary"] == doc["summary"] and data["ok"] is True
    kept, left = OMITTED_CHARS.match(data["log"]).groups()  # type: ignore[union-attr]
    assert len(kept) >= 200 and len(kept) + int(left) == 9000


def test_deep_strings_keep_at_least_200_characters_at_tier_2(sample) -> None:  # type: ignore[no-untyped-def]
    text = json.dumps(json.loads(sample("deep.json")))
    record = compress_text(text, budget_for_tier2(text, 1.45), name="deep.json")
    note = json.loads(record["content"])["level1"]["level2"]["level3"]["level4"]["note"]
    kept, left = OMITTED_CHARS.match(note).groups()  # type: ignore[union-attr]
    assert record["tier"] == 2 and len(kept) >= 200 and len(kept) + int(left) == 500


def test_json_lines_long_strings_go_first_then_rows_left_out_are_counted(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("records.jsonl")
    record = compress_text(text, budget_for_tier2(text), name="records.jsonl")
    rows = [json.loads(line) for line in record["content"].split("\n") if line]
    assert record["tier"] == 2 and [row["id"] for row in rows] == list(range(40))  # every row
    cut = [OMITTED_CHARS.match(row["payload"].replace("p", "x")) for row in rows if len(row["payload"]) != 300]
    assert cut and all(found and len(found.group(1)) + int(found.group(2)) == 300 for found in cut)

    record = compress_text(text, budget_for_tier2(text, 1.49) // 2, name="records.jsonl")
    rows = [json.loads(line) for line in record["content"].split("\n") if line]
    notes = [row["_truncated"] for row in rows if set(row) == {"_truncated"}]
    shown = [row["id"] for row in rows if "id" in row]
    left = sum(int(found.group(1)) for note in notes if (found := re.match(r"(\d+) lines? omitted", note)))
    assert record["tier"] == 3 and left and len(shown) + left == 40
    assert shown[0] == 0 and "[TRUNCATED: content exceeds budget" in notes[-1]


def test_whole_document_when_its_compact_form_fits_top_levels_indented() -> None:
    doc = {
        "services": {
            f"svc{i}": {"image": f"registry.example.com/team/service-{i}:1.2.{i}", "env": {"REGION": "eu-west-1"}}
            for i in range(40)
        }
    }
    text = json.dumps(doc, indent=4)
    compact = independent_count(json.dumps(doc, separators=(",", ":")))
    budget = compact + 100  # under the raw text, over its compact form
    assert budget < independent_count(text) <= 1.5 * budget
    record = compress_text(text, budget, name="x.json")
    assert record["tier"] == 2 and json.loads(record["content"]) == doc  # nothing left out
    assert record["content"].startswith('{\n    "services": {\n        "svc0": {')  # as indented as fits
    assert "_truncated" not in record["content"] and record["compacted_tokens"] <= budget


def test_tier_3_keeps_keys_first_and_stays_within_budget() -> None:
    doc = {
        "name": "api",
        "shapes": {
            f"Shape{i}": {"type": "structure", "doc": "word " * 80, "members": {"Id": {"shape": "String"}}}
            for i in range(60)
        },
    }
    text = json.dumps(doc, indent=2)
    budget = independent_count(text) // 8
    record = compress_text(text, budget, name="api.json")
    assert record["tier"] == 3 and independent_count(record["content"]) <= budget
    data = json.loads(record["content"])
    assert data["name"] == "api" and "[TRUNCATED: content exceeds budget" in data["_truncated"]
    shown = [name for name in data["shapes"] if name != "_truncated"]
    assert shown == [f"Shape{i}" for i in range(len(shown))] and len(shown) >= 10  # in order, with …
    assert all(data["shapes"][name]["type"] == "structure" for name in shown)  # … their scalars
    assert data["shapes"]["_truncated"] == f"{60 - len(shown)} keys omitted"
    head = compress_text(text, budget, name="api.json", tier3="head")
    assert record["retention"]["kept"] > head["retention"]["kept"]


def test_a_bigger_budget_keeps_every_key_a_smaller_one_kept(sample) -> None:  # type: ignore[no-untyped-def]
    text = json.dumps(
        {
            "shapes": {
                f"S{i}": {"type": "t", "members": {f"m{j}": {"shape": "x" * (j * 40)} for j in range(i % 6)}}
                for i in range(80)
            },
            "tail": list(range(300)),
        },
        indent=2,
    )
    raw = independent_count(text)
    kept = [
        _keys(json.loads(compress_text(text, int(raw * r), name="x.json")["content"]))
        for r in (0.05, 0.1, 0.2, 0.35, 0.5, 0.67, 0.8, 0.95)
    ]
    for smaller, bigger in zip(kept, kept[1:]):
        assert smaller <= bigger


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=300),
    lambda children: st.lists(children, max_size=25) | st.dictionaries(st.text(max_size=8), children, max_size=8),
    max_leaves=120,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON, indent=st.sampled_from([None, 2]), room=st.integers(min_value=32, max_value=600), rows=st.booleans())
def test_any_pack_of_any_document_parses_and_shows_only_raw_values(
    value: object, indent: int | None, room: int, rows: bool
) -> None:
    tokenizer = get_tokenizer()
    if rows:
        text = "".join(json.dumps(row) + "\n" for row in (value if isinstance(value, list) and value else [value]))
    else:
        text = json.dumps(value, indent=indent)
    found = plan(read(text), tokenizer.encode(text), tokenizer)
    for note in (None, marker):
        content = pack(found, room, tokenizer.count, note)
        if content is None:
            continue
        assert tokenizer.count(content) <= room
        if rows and text.count("\n") > 1:
            for line in content.split("\n")[:-1]:
                json.loads(line)
        else:
            json.loads(content)


_ODD_MIDDLE_ITEM = [{"id": i, "v": {"x": i}} for i in range(40)]
_ODD_MIDDLE_ITEM[20] = {"id": 20, "v": {"x": 20, "odd": {"deep": [1, {"deeper": 2}]}}}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON, indent=st.sampled_from([None, 2]), rows=st.booleans())
@example(value=_ODD_MIDDLE_ITEM, indent=None, rows=False)  # (an item written whole only with its siblings' keys)
@example(value=[{"a": {"b": 1}}] * 30, indent=2, rows=True)
def test_the_key_paths_a_plan_walks_are_the_probes_read_from_the_values(
    value: object, indent: int | None, rows: bool
) -> None:
    """A plan's walk hands its document the key paths it met, which the probes take instead of
    reading the values again: every key path the values hold (an item written whole holds no
    key path its siblings lack), of a document and of JSON Lines."""
    from ctxguard.kinds.json.probes import probes

    tokenizer = get_tokenizer()
    if rows:
        text = "".join(json.dumps(row) + "\n" for row in (value if isinstance(value, list) and value else [value]))
    else:
        text = json.dumps(value, indent=indent)
    doc = read(text)
    plan(doc, tokenizer.encode(text), tokenizer)
    assert "paths" in doc.walked
    assert list(probes(doc)) == list(probes(read(text)))  # (read again: from its values)


def test_writing_every_unit_gives_the_document_back() -> None:
    tokenizer = get_tokenizer()
    for doc in ({"a": 1, "b": [1, 2, {"c": "é" * 300}], "e": [], "d": {}}, [1, 2, 3], "s" * 50, 5, None):
        for text in (json.dumps(doc, indent=2), json.dumps(doc), json.dumps(doc, separators=(",", ":"))):
            found = plan(read(text), tokenizer.encode(text), tokenizer)
            assert found.write is not None
            assert json.loads(found.write([True] * len(found.units), None)) == doc
            everything = "".join(unit.text for unit in found.units)
            assert found.write([True] * len(found.units), None) == everything


def test_invalid_json_is_handled_as_text_with_a_note(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("invalid.json")
    record = compress_text(text, budget_for_tier2(text), name="broken.json")
    assert "content is not valid json; compressed as text" in record["notes"]
    assert record["compacted_tokens"] <= record["budget"]


def test_nesting_too_deep_to_parse_is_cut_as_text() -> None:
    text = "[" * 5000 + "]" * 5000
    record = compress_text(text, 100, name="deep.json")
    assert record["compacted_tokens"] <= 100 and "content is not valid json" in record["notes"][0]


def test_deep_nesting_that_parses_is_planned_without_recursion() -> None:
    for depth in (40, 900):
        text = json.dumps(json.loads("[" * depth + '"' + "word " * 400 + '"' + "]" * depth), indent=1)
        for budget in (40, 400):
            record = compress_text(text, budget, name="deep.json")
            assert record["compacted_tokens"] <= budget and json.loads(record["content"])


def test_strings_with_escapes_are_cut_between_characters() -> None:
    doc = {
        f"Shape{i}": {"documentation": f'Shape {i} holds a "quoted" word\n\\ and é ' * (i % 9 + 3)} for i in range(120)
    }
    text = json.dumps(doc, indent=2)
    for ratio in (0.9, 0.5, 0.2):
        record = compress_text(text, int(independent_count(text) * ratio), name="api.json")
        for name, shape in json.loads(record["content"]).items():
            if name != "_truncated" and "documentation" in shape:
                shown = shape["documentation"].split("... (")[0]
                assert doc[name]["documentation"].startswith(shown)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON, indent=st.sampled_from([None, 2]), shares=st.tuples(st.floats(0.02, 1.0), st.floats(0.02, 1.0)))
def test_any_document_a_bigger_budget_keeps_every_key_path_a_smaller_one_kept(
    value: object, indent: int | None, shares: tuple[float, float]
) -> None:
    kept = probes_kept(json.dumps(value, indent=indent), "json", "x.json", shares)  # (key paths: parsed sets)
    assert kept[0] <= kept[1]


def test_a_reports_few_failures_come_first_with_their_messages(sample) -> None:  # type: ignore[no-untyped-def]
    """300 runs, 3 failed with a message: a cut to 4,000 tokens keeps all three (the issue's
    case kept 2 of 3: items were spread evenly)."""
    text = sample("json-report-failures.json")
    for budget in (4000, 1500, 600):
        record = compress_text(text, budget, name="report.json")
        kept = json.loads(record["content"])
        failed = [run for run in kept["runs"] if isinstance(run, dict) and run.get("status") == "failed"]
        assert len(failed) == 3, budget
        assert all(
            run["message"].split("\n")[0].split(":")[0] in ("AssertionError", "TimeoutError", "KeyError")
            for run in failed
        )


def test_items_that_differ_from_their_siblings() -> None:
    from ctxguard.kinds.json.units import outliers

    items: list[Any] = [{"outcome": "passed", "call": {"crash": None}} for _ in range(20)]
    items[3] = {"outcome": "failed", "call": {"crash": {"message": "boom"}}}
    items[9] = {"outcome": "passed", "call": {"crash": {"message": "flaky"}}}
    items[14] = {"outcome": "subtests passed", "call": {"crash": None}}
    # The failed item and the one with a crash fail; a rare outcome that says no failure differs
    # without failing, and goes a stage after them.
    assert outliers(items) == {3: True, 9: True, 14: False}
    assert outliers([{"status": "ok"}] * 10) == {} and outliers(list(range(50))) == {}
    eslint = [{"filePath": f"f{i}.js", "errorCount": 0, "warningCount": 0} for i in range(12)]
    eslint[5] = {"filePath": "f5.js", "errorCount": 2, "warningCount": 0}
    assert outliers(eslint) == {5: True}
    # A field whose values are all rare (no value most items share) sets no item apart.
    spread = [{"name": f"n{i}", "owner": {"level": i % 9 + 1}} for i in range(40)]
    assert outliers(spread) == {}
    spread[7]["status"] = "failed"
    assert outliers(spread) == {}  # (a field few items have is no sibling's norm either)
    for item in spread:
        item.setdefault("status", "passed")
    assert outliers(spread) == {7: True}


def test_every_failing_items_name_and_message_come_before_any_failing_items_details() -> None:
    """A pytest-json-report of 24 failures among 600 tests: a tight cut names every failed test
    and gives its crash message before it spends a token on any failure's durations, line number,
    keywords, the phases that passed or its long traceback (each said as keys left out)."""

    def test(i: int, failed: bool) -> dict[str, Any]:
        phase = {"duration": 0.000123456789, "outcome": "passed"}
        call: dict[str, Any] = {"duration": 0.000198765432, "outcome": "failed" if failed else "passed"}
        if failed:
            call["crash"] = {
                "path": f"/home/ci/work/pkg/mod_{i}.py",
                "lineno": 800 + i,
                "message": f"ValueError: bad {i}",
            }
            call["traceback"] = [{"path": "tests/test_m.py", "lineno": 10 + k, "message": ""} for k in range(6)]
            call["longrepr"] = "self = <tests.test_m.Case testMethod=test>\n" + "    code line\n" * 60
        return {
            "nodeid": f"tests/test_m.py::Case::test_number_{i}",
            "lineno": 100 + i,
            "outcome": "failed" if failed else "passed",
            "keywords": [f"test_number_{i}", "Case", "test_m.py", "tests", ""],
            "setup": phase,
            "call": call,
            "teardown": phase,
        }

    tests = [test(i, i % 25 == 3) for i in range(600)]
    failing = [t["nodeid"] for t in tests if t["outcome"] == "failed"]
    text = json.dumps({"summary": {"passed": 576, "failed": 24, "total": 600}, "tests": tests}, indent=2)
    total = compress_text(text, 1_000_000, name="report.json")["raw_tokens"]
    for share, messages in ((50, False), (40, True)):  # (2 % and 2.5 % of raw)
        kept = json.loads(compress_text(text, total // share, name="report.json")["content"])
        shown = [t for t in kept["tests"] if isinstance(t, dict) and t.get("outcome") == "failed"]
        assert [t["nodeid"] for t in shown] == failing, share
        said = [t for t in shown if "crash" in t.get("call", {}) and "message" in t["call"]["crash"]]
        assert all(t["call"]["crash"]["message"].startswith("ValueError: ") for t in said)
        assert len(said) == len(failing) if messages else len(said) > 0
        if not messages:  # (a failure's details wait for every failure's name and message)
            assert not any("duration" in t or "lineno" in t or "setup" in t for t in shown)


def test_each_cause_comes_with_the_first_failing_item_that_says_it() -> None:
    """A pytest-json-report of 40 failures of two causes among 200 tests (a mixin's tests failing
    in eight classes): a cut too tight to name every failed test gives each cause, with where it
    crashed, beside the first test that says it, not after every name."""
    tests: list[dict[str, Any]] = []
    for c in range(8):
        for k in range(25):
            failed = k < 5
            says = "ValueError: value too large" if k < 4 else "AssertionError: 2 != 1"
            call: dict[str, Any] = {"duration": 0.0001, "outcome": "failed" if failed else "passed"}
            if failed:
                call["crash"] = {"path": f"/ci/src/cache/mod{c}.py", "lineno": 76, "message": says}
            tests.append(
                {"nodeid": f"tests/test_c{c}.py::Cache{c}Test::test_{k}", "outcome": call["outcome"], "call": call}
            )
    text = json.dumps({"summary": {"passed": 160, "failed": 40, "total": 200}, "tests": tests}, indent=2)
    total = compress_text(text, 1_000_000, name="report.json")["raw_tokens"]
    for share in (50, 40, 30):
        content = compress_text(text, total // share, name="report.json")["content"]
        kept = json.loads(content)["tests"]
        named = [t["nodeid"] for t in kept if isinstance(t, dict) and "nodeid" in t]
        assert 1 < len(named) < 40, share  # (too tight for every name)
        first = content.index("ValueError: value too large")
        assert content.index("tests/test_c0.py::Cache0Test::test_0") < first < content.index(named[1])
        assert content.count("ValueError: value too large") == 1  # (the others' causes wait)
        if "tests/test_c1.py::Cache1Test::test_0" in named:  # (past the other cause's first item)
            assert "AssertionError: 2 != 1" in content, share


def test_a_failing_item_comes_before_a_rare_one_that_fails_nothing() -> None:
    """A pytest-json-report with subtests: 45 `subtests passed` among 577 `passed` are rare
    too, but a tight cut shows the failed tests first."""
    tests: list[dict[str, Any]] = [
        {"nodeid": f"tests/test_m.py::test_{i}", "outcome": "passed", "call": {"outcome": "passed"}} for i in range(120)
    ]
    for i in range(0, 120, 6):
        tests[i] = {"nodeid": f"tests/test_m.py::test_{i}", "outcome": "subtests passed", "call": {"outcome": "passed"}}
    for i in (50, 97):
        tests[i] = {
            "nodeid": f"tests/test_m.py::test_{i}",
            "outcome": "failed",
            "call": {"outcome": "failed", "crash": {"message": f"AssertionError: case {i} is wrong"}},
        }
    text = json.dumps({"summary": {"passed": 98, "failed": 2}, "tests": tests})
    total = compress_text(text, 1_000_000, name="report.json")["raw_tokens"]
    content = compress_text(text, total // 12, name="report.json")["content"]
    assert "case 50 is wrong" in content and "case 97 is wrong" in content, content


def _jest_report_with_coverage() -> str:
    results = []
    for f in range(10):
        tests = [
            {
                "fullName": f"suite {f} test {t}",
                "status": "failed" if (f, t) in ((3, 4), (7, 1)) else "passed",
                "duration": (f * 7 + t) % 50,
                "failureMessages": (
                    [
                        f"Error: expect(received).toBe(expected)\n\nExpected: 8080\nReceived: 80\n"
                        f"    at Object.<anonymous> (src/f{f}.test.js:{t}:5)"
                    ]
                    if (f, t) in ((3, 4), (7, 1))
                    else []
                ),
            }
            for t in range(10)
        ]
        failed = any(t["status"] == "failed" for t in tests)  # (jest marks a suite with a failing test)
        results.append(
            {"name": f"/repo/src/f{f}.test.js", "status": "failed" if failed else "passed", "assertionResults": tests}
        )
    coverage = {
        f"/repo/src/mod{f}.js": {
            "statementMap": {
                str(i): {"start": {"line": i, "column": 0}, "end": {"line": i, "column": 40}} for i in range(40)
            },
            "s": {str(i): (i * f) % 9 for i in range(40)},
        }
        for f in range(10)
    }
    return json.dumps({"numFailedTests": 2, "coverageMap": coverage, "testResults": results}, indent=2)


def test_a_coverage_map_goes_after_the_failing_items() -> None:
    from ctxguard.kinds.json.units import is_map

    assert is_map({str(i): i for i in range(8)}) and not is_map({f"node_modules/p{i}": {} for i in range(20)})
    text = _jest_report_with_coverage()
    raw = independent_count(text)
    for ratio in (0.2, 0.1):
        record = compress_text(text, int(raw * ratio), name="jest.json")
        content = record["content"]
        assert record["tier"] == 3 and json.loads(content)
        assert "suite 3 test 4" in content and "suite 7 test 1" in content, ratio
        assert content.count("Received: 80") == 2


def test_a_cut_of_notes_and_its_marker_alone_is_hollow() -> None:
    """The JSON kind's answer to "does this cut show anything of the document" (a preview
    replaces a hollow cut in a bundle)."""
    from ctxguard.kinds.registry import KINDS

    hollow = KINDS["json"].hollow
    marker = '"[TRUNCATED: content exceeds budget, remaining 90 tokens omitted]"'
    assert hollow(marker)
    assert hollow('{"_truncated":"6 keys omitted; [TRUNCATED: content exceeds budget]"}')
    assert hollow('[{"_truncated":"4 items omitted"},' + marker + "]")
    assert not hollow('{"_truncated":"3 keys omitted","status":"failed"}')
    assert not hollow('[{"_truncated":"4 items omitted"},{"a":null},' + marker + "]")
    assert not hollow("not json") and not KINDS["log"].hollow(marker)


def test_a_document_written_whole_and_compact_is_counted_once_and_its_plan_keeps_no_copy() -> None:
    """Tier 2 shows a spread-out document whole, written compactly, when that fits: the cut
    counts it from the plan's encode (not again), and the raw text's counts do not keep the
    rewritten text (megabytes for a big document) for it."""
    from ctxguard.engine.tiers import compress

    tokenizer = get_tokenizer()
    said = "checked the parser against the sample input and found it well formed"
    doc = {"name": "report", "items": [{"id": i, "message": f"case {i} {said}"} for i in range(40)]}
    text = json.dumps(doc, indent=2) + "\n"
    encoded = tokenizer.encode(text)
    compact = json.dumps(doc, separators=(",", ":")) + "\n"
    budget = tokenizer.count(compact) + 5
    assert budget < encoded.count  # (the raw text is over the budget: a cut)
    encoded_again: list[str] = []
    count_each = encoded.count_each  # type: ignore[attr-defined]

    def counting(segments: Any) -> dict[str, int]:
        segments = list(segments)
        encoded_again.extend(segments)
        return count_each(segments)  # type: ignore[no-any-return]

    encoded.count_each = counting  # type: ignore[attr-defined]
    record = compress(text, budget, tokenizer=tokenizer, name="r.json", artifact_type="json", encoded=encoded)
    assert record.content == compact and not record.truncated
    assert record.compacted_tokens == tokenizer.count(compact) and compact not in encoded_again
    assert compact not in encoded.known  # type: ignore[attr-defined]


def test_the_cuts_validity_check_says_what_a_full_parse_says() -> None:
    """A cut is checked without building its objects (model.valid): it must accept and refuse
    exactly what parse does, documents and JSON Lines, blank rows, nesting too deep to parse."""
    from ctxguard.kinds.json.model import parse, valid

    texts = [
        '{"a":1}',
        '[1,2,{"b":[{}]}]',
        '{"a":1}\n{"b":2}\n',
        '{"a":1}\n\n{"b":[1,2]}',
        '{"a":1}\r\n{"b":2}',
        '{"a":1} {"b":2}',
        "\n\n",
        "",
        '{"a":',
        '{"a":NaN}',
        "nul",
        "1",
        '"x"',
        "[" * 100_000 + "]" * 100_000,
        '{"a":1}\n{"b":',
    ]
    for text in texts:
        assert valid(text) == (parse(text) is not None), text[:30]


LONG_ITEMS = st.lists(
    st.fixed_dictionaries({"id": st.integers(), "log": st.text(min_size=0, max_size=700), "ok": st.booleans()}),
    min_size=0,
    max_size=30,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON | LONG_ITEMS, rows=st.booleans(), spaced=st.booleans())
def test_the_units_texts_are_made_from_their_columns_as_the_document_writes_them(
    value: object, rows: bool, spaced: bool
) -> None:
    """A unit's text is not held but made from its key, body and what follows (JSON's columns):
    joined, the texts are the document as a cut of every unit writes it; their ends are the
    spans the tokenizer reads; white space alone where the text is; and a plan's costs are
    the same read from the spans as from the texts."""
    from itertools import accumulate

    from ctxguard.kinds.json.model import parse
    from ctxguard.kinds.json.plan import _blanks
    from ctxguard.kinds.json.units import walk
    from ctxguard.kinds.json.write import layout_of, write_cut

    separators = (", ", ": ") if spaced else (",", ":")
    if rows:
        items = value if isinstance(value, list) and value else [value]
        text = "".join(json.dumps(row, separators=separators) + "\n" for row in items)
    else:
        text = json.dumps(value, separators=separators)
    found = parse(text)
    assert found is not None
    tops, lines, _ = found
    layout = layout_of(text, lines)
    u = walk(tops, layout)
    texts = list(u.texts)
    assert len(texts) == len(u.texts) == len(u.kind) and texts[::3] == u.texts[::3]
    assert all(u.texts[i] == texts[i] for i in range(0, len(texts), 7))
    spans = u.spans()
    assert spans.text == u.joined() == "".join(texts) == write_cut(u, layout, [True] * len(texts), None)
    assert list(spans.ends) == list(accumulate(map(len, texts)))
    assert list(_blanks(u)) == [not t.strip() for t in texts]
    tokenizer = get_tokenizer()
    assert tokenizer.encode_parts(spans)[1] == tokenizer.encode_parts(texts)[1]


@pytest.mark.parametrize("indent", [2, None])
def test_a_document_over_several_lines_lets_go_of_its_lines_before_the_walk(indent: int | None, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # A document written over several lines is rewritten by every cut (its units' text is one
    # line): its raw lines are let go before the walk builds the units, not after, and the plan
    # is the same. A compact document keeps them: its units are costed from its own segments.
    import importlib

    module = importlib.import_module("ctxguard.kinds.json.plan")
    tokenizer = get_tokenizer()
    text = json.dumps({"items": [{"id": i, "note": "word " * (i % 9)} for i in range(60)]}, indent=indent)
    held: list[bool] = []
    walk = module.walk

    def watched(*args, **kwargs):  # type: ignore[no-untyped-def]
        held.append(encoded._segments is not None)
        return walk(*args, **kwargs)

    encoded = tokenizer.encode(text)
    monkeypatch.setattr(module, "walk", watched)
    found = plan(read(text), encoded, tokenizer)
    assert held == [indent is None]
    monkeypatch.setattr(module, "walk", walk)
    again = plan(read(text), tokenizer.encode(text), tokenizer)
    assert list(found.table.cost) == list(again.table.cost) and list(found.table.level) == list(again.table.level)
    room = tokenizer.count(text) // 3
    assert pack(found, room, tokenizer.count, marker) == pack(again, room, tokenizer.count, marker)
