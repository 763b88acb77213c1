"""JUnit XML read as a report: told by name and content, read safely, rendered failing testcases
first, the must set kept at tier 2, every dialect's failing testcase named."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxguard.api import compress_text
from ctxguard.kinds.classify import classify
from ctxguard.kinds.junit.model import read

PYTEST_SUITE = """
import pytest

@pytest.mark.parametrize("i", range(300))
def test_ok(i):
    assert i >= 0

def test_total_balance():
    assert sum([1, 2]) == 4, "balance is off"

def test_parse():
    raise ValueError("cannot parse '1,5'")

@pytest.mark.skip(reason="needs the network")
def test_skip():
    pass
"""


@pytest.fixture(scope="module")
def pytest_report(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A real pytest `--junitxml` report (xunit1: with file and line) of 302 tests, 2 failing."""
    folder = tmp_path_factory.mktemp("run")
    (folder / "test_money.py").write_text(PYTEST_SUITE)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=report.xml"]
    subprocess.run([*command, "-o", "junit_family=xunit1", "test_money.py"], cwd=folder, capture_output=True)
    return (folder / "report.xml").read_text()


# Each runner's dialect, written after its documented shape (values made up for the test).
SUREFIRE = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" name="com.acme.LedgerTest" time="0.31" tests="4" errors="0" skipped="1" failures="1">
  <properties><property name="java.version" value="21"/><property name="os.name" value="Linux"/></properties>
  <testcase name="balances" classname="com.acme.LedgerTest" time="0.01"/>
  <testcase name="rounding" classname="com.acme.LedgerTest" time="0.02">
    <failure message="expected: &lt;1.50&gt; but was: &lt;15.0&gt;" type="org.opentest4j.AssertionFailedError">org.opentest4j.AssertionFailedError: expected: &lt;1.50&gt; but was: &lt;15.0&gt;
	at com.acme.LedgerTest.rounding(LedgerTest.java:42)
</failure>
    <system-out>parsing 1,5</system-out>
  </testcase>
  <testcase name="flaky" classname="com.acme.LedgerTest" time="0.2">
    <flakyFailure message="timeout" type="java.util.concurrent.TimeoutException">stack</flakyFailure>
  </testcase>
  <testcase name="network" classname="com.acme.LedgerTest" time="0"><skipped message="offline"/></testcase>
</testsuite>
"""
JEST = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="3" failures="1" errors="0" time="1.2">
  <testsuite name="suggestSimilar" errors="0" failures="1" skipped="0" timestamp="2026-11-27T10:00:00" time="1.1" tests="3">
    <testcase classname="suggestSimilar returns close names" name="suggestSimilar returns close names" time="0.002"/>
    <testcase classname="suggestSimilar ranks by distance" name="suggestSimilar ranks by distance" time="0.004">
      <failure>Error: expect(received).toEqual(expected) // deep equality

Expected: ["bar", "baz"]
Received: ["baz", "bar"]
    at Object.&lt;anonymous&gt; (src/suggestSimilar.test.js:14:7)</failure>
    </testcase>
    <testcase classname="suggestSimilar empty" name="suggestSimilar empty" time="0.001"/>
  </testsuite>
</testsuites>
"""
GO = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="1">
  <testsuite name="example.com/ledger" tests="3" failures="1" errors="0" id="0" hostname="ci" time="0.012" timestamp="2026-11-27T10:00:00Z">
    <properties><property name="go.version" value="go1.23.1"></property></properties>
    <testcase classname="example.com/ledger" name="TestParseAmount" time="0.000"></testcase>
    <testcase classname="example.com/ledger" name="TestRound" time="0.001">
      <failure message="Failed" type="">    ledger_test.go:27: Round(1.005) = 1.00, want 1.01
</failure>
    </testcase>
    <testcase classname="example.com/ledger" name="TestTotal" time="0.000"></testcase>
  </testsuite>
