from __future__ import annotations

import itertools
import random
import re

import pytest

from ctxguard import compress_text
from ctxguard.kinds.log.lines import has_level, is_important, strip_ansi, template
from ctxguard.kinds.log.model import important_lines
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
    assert re.search(r"\.\.\. \(lines \d+-\d+ omitted\)\n", content)
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


def test_a_runners_exit_status_is_not_how_the_run_ended() -> None:
    """Every failed GitHub Actions job ends with `##[error]Process completed with exit code 1.`
    (GitLab's and Jenkins' with their own words): the run's summary line is how it ended, and at
    the 64-token floor the failed test is named before that line; tier 2 still keeps it (an
    error line)."""
    passing = "".join(f"tests/test_m{i}.py ........................................ [ {i}%]\n" for i in range(60))
    failure = "E       TypeError: Too few sequences given (min 2 required)\n"
    text = (
        passing
        + "=================================== FAILURES ===================================\n"
        + "__________________________________ test_diff ___________________________________\n"
        + failure
        + "=========================== short test summary info ============================\n"
        + "FAILED toolz/tests/test_itertoolz.py::test_diff - TypeError: Too few sequences given (min 2...\n"
        + "======================== 1 failed, 179 passed in 1.43s =========================\n"
    )
    for status in (
        "##[error]Process completed with exit code 1.\n",
        "ERROR: Job failed: exit code 1\n",
        "ERROR: script returned exit code 1\n",
    ):
        cut = compress_text(text + status, 64, name="job.log")["content"]
        assert "FAILED toolz/tests/test_itertoolz.py::test_diff" in cut, status
        assert "1 failed, 179 passed in 1.43s" in cut
        assert status in _tier2(text + status, "job.log")


def test_a_unittest_verbose_run_names_each_failure_once_and_never_shows_its_passing_tests() -> None:
    """`python -m unittest -v`: a failed test is named by its `-v` line and by its `FAIL:` block;
    a tight cut names it by the block (where its traceback and exception are) and gives its
    exception, and the passing tests' `... ok` lines are never shown as the failures' context."""
    passing = [f"test_case_{i} (pkg.tests.test_m.TestM.test_case_{i}) ... ok\n" for i in range(300)]
    text = (
        "".join(passing[:150])
        + "test_keys (pkg.tests.test_m.TestM.test_keys) ... FAIL\n"
        + "".join(passing[150:])
        + "\n"
        + "=" * 70
        + "\n"
        + "FAIL: test_keys (pkg.tests.test_m.TestM.test_keys)\n"
        + "-" * 70
        + "\n"
        + "Traceback (most recent call last):\n"
        + '  File "/work/pkg/tests/test_m.py", line 46, in test_keys\n'
        + "    self.assertEqual(\n"
        + "AssertionError: {'1': 'true'} != {'true': 'true'}\n\n"
        + "-" * 70
        + "\n"
        + "Ran 301 tests in 0.473s\n\n"
        + "FAILED (failures=1)\n"
    )
    cut = compress_text(text, 110, name="unittest.log")["content"]
    assert "FAIL: test_keys (pkg.tests.test_m.TestM.test_keys)\n" in cut
    assert "AssertionError: {'1': 'true'} != {'true': 'true'}\n" in cut
    assert "FAILED (failures=1)" in cut
    assert "... ok" not in cut and "test_keys (pkg.tests.test_m.TestM.test_keys) ... FAIL" not in cut


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
    lines = [
        "INFO start",
        "ERROR java.lang.IllegalStateException: closed",
        "    at com.example.Pool.get(Pool.java:42)",
        "    at com.example.Main.run(Main.java:7)",
        "INFO next",
    ]
    assert important_lines("\n".join(lines)) == [False, True, True, True, False]


# The level test as one regex, as it read before has_level was written for speed; has_level
# must answer exactly as this does.
_REFERENCE_LEVEL = re.compile(
    r"\b(?:ERROR|ERR|WARN|WARNING|FATAL|CRITICAL|CRIT|SEVERE|PANIC|EMERG|ALERT|FAILED|FAILURE)\b"
    r"|##\[(?:error|warning)\]|^::(?:error|warning)\b"
    r"|\b(?:[Ee]rror|[Ww]arning|[Ff]atal|[Cc]ritical|[Pp]anic|[Ff]ailed)\b(?=[:\]!]|\s)"
    r"|^E {2,}\S|\bpanicked at\b|\bSegmentation fault\b|\bAssertionError\b"
)


def test_has_level_answers_as_the_reference_pattern() -> None:
    words = [
        "ERROR",
        "ERR",
        "ERRNO",
        "xERROR",
        "_WARN",
        "WARNING:",
        "error:",
        "Error ",
        "errors",
        "Failed!",
        "failed",
        "##[error]",
        "x##[warning]",
        "::error",
        " ::error",
        "E   x",
        "E  ",
        "panicked at",
        "Segmentation fault",
        "AssertionError",
        "MyAssertionError",
        "é",
        "FATAL",
        "CRITICAL]",
        "pending_errors",
        " ",
        "\t",
        ":",
        "[",
        "]",
        "1",
        "Critical:",
        "ÉERROR",
    ]
    rnd = random.Random(3)
    lines = ["".join(rnd.choice(words) for _ in range(rnd.randint(1, 6))) for _ in range(20000)]
    lines += (SAMPLES / "traceback.log").read_text().splitlines()
    for line in lines:
        assert has_level(line) == bool(_REFERENCE_LEVEL.search(line)), line


