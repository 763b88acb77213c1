"""The failure index: each root cause of a test run once, with its first error line, where it was
raised and its tests; the digest shows it as a table and leaves its lines out of the others."""

from __future__ import annotations

from ctxguard import digest
from ctxguard.kinds.log.failures import Failure, failures
from ctxguard.kinds.registry import KINDS
from tests.conftest import SampleReader


def _index(text: str) -> list[Failure]:
    return failures(text.splitlines(keepends=True))


def test_pytest_summary_and_blocks_give_the_whole_message_and_the_crash_line(sample: SampleReader) -> None:
    assert _index(sample("pytest-failure.log")) == [
        Failure(
            "AssertionError: assert Decimal('15') == Decimal('1.5')",
            "tests/test_parse.py:12",
            ["tests/test_parse.py::test_parse_amount"],
            ["tests/test_parse.py:12"],
        )
    ]


def test_a_short_traceback_gives_its_innermost_frame_as_the_place() -> None:
    """`pytest --tb=short` writes no `path:line: Error` line: a block's frames are `path:line: in
    func`, the innermost last before its `E` line, and that is where it was raised."""
    text = (
        "=================================== FAILURES ===================================\n"
        "__________________________________ test_diff ___________________________________\n"
        "toolz/tests/test_itertoolz.py:489: in test_diff\n"
        "    assert list(diff([1, 2], [10])) == [(1, 10)]\n"
        "toolz/itertoolz.py:946: in diff\n"
        "    raise TypeError('Too few sequences given (min 2 required)')\n"
        "E   TypeError: Too few sequences given (min 2 required)\n"
        "=========================== short test summary info ============================\n"
        "FAILED toolz/tests/test_itertoolz.py::test_diff - TypeError: Too few sequence...\n"
        "======================== 1 failed, 179 passed in 1.00s =========================\n"
    )
    assert _index(text) == [
        Failure(
            "TypeError: Too few sequences given (min 2 required)",
            "toolz/itertoolz.py:946",
            ["toolz/tests/test_itertoolz.py::test_diff"],
            ["toolz/tests/test_itertoolz.py:489", "toolz/itertoolz.py:946"],  # (the frames, innermost last)
        )
    ]


def test_one_root_cause_shows_once_with_its_tests() -> None:
    blocks, summary = [], []
    for name in ("test_a", "test_b", "test_c"):
        blocks.append(
            f"___________ Tests.{name} ___________\n\n    def {name}(self):\n"
            f">       windowed(range(3), 2, step=0)\n"
            f"E       ValueError: step must be >= 1 (got 0 in Tests.{name})\n\n"
            "pkg/more.py:846: ValueError\n"
        )
        summary.append(f"FAILED tests/test_more.py::Tests::{name} - ValueError: step m...\n")
    verbose = "".join(f"tests/test_more.py::Tests::{n} FAILED  [ 50%]\n" for n in ("test_a", "test_b", "test_c"))
    text = (
        verbose
        + "=== FAILURES ===\n"
        + "".join(blocks)
        + "=== short test summary info ===\n"
        + "".join(summary)
        + "=== 3 failed, 9 passed in 0.12s ===\n"
    )
    assert _index(text) == [
        Failure(
            "ValueError: step must be >= 1 (got 0 in Tests.test_a)",
            "pkg/more.py:846",
            [f"tests/test_more.py::Tests::{n}" for n in ("test_a", "test_b", "test_c")],
            ["pkg/more.py:846"],
        )
    ]


def test_jest_go_cargo_and_unittest_failures(sample: SampleReader) -> None:
    assert [(f.cause, f.where, f.tests) for f in _index(sample("jest-failures.log"))] == [
        ("expect(received).toThrow(expected)", "src/options.test.js:42:46", ["options › rejects a missing value"]),
        (
            "expect(received).toBe(expected) // Object.is equality",
            "src/options.test.js:51:33",
            ["options › keeps the default port"],
        ),
    ]
    assert [(f.cause, f.where, f.tests) for f in _index(sample("go-test-failures.log"))] == [
        ("Divide(1, 0) = 0, want an error", "calc_test.go:21", ["TestDivide"]),
        ('Parse("1,5") = 15, want 1.5', "parse_test.go:14", ["TestParse"]),
        ('Parse("") = 0, want 1.5', "parse_test.go:14", ["TestParseEmpty"]),
    ]
    assert [(f.cause, f.where, f.tests) for f in _index(sample("cargo-test-failures.log"))] == [
        ("assertion `left == right` failed", "src/lib.rs:21", ["tests::divides"]),
        (
            "called `Result::unwrap()` on an `Err` value: ParseIntError { kind: InvalidDigit }",
            "src/lib.rs:30",
            ["tests::parses"],
        ),
    ]
    assert [(f.cause, f.where, f.tests) for f in _index(sample("unittest-failures.log"))] == [
        (
            "FileNotFoundError: [Errno 2] No such file or directory: 'missing.csv'",
            "/src/calc/load.py:8",
            ["tests.test_calc.LoadTests.test_load"],
        ),
        ("AssertionError: 15 != 1.5", "/src/tests/test_calc.py:12", ["tests.test_calc.ParseTests.test_parse"]),
    ]


def test_a_service_log_has_no_failure_index(sample: SampleReader) -> None:
    assert _index(sample("traceback.log")) == [] and _index(sample("logcat-threadtime.log")) == []
    assert _index("2024-05-01 ERROR Failed to connect - retrying\nERROR something else happened\n") == []


def test_the_digest_shows_the_index_as_a_table_and_the_other_errors_apart(sample: SampleReader) -> None:
    items = [
        (name, KINDS["log"].facts(KINDS["log"].read(sample(name), name)))
        for name in ("jest-failures.log", "cargo-test-failures.log", "gha-error.log")
    ]
    text = digest.render(digest.facts(items), [])
    assert "Failing tests in logs (4, 4 causes):" in text
    assert "| cargo-test-failures.log | tests::divides | assertion `left == right` failed | src/lib.rs:21 |" in text
    other = text.split("Other error and warning lines in logs", 1)[1]
    assert "##[error]Process completed with exit code 1." in other
    assert "●" not in other and "FAILED" not in other.replace("test result: FAILED", "")