</testsuites>
"""
NEXTEST = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="nextest-run" tests="2" failures="1" errors="0" uuid="x" timestamp="2026-11-27T10:00:00Z" time="0.5">
    <testsuite name="ledger" tests="2" disabled="0" errors="0" failures="1">
        <testcase name="tests::round_half_up" classname="ledger" timestamp="2026-11-27T10:00:00Z" time="0.01">
            <failure type="test failure">thread 'tests::round_half_up' panicked at src/lib.rs:88:5:
assertion `left == right` failed
  left: 100
 right: 101</failure>
            <system-out>running 1 test</system-out>
        </testcase>
        <testcase name="tests::total" classname="ledger" timestamp="2026-11-27T10:00:00Z" time="0.01"/>
    </testsuite>
</testsuites>
"""
PHPUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="" tests="2" assertions="2" errors="0" failures="1" skipped="0" time="0.01">
    <testsuite name="App\\Tests\\LedgerTest" file="/app/tests/LedgerTest.php" tests="2" assertions="2" errors="0" failures="1" skipped="0" time="0.01">
      <testcase name="testRound" file="/app/tests/LedgerTest.php" line="17" class="App\\Tests\\LedgerTest" classname="App.Tests.LedgerTest" assertions="1" time="0.004">
        <failure type="PHPUnit\\Framework\\ExpectationFailedException">App\\Tests\\LedgerTest::testRound
Failed asserting that 15.0 matches expected 1.5.

/app/tests/LedgerTest.php:19</failure>
      </testcase>
      <testcase name="testTotal" file="/app/tests/LedgerTest.php" line="23" class="App\\Tests\\LedgerTest" classname="App.Tests.LedgerTest" assertions="1" time="0.001"/>
    </testsuite>
  </testsuite>
</testsuites>
"""

# green 4.0.2's `--junit-report` (a suite per test class, the class without its module as the
# classname, an `<error>` with its traceback and no message), trimmed from a real run.
GREEN = """<?xml version='1.0' encoding='utf-8'?>
<testsuites time="1.36">
  <testsuite name="tests.test_more.AdjacentTests" tests="2" failures="0" errors="1" skipped="0" time="0.01">
    <testcase name="test_negative_distance" classname="AdjacentTests" time="0.0002"/>
    <testcase name="test_call_once" classname="AdjacentTests" time="0.008">
      <error>Traceback (most recent call last):

  File "/work/tree/tests/test_more.py", line 2387, in test_call_once
    actual = list(mi.adjacent(predicate, iterable))

  File "/work/tree/more_itertools/more.py", line 846, in windowed
    raise ValueError('step must be &gt;= 1')

ValueError: step must be &gt;= 1
</error>
    </testcase>
  </testsuite>