def _reference_important_lines(lines: list[str]) -> list[bool]:
    """important_lines as it read line by line, before the one-pass scan."""
    from ctxguard.kinds.log.lines import PY_TB_START, SECTION, STACK_LINE

    marks = [False] * len(lines)
    in_trace = False
    for i, line in enumerate(lines):
        if PY_TB_START.match(line):
            in_trace = True
        if in_trace:
            marks[i] = True
            if not line.startswith((" ", "\t")) and not PY_TB_START.match(line):
                in_trace = False  # the `Type: message` line, in column 0, ends it
            continue
        if is_important(line) or SECTION.match(line):
            marks[i] = True
        elif STACK_LINE.match(line) and i and marks[i - 1]:
            marks[i] = True
    return marks


_LOG_PIECES = [
    "INFO started worker 12\n",
    "2024-01-01 ERROR db down\n",
    "WARNING: disk 91%\n",
    "\n",
    "   \n",
    "Traceback (most recent call last):\n",
    '  File "app.py", line 3, in <module>\n',
    "    run()\n",
    "ValueError: bad amount\n",
    "During handling of the above exception, another exception occurred:\n",
    "    at com.example.Main.run(Main.java:7)\n",
    "Caused by: java.io.IOException\n",
    "E   assert 1 == 2\n",
    "::error file=a.py::boom\n",
    "##[error]Process completed with exit code 1.\n",
    "=== FAILURES ===\n",
    "---- Captured log ----\n",
    '{"level": "crit", "msg": "x"}\n',
    "pending_errors=0\n",
    "\x1b[31mERROR\x1b[0m red\n",
    "INFO Traceback (most recent call last): quoted\n",
    "  Traceback (most recent call last):\n",
    "odd\rbreak ERROR\n",
    "form\x0cfeed\n",
    "KeyboardInterrupt\n",
    "done",
]


@pytest.mark.parametrize("seed", range(60))
def test_scan_reads_a_log_as_the_line_by_line_readers_do(seed: int) -> None:
    from ctxguard.kinds.log.lines import Lines
    from ctxguard.kinds.log.model import scan

    rnd = random.Random(seed)
    pieces = [p for p in _LOG_PIECES if seed % 3 or p not in ("odd\rbreak ERROR\n", "form\x0cfeed\n")]
    text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 80)))
    read = scan(text)
    lines = strip_ansi(text).splitlines(keepends=True)
    assert read.lines == lines
    reader = Lines()
    expected = {i: kind for i, line in enumerate(lines) if (kind := reader.kind(line)) is not None}
    assert read.kinds == expected
    assert important_lines(text) == _reference_important_lines(lines)


def test_template_matches_the_plain_alternation_it_speeds_up() -> None:
    plain = re.compile(r"0x[0-9a-fA-F]+|\d+|[0-9a-f]{8,}")
    rng = random.Random(5)
    alphabet = "0123456789abcdefABCDEFxXg ._:-٣٤"  # (with Arabic-Indic digits: \d is Unicode)
    for _ in range(5000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randrange(40)))
        assert template(line) == plain.sub("#", line.strip()), line
    assert template("job 0x1F at deadbeef99 took 12ms") == "job # at # took #ms"


