"""A cut says what it left out, counted (retention's `left_out`, and the digest): a log's error
and warning lines, a diff's changed lines, a spec's rules. Each figure is checked against an
independent count (the raw lines the cut's gap lines say it shows)."""

from __future__ import annotations

import json
import random
import re

import pytest

from ctxguard import compress_text
from ctxguard.digest import facts, render
from ctxguard.record import Record
from tests.helpers import independent_count, shown_lines


def _log(seed: int) -> str:
    pick = random.Random(seed)
    lines = []
    for i in range(600):
        k = pick.random()
        if k < 0.2:
            lines.append(
                f"2024-05-01 10:{i % 60:02d}:00 ERROR worker-{pick.randint(1, 9)} failed block {pick.randint(1, 9999)}"
            )
        elif k < 0.3:
            lines.append(
                f"2024-05-01 10:{i % 60:02d}:00 WARNING cache {pick.randint(1, 99)} is {pick.randint(80, 99)}% full"
            )
        else:
            lines.append(f"2024-05-01 10:{i % 60:02d}:00 INFO request {i} served in {pick.randint(1, 500)} ms")
    return "\n".join(lines) + "\n"


def _diff(seed: int) -> str:
    pick = random.Random(seed)
    body = []
    for i in range(80):
        body += [
            f"-    total = ledger.total * {pick.randint(2, 9)}",
            f"+    total = ledger.total * {pick.randint(2, 9)}",
        ]
        body += [f" def f{i}(ledger):", f"+    fee = ledger.fee + {i}"]
    header = "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n"
    return header + f"@@ -1,{len(body)} +1,{len(body)} @@\n" + "\n".join(body) + "\n"


@pytest.mark.parametrize("share", [0.6, 0.3, 0.1, 0.04])
@pytest.mark.parametrize(
    ("make", "name", "what", "wanted"),
    [
        (_log, "run.log", "error and warning lines", re.compile(r" (ERROR|WARNING) ")),
        (_diff, "change.diff", "changed lines", re.compile(r"^[+-](?![+-]{2} )")),
    ],
)
def test_the_counted_left_out_equals_an_independent_count(make, name, what, wanted, share) -> None:  # type: ignore[no-untyped-def]
    for seed in range(3):
        text = make(seed)
        record = compress_text(text, max(64, int(independent_count(text) * share)), name=name)
        raw = text.splitlines()
        shown = shown_lines(record["content"], raw)
        lines = [n for n, line in enumerate(raw, 1) if wanted.search(line)]
        left = sum(1 for n in lines if n not in shown)
        said = record["retention"].get("left_out", {}).get(what)
        assert (said or [0, len(lines)]) == [left, len(lines)], (seed, share)


def test_a_specs_rules_left_out_are_counted() -> None:
    rules = [f"A server MUST answer request kind {i} within {i + 1} seconds." for i in range(12)]
    filler = "Some prose a reviewer does not need, about the history of the protocol and its authors."
    text = "# Spec\n\n" + "".join(f"## Part {i}\n\n{rule}\n\n{filler}\n\n" for i, rule in enumerate(rules))
    record = compress_text(text, 90, name="spec.md")
    shown = sum(1 for rule in rules if rule in record["content"])
    assert record["retention"]["left_out"] == {"rules (MUST/SHOULD sentences)": [len(rules) - shown, len(rules)]}


def test_the_digest_says_what_was_left_out() -> None:
    text = _log(0)
    content = compress_text(text, 200, name="run.log")
    record = Record.from_dict(content, "o200k_base")
    left, of = content["retention"]["left_out"]["error and warning lines"]
    assert f"left out {left:,} of {of:,} error and warning lines" in render(facts([]), [record])


def _report(seed: int) -> str:
    pick = random.Random(seed)
    tests = []
    for i in range(300):
        failed = pick.random() < 0.1
        test = {
            "nodeid": f"tests/test_m{i % 7}.py::test_case_{i}",
            "lineno": i,
            "outcome": "failed" if failed else "passed",
        }
        test["call"] = {"duration": pick.random(), "outcome": test["outcome"]}
        if failed:
            test["call"]["longrepr"] = f"AssertionError: expected {i} got {i + 1}\n" + "frame line\n" * 20
        tests.append(test)
    return json.dumps({"created": 1.0, "exitcode": 1, "tests": tests}, indent=2)


@pytest.mark.parametrize("share", [0.3, 0.05, 0.01, 0.003])
def test_a_reports_failing_items_left_out_are_counted(share: float) -> None:
    for seed in range(3):
        text = _report(seed)
        failing = [t["nodeid"] for t in json.loads(text)["tests"] if t["outcome"] == "failed"]
        record = compress_text(text, max(64, int(independent_count(text) * share)), name="report.json")
        left = sum(1 for nodeid in failing if json.dumps(nodeid) not in record["content"])
        said = record["retention"].get("left_out", {}).get("failing items")
        assert (said or [0, len(failing)]) == [left, len(failing)], (seed, share)