</testsuites>
"""


@pytest.mark.parametrize(
    ("report", "failing", "says", "totals"),
    [
        (SUREFIRE, "com.acme.LedgerTest.rounding", "expected: <1.50> but was: <15.0>", "4 tests in 1 suite: 1 failed"),
        (JEST, "suggestSimilar ranks by distance", "Error: expect(received).toEqual(expected)", "3 tests in 1 suite"),
        (  # (go-junit-report's message says only `Failed`: its text's first line goes on from it)
            GO,
            "example.com/ledger.TestRound",
            "Failed: ledger_test.go:27: Round(1.005) = 1.00, want 1.01",
            "3 tests in 1 suite: 1 failed",
        ),
        (  # (nose2's says only `test failure`: the exception its traceback ends with goes on from it)
            GREEN.replace("<error>", '<error message="test failure">'),
            "AdjacentTests.test_call_once",
            "test failure: ValueError: step must be >= 1",
            "2 tests in 1 suite: 1 errors",
        ),
        (
            NEXTEST,
            "ledger.tests::round_half_up",
            "thread 'tests::round_half_up' panicked at src/lib.rs:88:5",
            "2 tests",
        ),
        (PHPUNIT, "App.Tests.LedgerTest.testRound", "ExpectationFailedException", "2 tests in 2 suites: 1 failed"),
        (GREEN, "AdjacentTests.test_call_once", "ValueError: step must be >= 1", "2 tests in 1 suite: 1 errors"),
    ],
)
def test_every_dialect_names_its_failing_testcase_with_what_it_says(
    report: str, failing: str, says: str, totals: str
) -> None:
    record = compress_text(report, 60, name="TEST-report.xml")
    assert record["type"] == "junit"
    wide = compress_text(report + " " * 0, 2000, name="report.xml", artifact_type="junit")
    assert wide["tier"] == 1 and wide["content"] == report  # (it fits: kept as it is)
    shown = compress_text(report, max(32, wide["raw_tokens"] // 2), name="report.xml")["content"]
    head = "ERROR" if 'errors="1"' in report else "FAILED"  # (an `<error>`: an erroring testcase)
    assert f"{head} {failing}" in shown and says in shown and totals in shown


def test_a_flaky_rerun_and_a_skip_and_a_place_are_said() -> None:
    doc = read(SUREFIRE)
    assert doc.report is not None
    flaky = next(c for c in doc.report.cases if c.name == "flaky")
    assert flaky.outcome == "passed" and flaky.reruns == 1
    content = compress_text(SUREFIRE, 250, name="TEST-x.xml")["content"]
    assert "1 flaky (passed on a rerun)" in content and "SKIPPED com.acme.LedgerTest.network: offline" in content
    php = compress_text(PHPUNIT, 120, name="junit.xml")["content"]
    assert "(/app/tests/LedgerTest.php:17)" in php


def test_a_pytest_report_of_302_tests_keeps_both_failures_at_6_percent(pytest_report: str) -> None:
    """The issue's case: 302 tests, 2 failing, 400 tokens (about 4 % of raw)."""
    record = compress_text(pytest_report, 400, name="report.xml")
    content = record["content"]
    assert record["type"] == "junit" and record["compacted_tokens"] <= 400
    assert "\nJUnit report: 303 tests in 1 suite: 2 failed, 1 skipped, 300 passed\n" in content
    # Failing testcases of one class in a row: the class and its file once, each name with its line.
    assert content.startswith("FAILED in test_money (test_money.py):\n  test_total_balance (")
    assert "AssertionError: balance is off" in content
    assert "\n  test_parse (" in content and "ValueError: cannot parse '1,5'" in content
    assert "PASSED" not in content and "test_ok" not in content  # passing testcases only counted
    assert record["retention"]["probes"] == record["retention"]["kept"]


def test_tier_2_keeps_every_failing_testcase_and_a_tight_cut_names_them_before_any_message(
    pytest_report: str,
) -> None:
    from ctxguard.engine.tiers import compress
    from ctxguard.kinds.junit.plan import rows
    from ctxguard.tokens.load import get_tokenizer

    tokenizer = get_tokenizer()
    rendered = "".join(row.text for row in rows(read(pytest_report)))
    # A report just over its budget: tier 2, the rendering whole (it is far smaller than the XML).
    raw = tokenizer.count(pytest_report)
    record = compress(pytest_report, int(raw / 1.4), tokenizer=tokenizer, name="r.xml")
    assert record.tier == 2 and not record.truncated and record.content == rendered
    # Tight: every failing testcase named, its message cut in place; tighter still, the testcases
    # a cut leaves out are counted, and no message is shown before every testcase is named.
    tight = compress(pytest_report, 60, tokenizer=tokenizer, name="r.xml")
    assert tight.truncated and "  test_total_balance …\n  test_parse …\n" in tight.content
    assert tight.retention is not None and "failing testcases" not in tight.retention.get("left_out", {})
    seen = set()
    for budget in range(32, 61):
        cut = compress(pytest_report, budget, tokenizer=tokenizer, name="r.xml")
        named = [name for name in ("test_total_balance", "test_parse") if f"  {name} " in cut.content]
        assert cut.retention is not None
        assert cut.retention.get("left_out", {}).get("failing testcases", (0,))[0] == 2 - len(named)
        assert len(named) == 2 or f"({2 - len(named)} failing testcase" in cut.content
        assert len(named) == 2 or "Error" not in cut.content  # (no message before every name)
        seen.add(len(named))
    assert {0, 2} <= seen  # (one name alone never fits: its gap line says as much as the other)


