from __future__ import annotations

import random
import re

from ctxguard import compress_text
from ctxguard.handlers.log import has_level, important_lines, is_important, strip_ansi
from tests.conftest import SAMPLES
from tests.helpers import budget_for_tier2, independent_count


def _tier2(text: str, name: str) -> str:
    record = compress_text(text, budget_for_tier2(text, 1.4), name=name)
    assert record["tier"] == 2, record["tier"]
    assert independent_count(record["content"]) <= record["budget"]
    return str(record["content"])


def test_traceback_kept_whole_with_final_exception_line(sample) -> None:  # type: ignore[no-untyped-def]
    content = _tier2(sample("traceback.log"), "worker.log")
    block = sample("traceback.log").split("ERROR batch 18 failed\n")[1].split("2024-05-01 10:00:00,230")[0]
    assert block in content
    assert "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]" in content
    assert "WARNING slow query" in content
    assert "info lines omitted)" in content
    lines = sample("traceback.log").splitlines(keepends=True)
    assert content.startswith("".join(lines[:10])) and content.endswith("".join(lines[-10:]))


def test_pytest_failure_keeps_assertion_and_summary(sample) -> None:  # type: ignore[no-untyped-def]
    content = _tier2(sample("pytest-failure.log"), "pytest.log")
    assert "E       AssertionError: assert Decimal('15') == Decimal('1.5')" in content
    assert "FAILED tests/test_parse.py::test_parse_amount" in content
    assert "1 failed, 119 passed" in content


def test_github_actions_error_line(sample) -> None:  # type: ignore[no-untyped-def]
    content = _tier2(sample("gha-error.log"), "job.log")
    assert "##[error]Process completed with exit code 1." in content


def test_json_lines_log_with_level_field(sample) -> None:  # type: ignore[no-untyped-def]
    content = _tier2(sample("json-lines.log"), "service.log")
    assert "upstream timeout calling billing" in content


def test_levels_are_whole_words() -> None:
    assert not is_important("INFO pending_errors=0 retry_queue=3")
    assert not is_important("INFO 0 errors so far")
    assert is_important("2024 ERROR boom")
    assert is_important("Jun 14 15:16:01 combo sshd[19939]: error: PAM: authentication failure")
    assert is_important('{"level": "error", "msg": "x"}')


def test_ansi_codes_are_stripped() -> None:
    assert strip_ansi("\x1b[31mERROR\x1b[0m red") == "ERROR red"


def test_java_stack_frames_follow_their_error() -> None:
    lines = ["INFO start", "ERROR java.lang.IllegalStateException: closed",
             "    at com.example.Pool.get(Pool.java:42)", "    at com.example.Main.run(Main.java:7)",
             "INFO next"]
    assert important_lines(lines) == [False, True, True, True, False]


# The level test as one regex, as it read before has_level was written for speed; has_level
# must answer exactly as this does.
_REFERENCE_LEVEL = re.compile(
    r"\b(?:ERROR|ERR|WARN|WARNING|FATAL|CRITICAL|CRIT|SEVERE|PANIC|EMERG|ALERT|FAILED|FAILURE)\b"
    r"|##\[(?:error|warning)\]|^::(?:error|warning)\b"
    r"|\b(?:[Ee]rror|[Ww]arning|[Ff]atal|[Cc]ritical|[Pp]anic|[Ff]ailed)\b(?=[:\]!]|\s)"
    r"|^E {2,}\S|\bpanicked at\b|\bSegmentation fault\b|\bAssertionError\b"
)


def test_has_level_answers_as_the_reference_pattern() -> None:
    words = ["ERROR", "ERR", "ERRNO", "xERROR", "_WARN", "WARNING:", "error:", "Error ", "errors",
             "Failed!", "failed", "##[error]", "x##[warning]", "::error", " ::error", "E   x", "E  ",
             "panicked at", "Segmentation fault", "AssertionError", "MyAssertionError", "é", "FATAL",
             "CRITICAL]", "pending_errors", " ", "\t", ":", "[", "]", "1", "Critical:", "ÉERROR"]
    rnd = random.Random(3)
    lines = ["".join(rnd.choice(words) for _ in range(rnd.randint(1, 6))) for _ in range(20000)]
    lines += (SAMPLES / "traceback.log").read_text().splitlines()
    for line in lines:
        assert has_level(line) == bool(_REFERENCE_LEVEL.search(line)), line