def test_logcat_single_letter_levels_are_errors_and_warnings(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("logcat-threadtime.log")
    record = compress_text(text, int(independent_count(text) * 0.2), name="device.log")
    assert record["tier"] == 3
    for line in text.splitlines():
        if " E AndroidRuntime: " in line or " W ActivityManager: Unable to start service" in line[:80]:
            assert line.split(": ", 1)[1][:40] in record["content"], line
    assert is_important("E1123 12:34:56.789012  4242 server.cc:88] connection reset")
    assert is_important("W/ActivityManager(  512): Unable to start service")
    assert not is_important("03-17 16:13:38.811  1702  2395 D WindowManager: drawn")


def test_a_cut_log_uses_its_budget(sample) -> None:  # type: ignore[no-untyped-def]
    """Tier 3 fills the budget, not just the head, tail and errors (861 of 60,000 tokens once)."""
    text = sample("logcat-threadtime.log")
    raw = independent_count(text)
    for share in (0.9, 0.6, 0.3):
        budget = int(raw * share)
        record = compress_text(text, budget, name="device.log")
        assert 0.95 * budget <= independent_count(record["content"]) <= budget, (share, record["tier"])


@pytest.mark.parametrize("share", [0.3, 0.5, 0.7, 0.9])
def test_traceback_lines_never_shown_without_the_exception_line(sample, share: float) -> None:  # type: ignore[no-untyped-def]
    text = sample("traceback.log") * 3
    content = compress_text(text, int(independent_count(text) * share), name="w.log")["content"]
    if '  File "/app/parse.py", line 14, in parse\n' in content:
        assert "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]" in content


def test_jest_failures_survive_and_passing_titles_with_error_do_not_crowd_them(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("jest-failures.log")
    total = compress_text(text, 100_000, name="jest.log")["raw_tokens"]
    for ratio in (0.3, 0.15):
        content = compress_text(text, int(total * ratio), name="jest-failures.log")["content"]
        for needle in (
            "● options › rejects a missing value",
            "● options › keeps the default port",
            "Expected: 8080",
            "Received: 80",
            "Tests:       2 failed, 160 passed, 162 total",
        ):
            assert needle in content, (ratio, needle)
        assert "✓ when unknown option 7 then error" not in content


def test_what_go_test_says_of_a_failing_test_shows_with_its_fail_line() -> None:
    """Go's testing package writes a failing test's message (`    cart_test.go:31: …`) above
    its `--- FAIL:` line: a failure's detail, kept like pytest's `>` line, before the run's
    first and last lines (a tight cut showed `=== RUN TestCase0` and passing tests instead)."""
    lines = []
    for i in range(600):
        lines += [f"=== RUN   TestCase{i}", f"--- PASS: TestCase{i} (0.00s)"]
        if i == 345:
            lines[-1:] = ["    total_test.go:31: Total() = 100, want 107", f"--- FAIL: TestCase{i} (0.00s)"]
    text = "\n".join([*lines, "FAIL", "FAIL\texample.com/shop/cart\t0.412s", "FAIL"]) + "\n"
    content = compress_text(text, independent_count(text) // 100, name="go-test.log")["content"]
    assert "    total_test.go:31: Total() = 100, want 107\n--- FAIL: TestCase345 (0.00s)\n" in content
    assert "FAIL\texample.com/shop/cart\t0.412s" in content


@pytest.mark.parametrize("seed", range(4))
def test_tier_2_keeps_every_error_and_warning_line_or_is_tier_3(seed: int) -> None:
    import random

    rng = random.Random(seed)
    lines = [
        f"2024-05-14 12:00:{i % 60:02d} {'ERROR' if rng.random() < 0.8 else 'INFO'} job {i % 7} step {i}"
        for i in range(400)
    ]
    text = "\n".join(lines) + "\n"
    errors = [line for line in lines if " ERROR " in line]
    total = compress_text(text, 100_000, name="x.log")["raw_tokens"]
    tiers = set()
    for factor in (1.02, 1.2, 1.45):
        record = compress_text(text, int(total / factor), name="job.log")
        tiers.add(record["tier"])
        if record["tier"] == 2:
            assert all(line in record["content"] for line in errors), factor
        else:
            assert record["tier"] == 3 and record["truncated"]
    assert tiers == {2, 3}  # both branches ran: a budget near the raw size is tier 2, a smaller one not


def test_a_compilers_errors_come_before_its_last_note_and_gutter(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("gcc-warnings.log")
    errors = [line for line in text.splitlines() if ": error: " in line]
    assert len(errors) == 3
    for budget in (70, 90, 130):
        content = compress_text(text, budget, name="build.log")["content"]
        kept = [line for line in errors if line in content]
        assert kept == errors[: len(kept)] and kept, budget  # the first errors first, never none
        assert "      |             ^~~~~~~~" not in content  # the last gutter line is not an end
    record = compress_text(text, 130, name="build.log")
    assert all(line in record["content"] for line in errors)
    # Its ends are the lines that say something on their own: not a gutter, not a note.
    from ctxguard.kinds.registry import KINDS

    ends = {
        p.kind: p.value
        for p in KINDS["log"].probes(KINDS["log"].read(text, "build.log"))
        if p.kind in ("first", "last")
    }
    assert ends == {
        "first": "src/parser.c: In function 'parse_number':",
        "last": "src/parser.c:493:1: warning: missing initializer for field 'tp_is_gc' of "
        "'TypeObject' [-Wmissing-field-initializers]",
    }


def test_a_compilers_first_error_comes_first_even_when_the_log_ends_with_another() -> None:
    """The last line of a test run (its summary, a traceback's end) says how the run ended; a
    compiler's last error does not: its first is the likeliest cause of the rest."""
    text = (
        "x.c: In function 'f':\n"
        "x.c:36:9: error: expected ';' before '{' token\n"
        "   36 |         { \\\n"
        "      |         ^\n"
        "x.c:113:9: note: in expansion of macro 'DO_ESCAPE'\n"
        "  113 |         DO_ESCAPE(inp, inp_end, outp);\n"
        "      |         ^~~~~~~~~\n"
        "x.c: In function 'g':\n"
        "x.c:132:56: error: 'delt' undeclared (first use in this function); did you mean 'delta'?\n"
        "  132 |         out = PyUnicode_New(PyUnicode_GET_LENGTH(in) + delt, 65535);\n"
        "      |                                                        ^~~~\n"
        "x.c:132:56: note: each undeclared identifier is reported only once for each function it appears in\n"
    )
    content = compress_text(text, 48, name="build.log")["content"]
    assert "x.c:36:9: error: expected ';' before '{' token" in content and "delt" not in content, content


def test_a_compilers_source_gutter_is_never_shown_without_its_diagnostic(sample) -> None:  # type: ignore[no-untyped-def]
    """` 112 |   code` and `    |   ^~~~` quote code for the diagnostic above them: alone, a caret
    line says nothing, so at every room each gutter line shown has its diagnostic shown too."""
    from ctxguard.kinds.log.plan import _gutters

    text = sample("gcc-warnings.log")
    lines = text.splitlines(keepends=True)
    owners = dict(_gutters(lines))
    assert owners[3] == 1 and owners[4] == 1 and owners[7] == 6  # (zero-based: under lines 2 and 7)
    checked = 0
    for budget in range(40, 260, 10):
        content = compress_text(text, budget, name="build.log")["content"]
        shown = set(content.splitlines(keepends=True))
        for i, owner in owners.items():
            if lines[i] in shown and lines[i].strip().startswith("|"):  # (a caret line: unique text)
                assert lines[owner] in shown, (budget, lines[i], content)
                checked += 1
    assert checked > 10


def _pytest_run(failures: int, goes_on: int) -> str:
    """A pytest run whose failures each print a long `E` message (a diff of two lists), then
    the short test summary and the summary line."""
    out = ["============================= test session starts ==============================\n"]
    out += [f"tests/test_mod{i}.py ........................................ [{i:3d}%]\n" for i in range(40)]
    out.append("\n=================================== FAILURES ===================================\n")
    for k in range(failures):
        out.append(f"_____________________________ test_case_{k} _____________________________\n\n")
        out.append(f"    def test_case_{k}():\n>       assert compute({k}) == expected({k})\n")
        out.append(f"E       AssertionError: Lists differ: [{k}] != [{k}, {k + 1}]\n")
        out += [f"E         element {j}: ({k}, {j}) != ({k + 1}, {j + 1}) in the longer list\n" for j in range(goes_on)]
        out.append(f"\ntests/test_case.py:{10 + k}: AssertionError\n")
    out.append("=========================== short test summary info ============================\n")
    out += [
        f"FAILED tests/test_case.py::test_case_{k} - AssertionError: Lists differ: [{k}]...\n" for k in range(failures)
    ]
    out.append(f"================= {failures} failed, 400 passed, 2 warnings in 3.21s =================\n")
    return "".join(out)


def test_each_place_a_failure_was_raised_is_a_fact_of_its_own() -> None:
    """`tests/test_case.py:10: AssertionError` … `:14:` differ only in their numbers, but each
    says where one failure was raised: a tight cut keeps each, never one line with `(5
    occurrences)` standing for the others."""
    from ctxguard.kinds.log.failures import error_key

    assert error_key("tests/test_case.py:10: AssertionError") != error_key("tests/test_case.py:14: AssertionError")
    assert error_key("conn 10 refused") == error_key("conn 14 refused")  # (a message's numbers: a repeat)
    text = _pytest_run(failures=5, goes_on=8)
    total = compress_text(text, 100_000, name="pytest.log")["raw_tokens"]
    content = compress_text(text, total // 6, name="pytest.log")["content"]
    assert all(f"tests/test_case.py:{10 + k}: AssertionError\n" in content for k in range(5)), content
    assert not re.search(r"test_case\.py:\d+: AssertionError  \(\d+ occurrences\)", content)


def test_a_test_named_twice_is_taken_once_by_the_line_that_says_why() -> None:
    """`pytest -v` names each failed test on its progress line and again in the summary, with
    the message: the summary's line comes with the failures, the progress line with repeats."""
    from ctxguard.kinds.log import KIND
    from ctxguard.kinds.log.plan import ERROR, NAMED
    from ctxguard.tokens.load import get_tokenizer

    text = (
        "============================= test session starts ==============================\n"
        + "".join(f"tests/test_b.py::test_{k} PASSED                                    [  {k}%]\n" for k in range(12))
        + "tests/test_a.py::test_one FAILED                                       [ 50%]\n"
        + "".join(
            f"tests/test_c.py::test_{k} PASSED                                    [ {50 + k}%]\n" for k in range(12)
        )
        + "=================================== FAILURES ===================================\n"
        "E       AssertionError: one is not two\n"
        + "".join(f"  frame {k} of the traceback, not an error\n" for k in range(12))
        + "=========================== short test summary info ============================\n"
        "FAILED tests/test_a.py::test_one - AssertionError: one is not two\n"
        "========================= 1 failed, 24 passed in 0.01s =========================\n"
    )
    tokenizer = get_tokenizer()
    plan = KIND.plan(KIND.read(text, "run.log"), tokenizer.encode(text), tokenizer, frozenset())
    level = {u.text.split(" ")[0]: (u.priority[0], u.must) for u in plan.units if "test_one" in u.text}
    assert level["FAILED"] == (NAMED, True)
    assert level["tests/test_a.py::test_one"][0] > ERROR and not level["tests/test_a.py::test_one"][1]
    progress = next(i for i, u in enumerate(plan.units) if u.text.startswith("tests/test_a.py::test_one"))
    assert plan.tier2_must is not None and plan.tier2_must[progress]  # (tier 2 still keeps it)


def test_a_tight_cut_keeps_the_summary_and_the_failed_tests_before_messages_that_go_on() -> None:
    text = _pytest_run(failures=5, goes_on=8)
    total = compress_text(text, 100_000, name="pytest.log")["raw_tokens"]
    record = compress_text(text, total // 8, name="pytest.log")
    content = record["content"]
    assert record["tier"] == 3
    assert "5 failed, 400 passed, 2 warnings" in content  # how the run ended, always
    for k in range(5):  # each failed test named, and where it failed
        assert f"FAILED tests/test_case.py::test_case_{k} " in content
        assert f"\ntests/test_case.py:{10 + k}: AssertionError\n" in content
    # The message's first line once, with its count: the summary's clipped copies of it wait.
    assert "E       AssertionError: Lists differ: [0] != [0, 1]  (5 occurrences)\n" in content
    assert "E         element 7:" not in content  # what goes on after the message's first line


def test_a_streamed_log_ranks_its_lines_as_the_plan_does() -> None:
    from ctxguard.kinds.log.plan import ERROR, GOES_ON, NAMED, SUMMARY_LEVEL, goes_on, template_level

    assert template_level("===== 2 failed, 9 passed in 0.1s =====") == SUMMARY_LEVEL
    assert template_level("2024-05-14T09:12:31.1234567Z Tests:       1 failed, 3 total") == SUMMARY_LEVEL
    assert template_level("FAILED tests/x.py::test_y - ValueError: no") == NAMED
    assert template_level("  ● options › rejects a missing value") == NAMED
    assert template_level("--- FAIL: TestParse (0.00s)") == NAMED
    first, then = "E       AssertionError: x", "E         + [1]"
    assert template_level(first, goes_on(first, "    def f():")) == ERROR
    assert template_level(then, goes_on(then, first)) == GOES_ON


def test_passing_and_progress_lines_are_the_last_taken_and_never_an_errors_context() -> None:
    """`PASSED` and `....F.. [ 42%]` lines are what a reader of a failing run came for least:
    after every other line, and never taken as the context before an error line."""
    from ctxguard.kinds.log import KIND
    from ctxguard.kinds.log.plan import BEFORE, QUIET, REST
    from ctxguard.tokens.load import get_tokenizer

    text = (
        "============================= test session starts ==============================\n"
        + "".join(f"setup step {k} done\n" for k in range(12))
        + "tests/test_a.py ........................................F.......... [ 50%]\n"
        + "tests/test_b.py::test_ok PASSED                                       [ 60%]\n"
        + "ERROR tests/test_c.py::test_bad - RuntimeError: the pool is closed\n"
        + "".join(f"teardown step {k} done\n" for k in range(12))
        + "========================= 1 failed, 80 passed in 0.51s =========================\n"
    )
    tokenizer = get_tokenizer()
    plan = KIND.plan(KIND.read(text, "run.log"), tokenizer.encode(text), tokenizer, frozenset())
    level = {u.text[:15]: u.priority[0] for u in plan.units}
    assert level["tests/test_a.py"] == QUIET and level["tests/test_b.py"] == QUIET
    assert level["setup step 11 d"] == REST and QUIET > REST > BEFORE


def test_a_failure_blocks_title_comes_before_the_runs_banner_and_passing_lines() -> None:
    """The `____ test_x ____` line says which test the `E` lines under it belong to; the first
    lines of a run (platform, plugins, the first passing tests) say nothing of the failure. The
    banner's lines are fillers after the sections, and its passing lines the last taken: so a
    tier-3 cut shows the titles and not the banner's passing lines. Tier 2 keeps the first 10
    lines whatever they say (the seed's must set), and its errors."""
    text = (SAMPLES.parent.parent / "examples" / "artifacts" / "failing-tests.log").read_text()
    record = compress_text(text, 450, name="failing-tests.log")
    content = record["content"]
    assert record["tier"] == 3
    for title in ("test_parse_european_decimal_comma", "test_parse_rejects_garbage"):
        assert re.search(rf"^_+ {title} _+$", content, re.M), title
    assert "test_parse_plain[1-1] PASSED" not in content
    assert "E       AssertionError: assert Decimal('15') == Decimal('1.5')" in content
    record = compress_text(text, 500, name="failing-tests.log")
    assert record["tier"] == 2 and not record["truncated"]
    assert record["content"].startswith("".join(text.splitlines(keepends=True)[:10]))
    assert "E       AssertionError: assert Decimal('15') == Decimal('1.5')" in record["content"]


# --- lint and type-check reports: rare rules before a project's standing noise ---------------


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("toolz/itertoolz.py:765:27: F821 Undefined name `sequence`", "F821"),
        ("F821 Undefined name `factroy`", "F821"),
        ("toolz/utils.py:9:14: Q000 [*] Single quotes found but double quotes preferred", "Q000"),
        ("E501 [*] Line too long (132 > 120)", "E501"),
        ('toolz/x.py:67: error: Name "factroy" is not defined  [name-defined]', "name-defined"),
        ("x.c:12:5: warning: unused variable ‘y’ [-Wunused-variable]", "-Wunused-variable"),
        ("  12:5  error  'x' is not defined  no-undef", "no-undef"),
        ("src/api/client.ts(88,13): error TS2322: Type 'string' is not assignable to type 'number'.", "TS2322"),
        ("src/api/client.ts:88:13 - error TS2322: Type 'string' is not assignable to type 'number'.", "TS2322"),
        ('  /src/x.py:12:5 - error: "factroy" is not defined (reportUndefinedVariable)', "reportUndefinedVariable"),
        ("error[E0308]: mismatched types", None),
        ("2024-05-01 10:00:00 ERROR worker job 42 failed", None),
        ("error: could not compile `app` due to 2 previous errors", None),
    ],
)
def test_the_rule_a_diagnostic_reports(line: str, rule: str | None) -> None:
    from ctxguard.kinds.log.lines import rule_of

    assert rule_of(line) == rule


_WRAPS = 'x.py:18:9: error: Incompatible types in assignment (expression has type "type[int]", variable\n'


@pytest.mark.parametrize(
    ("line", "after", "rule"),
    [
        (_WRAPS, 'has type "Callable[[int], int]")  [assignment]\n', "assignment"),
        (_WRAPS, "[attr-defined]\n", "attr-defined"),
        (_WRAPS, " [import-not-found]\n", "import-not-found"),
        (_WRAPS, "    return table[key]\n", None),  # (the source quoted under it)
        (_WRAPS, "x.py:19:1: error: Cannot infer type of lambda  [misc]\n", None),  # (a diagnostic of its own)
        (_WRAPS, "x.py:18: note: See https://mypy.rtfd.io  [misc]\n", None),
        ('x.py:3:1: error: Name "y" is not defined  [name-defined]\n', "and more  [misc]\n", None),  # (its own)
        ("E       AssertionError: assert False\n", "see below  [misc]\n", None),  # (no diagnostic)
    ],
)
def test_a_diagnostic_whose_message_wraps_names_its_rule_at_the_end_of_the_next_line(
    line: str, after: str, rule: str | None
) -> None:
    from ctxguard.kinds.log.lines import wrapped_rule

    assert wrapped_rule(line, after) == rule


def _pretty_type_report(rare_at: int) -> tuple[str, str]:
    """A mypy --pretty report: 300 errors of one rule, each message wrapped at the terminal's
    width (its rule on the next line) and its source quoted under it, and one error of a rule
    it reports once, on one line; and that line."""
    names = ["".join(letters) for letters in itertools.product("abcdefghijklmnopqrst", "uvwxyzabcdefghi")]
    blocks = [
        f'pkg/m{i // 30}.py:{i % 30 * 5 + 1}:5: error: Call to untyped function "{name}" in typed\n'
        f"context  [no-untyped-call]\n        value = {name}(item)\n                ^~~~~~~~~~~\n"
        for i, name in enumerate(names)
    ]
    rare = 'pkg/items.py:764:16: error: Too many arguments for "len"  [call-arg]\n'
    blocks.insert(rare_at, rare + "        return len(seq, 2)\n               ^~~~~~~~~~~\n")
    return "".join(blocks) + "Found 301 errors in 11 files (checked 40 source files)\n", rare


@pytest.mark.parametrize("rare_at", [150, 290])
def test_a_rare_rule_comes_before_a_common_one_whose_messages_wrap(rare_at: int) -> None:
    """The wrapped errors' rule is read from the line they wrap onto: a rule reported 300 times,
    the project's standing noise, comes after the one reported once."""
    text, rare = _pretty_type_report(rare_at)
    for share in (0.05, 0.02):
        record = compress_text(text, max(64, int(independent_count(text) * share)), artifact_type="log")
        assert record["tier"] == 3 and rare in record["content"], share


@pytest.mark.parametrize(
    ("common", "rare"),
    [
        (  # tsc
            "src/components/Widget{i}.tsx({i},{j}): error TS7006: Parameter 'props' implicitly has an 'any' type.",
            "src/api/client.ts(88,13): error TS2322: Type 'string' is not assignable to type 'number'.",
        ),
        (  # pyright
            '  /app/pkg/m{i}.py:{i}:{j} - error: Type of parameter "x" is unknown (reportUnknownParameterType)',
            '  /app/io.py:67:14 - error: Argument of type "str" cannot be assigned to "n" (reportArgumentType)',
        ),
    ],
)
def test_a_type_checkers_rare_rule_comes_before_its_common_one(common: str, rare: str) -> None:
    """TypeScript's and pyright's rule codes are read as the linters' are: 300 of one rule, a
    project's standing noise, come after the one error of another, wherever it is."""
    lines = [common.format(i=i, j=i % 30 + 1) for i in range(300)]
    lines.insert(150, rare)
    text = "\n".join(lines + ["", "Found 301 errors in 120 files."]) + "\n"
    record = compress_text(text, max(64, independent_count(text) // 100), artifact_type="log")
    assert record["tier"] == 3 and rare in record["content"]


def test_a_type_checkers_last_error_is_not_how_its_run_ended_and_each_of_a_rare_rules_errors_is_news() -> None:
    """mypy without its summary (`--no-error-summary`) and without columns: its last line is one
    finding among 240, not how the run ended; and two typos (`Name "x" is not defined`, one
    template) are two mistakes, each taken as a template's first while their rule is rare."""
    lines = [f"pkg/m{i}.py:{i + 1}: error: Function is missing a type annotation  [no-untyped-def]" for i in range(240)]
    first = 'pkg/a.py:56: error: Name "maxsise" is not defined; did you mean "maxsize"?  [name-defined]'
    second = 'pkg/keys.py:48: error: Name "kwargz" is not defined; did you mean "kwargs"?  [name-defined]'
    lines.insert(20, first)
    lines.insert(200, second)
    lines.append('pkg/func.py:117: error: Call to untyped function "TTLCache" in typed context  [no-untyped-call]')
    text = "\n".join(lines) + "\n"
    record = compress_text(text, 120, name="mypy.log")
    content = record["content"]
    assert record["tier"] == 3 and first in content and second in content, content
    assert "TTLCache" not in content  # (the last line after both)


def _lint_report(rng: random.Random, rare_at: int) -> tuple[str, str]:
    """A ruff report of 600 style findings with one undefined name among them, and that line."""
    lines = []
    for i in range(600):
        code, said = rng.choice(
            [
                ("Q000", "[*] Single quotes found but double quotes preferred"),
                ("D103", "Missing docstring in public function"),
                ("ANN001", "Missing type annotation for function argument `x`"),
            ]
        )
        lines.append(f"pkg/mod{i // 40}.py:{i % 40 * 7 + 1}:{rng.randint(1, 30)}: {code} {said}")
    rare = "pkg/mod12.py:88:14: F821 Undefined name `factroy`"
    lines.insert(rare_at, rare)
    return "\n".join(lines + ["Found 601 errors."]) + "\n", rare


@pytest.mark.parametrize("rare_at", [5, 300, 590])
def test_a_rare_rule_survives_a_tight_cut_of_a_lint_report(rare_at: int) -> None:
    text, rare = _lint_report(random.Random(rare_at), rare_at)
    raw = independent_count(text)
    for share in (0.1, 0.05, 0.02):
        record = compress_text(text, max(64, int(raw * share)), artifact_type="log")
        assert record["tier"] == 3 and rare in record["content"], share


def test_a_located_diagnostic_is_an_error_line_shown_with_its_place() -> None:
    """ruff's full form (and rustc's): the message, then ` --> place`, then the source frame."""
    blocks = []
    for i in range(150):
        blocks.append(
            f"Q000 [*] Single quotes found but double quotes preferred\n  --> pkg/m{i}.py:{i + 1}:5\n   |\n"
            f"{i + 1} | x = 'a'\n   |     ^^^\n   |\nhelp: Replace single quotes with double quotes\n"
        )
    rare = "F821 Undefined name `factroy`\n  --> pkg/dict.py:67:14\n"
    blocks.insert(120, rare + "   |\n67 |     result = factroy()\n   |              ^^^^^^^\n   |\n")
    text = "\n".join(blocks) + "Found 151 errors.\n"
    assert "F821 Undefined name `factroy`\n" in [text.splitlines(keepends=True)[i] for i in important_lines_at(text)]
    record = compress_text(text, max(64, independent_count(text) // 20), artifact_type="log")
    assert rare in record["content"]


def important_lines_at(text: str) -> list[int]:
    return [i for i, mark in enumerate(important_lines(text)) if mark]


def test_the_passing_lines_quick_refusal_never_changes_the_answer() -> None:
    """passing() tries its patterns only on lines holding one of its hints; the answer is the
    patterns' on every line of the samples and on lines built around `ok`, `PASS`, `%]`."""
    from ctxguard.kinds.log.lines import _PROGRESS, PASSING, passing, unstamped

    def by_patterns(line: str) -> bool:
        body = unstamped(line)
        return PASSING.search(body) is not None or _PROGRESS.match(body) is not None

    lines = [line for path in sorted(SAMPLES.glob("*.log")) for line in path.read_text().splitlines(keepends=True)]
    rnd = random.Random(5)
    parts = [
        "ok",
        " ok",
        "ok\t",
        "... ok",
        "test x ... ok",
        "token",
        "lookup",
        "  ",
        "\t",
        "PASS",
        "PASSED",
        " [ 42%]",
        "....",
        "pkg",
        " 0.12s",
        "2024-05-14T09:12:31.1234567Z ",
        "\u00a0",
        "\n",
        "x",
        "---",
    ]
    lines += ["".join(rnd.choice(parts) for _ in range(rnd.randint(1, 6))) for _ in range(20_000)]
    assert any(passing(line) for line in lines) and not all(passing(line) for line in lines)
    assert [line for line in lines if passing(line) != by_patterns(line)] == []


def test_the_other_hints_searched_one_by_one_find_the_lines_their_alternation_found() -> None:
    """The lint, failure-count and `path:line: Error` forms are searched one at a time (an
    alternation is tried at every position); a line holds one of them exactly when it matches
    the alternation they were."""
    from ctxguard.kinds.log.lines import OTHER_HINTS

    alternation = re.compile(
        r":\d+:\d+: [A-Z]{1,4}\d{2,4}\b|● \S|\d failing\b|:\d+: (?:\w+\.)*\w*(?:Error|Exception|Failure)\b"
    )
    lines = [line for path in sorted(SAMPLES.glob("*.log")) for line in path.read_text().splitlines()]
    rnd = random.Random(9)
    parts = [
        "2",
        " failing",
        "x",
        ":12",
        ":3: ",
        "F401",
        "E501 ",
        "● ",
        "Suite",
        "mod.",
        "ValueError",
        "Failure",
        " ",
        "failings",
        "a1",
    ]
    lines += ["".join(rnd.choice(parts) for _ in range(rnd.randint(1, 7))) for _ in range(20_000)]
    found = [any(hint.search(line) for hint in OTHER_HINTS) for line in lines]
    assert any(found) and found == [alternation.search(line) is not None for line in lines]


def _actions(text: str) -> str:
    """The text as a GitHub Actions job log holds it: each line after the runner's timestamp."""
    return "".join(
        f"2026-11-27T10:00:{k // 10 % 60:02d}.{k % 10}000000Z {line}" for k, line in enumerate(text.splitlines(True))
    )


def test_a_job_logs_timestamps_are_left_out_of_what_is_shown_and_said() -> None:
    """A tenth of a short line's tokens, and nothing a reviewer reads: the lines are shown
    without them (the gap lines' numbers are the raw text's), and the record says so."""
    plain, stamped = _pytest_run(failures=5, goes_on=8), _actions(_pytest_run(failures=5, goes_on=8))
    budget = compress_text(plain, 100_000, name="pytest.log")["raw_tokens"] // 8
    cut = compress_text(stamped, budget, name="job.log")
    assert cut["truncated"] and "2026-11-27T" not in cut["content"]
    assert "CI timestamps left out of the lines shown (the full text has them)" in cut["notes"]
    assert "5 failed, 400 passed, 2 warnings" in cut["content"]
    for k in range(5):  # (the same facts as the plain log's cut, in the same budget)
        assert f"FAILED tests/test_case.py::test_case_{k} " in cut["content"]
        assert f"\ntests/test_case.py:{10 + k}: AssertionError\n" in cut["content"]
    assert not any("timestamps" in note for note in compress_text(plain, budget, name="p.log").get("notes", []))


def test_a_tight_cut_names_each_failed_test_before_the_summarys_clipped_messages() -> None:
    """`FAILED id - message` is the id, then its message (pytest clips it; the failure's `E` line
    says it whole): a tight cut names every failed test, the message cut in place."""
    text = _pytest_run(failures=12, goes_on=2)
    cut = compress_text(text, 200, name="pytest.log")["content"]
    named = [k for k in range(12) if f"FAILED tests/test_case.py::test_case_{k} " in cut]
    assert len(named) >= 8 and f"FAILED tests/test_case.py::test_case_{named[0]} …\n" in cut
    wide = compress_text(text, 2000, name="pytest.log")["content"]  # (room: each line whole)
    assert all(f"test_case_{k} - AssertionError: Lists differ: [{k}]...\n" in wide for k in range(12))


def test_a_failures_place_comes_with_its_first_error_line() -> None:
    text = _pytest_run(failures=1, goes_on=0)
    plain = compress_text(text, 110, name="pytest.log")["content"]
    assert "E       AssertionError: Lists differ: [0] != [0, 1]\n\ntests/test_case.py:10: AssertionError\n" in plain


def test_an_error_that_names_a_near_name_comes_before_the_other_errors() -> None:
    """A diagnostic that suggests the name it may have meant (`did you mean "factory"?`, `maybe
    "join"?`) is a typo, the likeliest fresh mistake among a report's standing errors: a tight
    cut shows it before the other errors, rare rules included; an error that only says `maybe`
    is not one."""
    from ctxguard.kinds.mistakes import SUGGESTS

    rules = ("misc", "index", "override", "no-redef", "comparison-overlap", "return-value", "assignment",
             "arg-type", "union-attr", "valid-type", "has-type", "list-item", "dict-item", "type-var",
             "func-returns-value", "abstract", "empty-body", "safe-super")  # fmt: skip
    standing = "".join(
        f"pkg/{rule}.py:3: error: Something about {rule.replace('-', ' ')} is off  [{rule}]\n" for rule in rules
    )
    standing += "".join(
        f"pkg/util.py:{k}: error: Call to untyped function in typed context  [no-untyped-call]\n" for k in range(200)
    )
    typo = 'pkg/core.py:67: error: Name "factroy" is not defined; did you mean "factory"?  [name-defined]\n'
    attribute = 'pkg/text.py:12: error: "str" has no attribute "joins"; maybe "join"?  [attr-defined]\n'
    lines = standing.splitlines(keepends=True)
    summary = "Found 242 errors in 43 files (checked 50 source files)\n"
    text = "".join([*lines[:60], attribute, *lines[60:], typo, summary])
    cut = compress_text(text, 120, name="mypy.log")
    assert cut["tier"] == 3 and typo in cut["content"] and attribute in cut["content"]
    assert sum(f"[{rule}]" in cut["content"] for rule in rules) < len(rules)  # (not all of them fit)
    gcc = "x.c:132:56: error: ‘delt’ undeclared (first use in this function); did you mean ‘delta’?"
    python = "NameError: name 'factroy' is not defined. Did you mean: 'factory'?"
    for line in (gcc, python, typo, attribute):
        assert SUGGESTS.search(line), line
    for line in ("error: connection refused, maybe a network problem", "ERROR maybe-later job failed"):
        assert not SUGGESTS.search(line), line


def test_a_linters_undefined_name_comes_before_its_rare_style_rules() -> None:
    """ruff's `F821 Undefined name` among a project's standing findings, most of them rules with
    one result: the name that does not resolve is taken first (it cannot run); `F403 … unable to
    detect undefined names` is not one."""
    rules = [f"X{k:03d}" for k in range(40)]
    standing = "".join(
        f"pkg/m{k}.py:{k + 1}:1: {rule} Some style finding about thing {k}\n" for k, rule in enumerate(rules)
    )
    star = "pkg/__init__.py:1:1: F403 `from .x import *` used; unable to detect undefined names\n"
    undefined = "pkg/core.py:67:14: F821 Undefined name `factroy`\n"
    lines = standing.splitlines(keepends=True)
    text = "".join([*lines[:5], star, *lines[5:], undefined, "Found 42 errors.\n"])  # (not the first line: always kept)
    content = compress_text(text, 80, name="ruff.log")["content"]
    assert undefined in content and star not in content


def test_a_test_named_twice_without_a_message_is_named_by_the_summarys_line() -> None:
    """A `-v` line (`id FAILED [ 45%]`) and the summary's bare `FAILED id` (pytest leaves the
    message out when the id fills the terminal) name one test and neither says why: the
    summary's is kept among the names (it stands with the others, no gap between), the `-v`
    line goes with the repeats."""
    from ctxguard.kinds.log.plan import named_again

    test = "tests/test_more.py::CircularShiftsTests::test_simple_circular_shifts"
    verbose = f"{test} FAILED{' ' * 20}[ 45%]"
    said = "FAILED tests/test_more.py::ReplaceTests::test_basic - TypeError: boom"
    assert named_again([(3, verbose), (90, f"FAILED {test}"), (91, said)]) == {3}
    assert named_again([(3, "tests/test_more.py::ReplaceTests::test_basic FAILED [ 50%]"), (91, said)]) == {3}
    passing = "".join(f"tests/test_b.py::test_{k} PASSED{' ' * 30}[ {k % 100:2d}%]\n" for k in range(300))
    summary = "".join(f"FAILED tests/test_a.py::test_{k} - AssertionError: no {k}\n" for k in range(5))
    text = (
        f"{verbose}\n{passing}=========================== short test summary info ===\n{summary}"
        f"FAILED {test}\n=== 6 failed, 300 passed in 1.00s ===\n"
    )
    content = compress_text(text, 160, name="run.log")["content"]
    assert f"FAILED {test}\n=== 6 failed" in content and verbose not in content