def test_a_tight_cut_gives_every_long_message_its_head_before_any_its_tail() -> None:
    """Six doctest failures, each with a message of a few hundred characters (its own text run
    into one line): a tight cut names all six with the first hundred characters of each message
    (what says which doctest failed) before it shows the rest of any, each cut in place."""
    cases = "".join(
        f'<testcase classname="pkg.mod" name="{name}" file="pkg/mod.py" line="{10 * k}">'
        f'<failure message="Failed doctest test for pkg.mod.{name} File &quot;/home/ci/work/pkg/mod.py&quot;, '
        f"line {10 * k}, in {name} {'-' * 70} File &quot;/home/ci/work/pkg/mod.py&quot;, line {10 * k + 7}, "
        f'in pkg.mod.{name} Failed example: list({name}([1, 2, 3])) Expected: [1, 2] Got: [2, 3]" '
        f'type="AssertionError">traceback</failure></testcase>'
        for k, name in enumerate(("adjacent", "circular_shifts", "locate", "replace", "rlocate", "windowed"))
    )
    passing = "".join(f'<testcase classname="pkg.mod" name="ok_{k}"/>' for k in range(140))
    report = f'<testsuite name="doctest" tests="146" failures="6">{cases}{passing}</testsuite>'
    record = compress_text(report, 260, name="TEST-doctest.xml")
    assert record["truncated"] and record["type"] == "junit"
    for name in ("adjacent", "circular_shifts", "locate", "replace", "rlocate", "windowed"):
        assert f"Failed doctest test for pkg.mod.{name} " in record["content"], name
    assert record["content"].count("…") >= 4  # (the messages' rest left out in place)


def _mixin_report() -> str:
    """A test mixin given to six cache classes (as unittest suites share tests): the same four
    testcases fail in each, of two causes, and each class fails one test of its own; 300 pass."""
    causes = {"test_size": "ValueError: value too large", "test_pickle": "AssertionError: 2 != 1"}
    cases = ""
    for c, cls in enumerate(("Cache", "FIFOCache", "LFUCache", "LRUCache", "MRUCache", "RRCache")):
        for n, name in enumerate(("test_size", "test_size_param", "test_pickle", "test_missing")):
            says = causes.get(name, causes["test_size"] if n < 2 else causes["test_pickle"])
            cases += (
                f'<testcase classname="tests.test_{cls.lower()}.{cls}Test" name="{name}">'
                f'<failure message="{says}">Traceback (most recent call last):\n{says}\n</failure></testcase>'
            )
        cases += (
            f'<testcase classname="tests.test_{cls.lower()}.{cls}Test" name="test_{cls.lower()}_own">'
            f'<failure message="AssertionError: {c} != {c + 1}">AssertionError</failure></testcase>'
        )
    cases += "".join(f'<testcase classname="tests.test_other.OtherTest" name="test_ok_{k}"/>' for k in range(300))
    return f'<testsuite name="pytest" tests="336" failures="30">{cases}</testsuite>'


def test_a_test_failing_again_in_another_class_comes_after_every_other_and_its_cause() -> None:
    """A mixin's tests failing of one cause in six classes: a tight cut names each failing test
    once, with each cause, and every class's own failure, before it names any of them again
    (under `FAILED as above in <class>:`); a bigger room names them all."""
    report = _mixin_report()
    again = []
    for budget in range(200, 700, 25):
        cut = compress_text(report, budget, name="TEST-mixin.xml")
        content = cut["content"]
        assert cut["truncated"] and cut["type"] == "junit"
        for name in ("test_size", "test_size_param", "test_pickle", "test_missing"):
            assert f"  {name}" in content, (budget, name)
        assert "ValueError: value too large" in content and "AssertionError: 2 != 1" in content
        for cls in ("cache", "fifocache", "lfucache", "lrucache", "mrucache", "rrcache"):
            assert f"test_{cls}_own" in content, (budget, cls)
        if "FAILED as above in " in content:
            again.append(budget)
            assert content.index("test_rrcache_own") < content.index("FAILED as above in ")
    assert again and again[-1] == 675  # (the repeats once every failing test and cause is named)
    whole = compress_text(report, 2000, name="TEST-mixin.xml")["content"]
    assert whole.count("FAILED as above in ") == 5 and whole.count("  test_size") == 2 * 6
    assert "failing testcase" not in whole.split("JUnit report:")[0]  # (none left out)


def _one_cause_report() -> str:
    """Twelve testcases failing of one cause (one message, one traceback each), one of another
    with a message too long for its row, five of five other causes and 300 passing ones, as
    unittest runners write them: the message on the row, the traceback as the text."""
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/unittest/case.py", line 57, in testPartExecutor\n    yield\n'
        '  File "/ci/pkg/tests/test_grouper.py", line {line}, in {name}\n    list(grouper(data, 3, incomplete="pad"))\n'
        "ValueError: Expected fill, strict, or ignore\n"
    )
    cases = "".join(
        f'<testcase classname="tests.GrouperTests" name="test_fill_{k}" time="0.001">'
        f'<error type="ValueError" message="Expected fill, strict, or ignore">'
        f"{trace.format(line=40 + n, name=f'test_fill_{k}')}</error></testcase>"
        for n, k in enumerate("abcdefghijkl")
    )
    long = "Lists differ: " + ", ".join(f"'item {k}'" for k in range(36))
    cases += (
        f'<testcase classname="tests.WindowTests" name="test_step"><failure type="AssertionError" message="{long}">'
        f'Traceback (most recent call last):\n  File "/ci/pkg/tests/test_window.py", line 9, in test_step\n'
        f"AssertionError: {long}\n</failure></testcase>"
    )
    cases += "".join(
        f'<testcase classname="tests.ParseTests" name="test_{word}"><failure type="ValueError" '
        f'message="cannot parse {word!r}">Traceback (most recent call last):\n'
        f'  File "/ci/pkg/tests/test_parse.py", line {9 + n}, in test_{word}\nValueError: cannot parse {word!r}\n'
        f"</failure></testcase>"
        for n, word in enumerate(("comma", "dash", "blank", "unicode", "sign"))
    )
    cases += "".join(f'<testcase classname="tests.OtherTests" name="test_ok_{k}"/>' for k in range(300))
    return f'<testsuite name="unittest" tests="318" errors="12" failures="6">{cases}</testsuite>'


def test_each_cause_has_its_text_once_and_each_name_its_texts_first_line() -> None:
    """The text under a failing testcase's name repeats no message its row shows whole; of
    testcases failing of one cause, the first one's text comes with the other causes' first
    lines, the rest after them; and a name comes with its text's first line, never alone."""
    from ctxguard.kinds.junit.plan import SHORT_MESSAGE, rows

    report = _one_cause_report()
    rendered = "".join(row.text for row in rows(read(report)))
    assert "--- tests.GrouperTests.test_fill_a\n  | Traceback (most recent call last):\n" in rendered
    long = next(line for line in rendered.splitlines() if line.startswith("--- tests.WindowTests.test_step: "))
    assert len(long) > SHORT_MESSAGE  # (said whole where the row clips it)
    content = compress_text(report, 800, name="TEST-unittest.xml")["content"]
    assert "--- tests.GrouperTests.test_fill_a\n  | Traceback" in content
    assert "--- tests.WindowTests.test_step: AssertionError: Lists differ: 'item 0'" in content
    assert "--- tests.GrouperTests.test_fill_b" not in content  # (the same cause: after the others)
    for line in content.splitlines():
        assert not line.startswith("--- ") or ": Expected fill" not in line  # (its row says it)
    for budget in range(480, 720, 20):
        lines = compress_text(report, budget, name="TEST-unittest.xml")["content"].splitlines()
        names = [k for k, line in enumerate(lines) if line.startswith("--- ")]
        assert names and all(lines[k + 1].startswith("  | ") for k in names), budget


@pytest.mark.parametrize(
    ("name", "head", "kind"),
    [
        ("report.xml", '<?xml version="1.0"?>\n<testsuites name="x"></testsuites>\n', "junit"),
        ("TEST-com.acme.LedgerTest.xml", '<testsuite name="x" tests="0"/>\n', "junit"),
        ("pom.xml", '<?xml version="1.0"?>\n<project><modelVersion>4.0.0</modelVersion></project>\n', "text"),
        ("results", '<testsuites><testsuite name="a"/></testsuites>\n', "junit"),  # (no suffix: the content)
    ],
)
def test_told_by_suffix_and_content(name: str, head: str, kind: str) -> None:
    assert classify(name, head) == kind


BILLION_LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
    + "".join(f' <!ENTITY lol{i} "{f"&lol{i - 1};" * 10 if i > 1 else "&lol;" * 10}">\n' for i in range(1, 10))
    + ']>\n<testsuites><testsuite name="x"><testcase name="a" classname="c">'
    '<failure message="&lol9;">x</failure></testcase></testsuite></testsuites>\n'
)


@pytest.mark.parametrize(
    ("report", "why"),
    [
        (BILLION_LAUGHS, "document type declaration"),
        (
            '<?xml version="1.0"?>\n<!DOCTYPE t [ <!ENTITY x SYSTEM "file:///etc/passwd"> ]>\n'
            '<testsuites><testsuite name="x"><testcase name="a"><failure message="&x;"/></testcase>'
            "</testsuite></testsuites>\n",
            "document type declaration",
        ),
        ('<testsuites><testsuite name="x"><testcase name="a"></testsuite></testsuites>\n', "not well-formed XML"),
        ("<testsuites>" + "<testsuite>" * 100 + "</testsuite>" * 100 + "</testsuites>\n", "nested deeper than 64"),
    ],
)
def test_a_hostile_or_broken_report_is_a_clear_record_read_as_text(report: str, why: str) -> None:
    started = time.monotonic()
    record = compress_text(report, 40, name="report.xml")
    assert time.monotonic() - started < 1.0
    assert record["type"] == "junit" and any(why in note for note in record["notes"])
    assert "root:" not in record["content"] and "lollollol" not in record["content"]
    assert compress_text(report, 4000, name="report.xml")["content"] == report  # tier 1: as it is


def test_the_digest_groups_failing_testcases_by_what_they_say() -> None:
    from ctxguard.kinds.registry import KINDS

    found = KINDS["junit"].facts(read(SUREFIRE))
    assert [(f.cause, f.where, f.tests) for f in found.failures] == [
        (
            "org.opentest4j.AssertionFailedError: expected: <1.50> but was: <15.0>",
            None,
            ["com.acme.LedgerTest.rounding"],
        )
    ]


def test_the_example_report_is_read_as_a_report(tmp_path: Path) -> None:
    from ctxguard.main import main

    path = tmp_path / "report.xml"
    path.write_text(JEST)
    assert main(["compress", str(path), "--budget", "60"]) == 0


def test_each_failure_of_one_testcase_is_said(tmp_path: Path) -> None:
    """pytest writes a `<failure>` per failing subTest of one testcase: each is said, once."""
    (tmp_path / "test_sub.py").write_text(
        "import unittest\n\n\nclass Windows(unittest.TestCase):\n"
        "    def test_sizes(self):\n"
        "        for n in (1, 2, 3):\n"
        "            with self.subTest(n=n):\n"
        "                self.assertEqual(n % 3, 1, f'size {n} is off')\n"
    )
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml=r.xml", "test_sub.py"]
    subprocess.run(command, cwd=tmp_path, capture_output=True)
    report = (tmp_path / "r.xml").read_text()
    doc = read(report)
    assert doc.report is not None and [c.name for c in doc.report.failing] == ["test_sizes"]
    says = [doc.report.failing[0].says, *doc.report.failing[0].more]
    assert len(says) == 2 and "size 2 is off" in says[0] and "size 3 is off" in says[1]
    content = compress_text(report, 120, name="r.xml")["content"]
    assert "size 2 is off" in content and "\n  + AssertionError: 0 != 1 : size 3 is off\n" in content


def _deep_traceback_report() -> str:
    """Three testcases failing deep inside a library (a traceback of 64 frames: recursion), as
    a unittest runner writes them, and 200 passing ones."""
    frames = "".join(
        f'  File "/ci/pkg/walk.py", line {100 + k}, in visit_{k}\n    return visit_{k + 1}(node.child)\n'
        for k in range(64)
    )
    cases = "".join(
        f'<testcase classname="tests.WalkTests" name="test_{name}"><error type="RecursionError" '
        f'message="maximum recursion depth exceeded while visiting {name}">Traceback (most recent call last):\n'
        f'  File "/ci/tests/test_walk.py", line {9 + n}, in test_{name}\n    walk(tree_{name})\n{frames}'
        f'  File "/ci/pkg/walk.py", line 7, in leaf\n    raise RecursionError(f"too deep at {{node}}")\n'
        f"RecursionError: maximum recursion depth exceeded while visiting {name}\n</error></testcase>"
        for n, name in enumerate(("tree", "forest", "grove"))
    )
    cases += "".join(f'<testcase classname="tests.OtherTests" name="test_ok_{k}"/>' for k in range(200))
    return f'<testsuite name="unittest" tests="203" errors="3">{cases}</testsuite>'


def test_a_long_traceback_shows_its_end_and_says_first_where_it_failed() -> None:
    """A failure text longer than TEXT_LINES is rendered by its first lines and its last ones
    (where a traceback ends), the lines between counted; and the line that says where it failed
    (a traceback's innermost frame, with its code) comes with the name, before the others."""
    from ctxguard.kinds.junit.plan import rows

    report = _deep_traceback_report()
    rendered = "".join(row.text for row in rows(read(report)))
    assert '  |   File "/ci/pkg/walk.py", line 7, in leaf\n  |     raise RecursionError(' in rendered
    assert "more lines of its text)" in rendered
    content = compress_text(report, 330, name="TEST-walk.xml")["content"]
    for name in ("tree", "forest", "grove"):
        assert f"--- tests.WalkTests.test_{name}\n  | Traceback (most recent call last):\n" in content
    assert content.count('File "/ci/pkg/walk.py", line 7, in leaf') == 3  # (each one's innermost frame)
    assert "in visit_30" not in content  # (the frames between: after every innermost one)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(['  File "x.py", line 3, in f', "    f(x)", "> assert x", "x.py:3: AssertionError", "noise"]),
        min_size=30,
        max_size=150,
    )
)
def test_every_line_of_a_failure_text_is_shown_or_counted_once(body: list[str]) -> None:
    """However long a failure's text and wherever it says it failed, its rendering shows each
    line at most once and counts the lines it leaves out in place: none is lost."""
    from ctxguard.kinds.junit.model import Case
    from ctxguard.kinds.junit.plan import _details

    text = "\n".join(["Traceback (most recent call last):", *body, "ValueError: no"])
    case = Case(suite="s", classname="tests.T", name="test_x", outcome="error", message="ValueError: no", text=text)
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    shown, counted = 0, 0
    for row in _details(case, 1, 0):
        for line in row.text.splitlines():
            if more := re.match(r"  \| \.\.\. \((\d+) more lines? of its text\)$", line):
                counted += int(more.group(1))
            elif line.startswith("  | "):
                shown += 1
    assert shown + counted == len(lines)  # (its first line with its name, in the same row)
