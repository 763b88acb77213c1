"""Big logs are streamed: exact counts, the salient cut, redaction, all without reading them whole."""

from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import pytest

from ctxguard import read
from ctxguard.api import compress_file
from ctxguard.engine import stream
from ctxguard.secrets.redact import redact
from tests.generate import log_of
from tests.helpers import independent_count
from tests.test_hostile import RECORD

MARKER = re.compile(r"\[TRUNCATED: content exceeds budget, remaining (\d+) tokens omitted\]")


@pytest.fixture
def small_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stream anything over 20 kB, in blocks of 4 kB, so small test files take the big-file path."""
    monkeypatch.setattr(read, "STREAM_BYTES", 20_000)
    monkeypatch.setattr(stream, "BLOCK", 4096)


def _log(tmp_path: Path) -> tuple[Path, str]:
    text = log_of(30_000)
    lines = text.splitlines(keepends=True)
    for i in range(4):
        lines.insert(200 + 150 * i, f"2024-05-01 10:0{i}:00 ERROR db connection {1000 + i} lost after {i + 3}s\n")
    lines.insert(500, "    indented continuation line\n")
    lines.insert(501, "/var/log/app: path line\n")
    lines.insert(700, "export API_TOKEN=" + "ghp_" + "Z9y8X7w6" * 4 + "V5u4\n")
    text = "".join(lines)
    path = tmp_path / "service.log"
    path.write_text(text)
    return path, text


def test_stream_counts_exactly_and_keeps_what_matters(small_stream: None, tmp_path: Path) -> None:
    path, text = _log(tmp_path)
    record = compress_file(path, 600)
    jsonschema.validate(record, RECORD)
    assert any(note.startswith("streamed:") for note in record["notes"])
    assert record["raw_tokens"] == independent_count(redact(text).text)  # blocks are counted exactly
    assert record["tier"] == 3 and record["truncated"]
    assert independent_count(record["content"]) == record["compacted_tokens"] <= 600
    content = record["content"]
    lines = text.splitlines()
    assert content.startswith(lines[0]) and lines[-1] in content
    assert "ZeroDivisionError: division by zero" in content
    assert "ERROR db connection 1000 lost after 3s  (4 occurrences)" in content
    assert record["redacted"] == {"github_token": 1} and "ghp_" not in content
    assert 0 < int(MARKER.search(content).group(1)) < record["raw_tokens"]  # type: ignore[union-attr]
    assert record["retention"]["kept"] == record["retention"]["probes"]


def test_a_streamed_record_keeps_its_task(small_stream: None, tmp_path: Path) -> None:
    """The task a streamed artifact was cut for is in its record, as in a record read whole."""
    path, _ = _log(tmp_path)
    record = compress_file(path, 600, task="db connection lost")
    assert any(note.startswith("streamed:") for note in record["notes"])
    assert record["task"] == "db connection lost"
    assert "task" not in compress_file(path, 600)  # (no task: no field)


def test_stream_head_mode_and_small_files(small_stream: None, tmp_path: Path) -> None:
    path, text = _log(tmp_path)
    record = compress_file(path, 300, tier3="head")
    assert record["compacted_tokens"] <= 300 and record["content"].startswith(text[:200])
    assert "ZeroDivisionError" not in record["content"]
    small = tmp_path / "small.log"
    small.write_text("INFO one\nERROR two\n")
    assert compress_file(small, 300)["content"] == "INFO one\nERROR two\n"  # not streamed


def test_one_huge_line_is_counted_in_pieces(small_stream: None, tmp_path: Path) -> None:
    path = tmp_path / "minified.log"
    path.write_text("ERROR " + "abcd1234" * 20_000 + "\nINFO done\n")
    record = compress_file(path, 1500)
    assert record["compacted_tokens"] <= 1500 and record["truncated"]
    content = record["content"]
    assert content.startswith("ERROR abcd1234") and "(158006 chars omitted)" in content
    assert "INFO done" in content and "lines omitted" not in content  # one line, not 40 pieces


def test_stream_diff_lists_files_definitions_and_errors(small_stream: None, tmp_path: Path) -> None:
    from tests.engine.test_salient import _diff_of

    text = _diff_of(30) + (
        "diff --git a/package-lock.json b/package-lock.json\nindex 1..2 100644\n"
        "--- a/package-lock.json\n+++ b/package-lock.json\n@@ -1 +1,400 @@\n {\n"
        + "".join(f'+  "dep{i}": "1.0.{i}",\n' for i in range(399))
    )
    path = tmp_path / "change.diff"
    path.write_text(text)
    # 2700: every definition and error comes with its file and hunk header (no orphan lines),
    # after a file list of 31 lines, and each gap line names the lines it stands for.
    record = compress_file(path, 2700)
    jsonschema.validate(record, RECORD)
    assert any(note.startswith("streamed:") for note in record["notes"])
    assert record["raw_tokens"] == independent_count(text)
    assert record["compacted_tokens"] <= 2700 and record["truncated"]
    content = record["content"]
    assert content.startswith("Changed files (31):\n")
    assert "  package-lock.json (+399 -0, modified)" in content
    for f in range(30):
        assert f"+def handler_{f}(request):" in content and f"bad request in module {f}" in content
    assert '"dep398"' not in content  # the lockfile's body comes last, and does not fit
    from tests.kinds.diff.test_diff import _orphans

    assert not _orphans(content)  # every changed line under its file and hunk header
    assert record["retention"]["kept"] == record["retention"]["probes"]
    assert record["files"]["rows"][0] == ["pkg/module_0.py", 41, 0, "modified", None]  # (streamed: shown unknown)


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PIECES = st.lists(
    st.sampled_from(
        [
            "\n",
            "\n\n",
            "\r\n",
            " ",
            "  \n",
            "/",
            "//x",
            "}",
            "word",
            "Ünï",
            "\t",
            "1234",
            "+",
            "-",
            " x",
            "\u00a0",
            "é",
            "😀",
            "<|endoftext|>",
        ]
    ),
    max_size=400,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(pieces=PIECES)
def test_block_counts_sum_to_the_whole_count(
    pieces: list[str], tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxguard.tokens.load import get_tokenizer

    monkeypatch.setattr(stream, "BLOCK", 16)  # many block boundaries
    text = "".join(pieces)
    path = tmp_path_factory.mktemp("s") / "t.log"
    path.write_bytes(text.encode())
    tokenizer = get_tokenizer()
    from ctxguard.kinds.log.sink import LogSink

    state = stream.scan(path, tokenizer, LogSink(tokenizer), secrets=False)
    assert state.tokens == tokenizer.count(text.encode().decode())


def test_bundle_streams_big_files(small_stream: None, tmp_path: Path) -> None:
    import json

    from ctxguard.main import main
    from tests.gitrepo import Repo
    from tests.test_hostile import SCHEMA

    repo = Repo(tmp_path / "repo")
    repo.write(
        ".ctxguard.yaml",
        "version: 1\nfail_on: never\ntotal_budget: 3000\nartifacts:\n"
        "  - name: diff\n    diff: staged\n    budget: 1000\n"
        '  - name: logs\n    paths: ["reports/*.log"]\n    budget: 1500\n',
    )
    repo.write("app.py", "def main():\n    return 1\n")
    repo.commit("initial")
    repo.write("app.py", "def main():\n    return 2\n")
    repo.add("app.py")
    _, text = _log(tmp_path)
    repo.write("reports/service.log", text)
    before = repo.snapshot()
    assert main(["bundle", "--repo", str(repo.path)]) == 0
    assert repo.snapshot() == before
    bundle = json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())
    jsonschema.validate(bundle, SCHEMA)
    log = bundle["artifacts"][1]
    assert any(note.startswith("streamed:") for note in log["notes"])
    assert log["raw_tokens"] == independent_count(redact(text).text)
    assert log["compacted_tokens"] <= log["budget"] and "ZeroDivisionError" in log["content"]
    assert "ZeroDivisionError: division by zero" in bundle["digest"]
    assert bundle["totals"]["compacted_tokens"] + bundle["totals"]["digest_tokens"] <= 3000


def test_a_streamed_cut_names_the_raw_lines_of_each_gap(small_stream: None, tmp_path: Path) -> None:
    from tests.engine.test_gaps import check_gaps

    path, text = _log(tmp_path)
    record = compress_file(path, 600)
    assert any(note.startswith("streamed:") for note in record["notes"])
    assert check_gaps(text, record["content"]) > 0


def test_a_streamed_log_names_a_failed_test_once_too(small_stream: None, tmp_path: Path) -> None:
    """The streaming pass ranks as the plan does: of a test named on its `-v` line and in the
    summary, the summary's line (which says why) comes with the failures, the other later."""
    from ctxguard.kinds.log.plan import LATER, NAMED
    from ctxguard.kinds.log.sink import LogSink
    from ctxguard.tokens.load import get_tokenizer

    passing = "".join(
        f"tests/test_b.py::test_{k} PASSED                              [ {k % 100:2d}%]\n" for k in range(900)
    )
    text = (
        "============================= test session starts ==============================\n"
        + passing
        + "tests/test_a.py::test_one FAILED                                       [ 50%]\n"
        + passing
        + "=========================== short test summary info ============================\n"
        + "FAILED tests/test_a.py::test_one - AssertionError: one is not two\n"
        + "====================== 1 failed, 1800 passed in 9.01s ==========================\n"
    )
    path = tmp_path / "run.log"
    path.write_text(text)
    tokenizer = get_tokenizer()
    sink = LogSink(tokenizer)
    stream.scan(path, tokenizer, sink, secrets=False)
    offered = {o.text: o.level for o in sink.offered(len(text.splitlines()), "salient").values()}
    assert offered["FAILED tests/test_a.py::test_one - AssertionError: one is not two\n"] == NAMED
    assert offered["tests/test_a.py::test_one FAILED                                       [ 50%]\n"] == LATER


def _bare_summary_run() -> str:
    """A `--tb=short` run whose summary names its failed tests bare (ids too long for the
    terminal's width): two causes, four tests."""
    ids = [f"tests/test_spec.py::TestSpecifier::test_specifiers[{v}.0.dev1-<{v}-False]" for v in range(4)]
    blocks = "".join(
        f"{'_' * 20} TestSpecifier.test_specifiers[{v}.0.dev1-<{v}-False] {'_' * 20}\n"
        "tests/test_spec.py:310: in test_specifiers\n"
        "    assert (version not in Specifier(spec)) is expected\n"
        + (
            f"E   AssertionError: assert '{v}.0.dev1' not in <Specifier('<{v}', prereleases=True)>\n"
            if v < 2
            else "E   TypeError: '<' not supported between instances of 'Version' and 'str'\n"
        )
        for v in range(4)
    )
    passing = "".join(f"tests/test_b.py::test_{k} PASSED{' ' * 30}[ {k % 100:2d}%]\n" for k in range(300))
    return (
        "============================= test session starts ==============================\n"
        + passing
        + "=================================== FAILURES ===================================\n"
        + blocks
        + "=========================== short test summary info ============================\n"
        + "".join(f"FAILED {test}\n" for test in ids)
        + "====================== 4 failed, 300 passed in 9.01s ===========================\n"
    )


def test_a_bare_named_failures_cause_comes_right_after_its_name(small_stream: None, tmp_path: Path) -> None:
    """pytest leaves a summary line's message out when the id fills the terminal. The names
    nearest the summary come first (one block with it), and the error line of the first bare
    name taken right after it, before the other names: in the plan and the streaming sink alike."""
    from ctxguard.kinds.log import KIND
    from ctxguard.kinds.log.sink import LogSink
    from ctxguard.tokens.load import get_tokenizer

    text = _bare_summary_run()
    cause = "E   TypeError: '<' not supported between instances of 'Version' and 'str'"  # (the last test's)
    names = [line for line in text.splitlines() if line.startswith("FAILED ")]

    def at(lines: list[str], start: str) -> int:  # (a repeated template's line says its count)
        return next(i for i, line in enumerate(lines) if line.startswith(start))

    tokenizer = get_tokenizer()
    plan = KIND.plan(KIND.read(text, "run.log"), tokenizer.encode(text), tokenizer, frozenset())
    by_plan = [u.text for u in sorted(plan.units, key=lambda u: u.priority)]
    assert at(by_plan, names[-1]) < at(by_plan, cause) < at(by_plan, names[-2]) < at(by_plan, names[0])
    path = tmp_path / "run.log"
    path.write_text(text)
    sink = LogSink(tokenizer, log=True)
    stream.scan(path, tokenizer, sink, secrets=False)
    offered = sink.offered(len(text.splitlines()), "salient").values()
    by_sink = [o.text for o in sorted(offered, key=lambda o: (o.level, o.rank))]
    assert at(by_sink, names[-1]) < at(by_sink, cause) < at(by_sink, names[-2]) < at(by_sink, names[0])
    # A tight cut shows the cause with the last names, in one block with the summary.
    content = compress_text_of(text, 150)
    assert cause in content and names[-1] in content and names[0] not in content
    assert f"{names[-2]}\n{names[-1]}\n====" in content


def test_a_wrapped_fresh_mistake_is_taken_as_one_by_the_plan_and_the_sink(tmp_path: Path) -> None:
    """mypy --pretty wraps a long message onto the next line, its rule there: the error that
    names no rule on its own line is no compiler error read in order, and a fresh mistake
    (a name that does not resolve) comes first, whole or streamed."""
    from ctxguard.kinds.log.plan import FRESH
    from ctxguard.kinds.log.sink import LogSink
    from ctxguard.kinds.registry import KINDS
    from ctxguard.tokens.load import get_tokenizer

    fresh = 'pkg/table.py:67:14: error: Name "factroy" is not defined; did you mean\n'
    text = (
        "pkg/a.py:3:1: error: Function is missing a return type annotation  [no-untyped-def]\n"
        + fresh
        + '"factory"?  [name-defined]\n        values = factroy()\n                 ^~~~~~~\n'
        + "Found 2 errors in 2 files (checked 9 source files)\n"
    )
    tokenizer = get_tokenizer()
    kind = KINDS["log"]
    plan = kind.plan(kind.read(text, "types.log"), tokenizer.encode(text), tokenizer, frozenset())
    assert [u.priority[0] for u in plan.units if u.text == fresh] == [FRESH]
    path = tmp_path / "types.log"
    path.write_text(text)
    sink = LogSink(tokenizer, log=True)
    stream.scan(path, tokenizer, sink, secrets=False)
    assert [o.level for o in sink.offered(len(text.splitlines()), "salient").values() if o.text == fresh] == [FRESH]


def compress_text_of(text: str, budget: int) -> str:
    from ctxguard import compress_text

    return str(compress_text(text, budget, name="run.log")["content"])


@pytest.mark.parametrize("share", [0.2, 0.6])
def test_a_streamed_log_fills_a_big_budget_and_keeps_its_task(small_stream: None, tmp_path: Path, share: float) -> None:
    """Past the 2,000 lines of its fixed ring, a streamed cut keeps as much of the end as the
    budget holds, and the lines naming the task wherever they are."""
    lines = log_of(200_000).splitlines(keepends=True)
    assert len(lines) > 3 * 2000
    for k in range(100, len(lines), 500):
        lines[k] = f"2024-05-01 10:00:00 INFO checkout 4711 step {k} done\n"
    path = tmp_path / "big.log"
    path.write_text("".join(lines))
    raw = independent_count("".join(lines))
    budget = int(raw * share)
    record = compress_file(path, budget, task="checkout 4711")
    assert any(note.startswith("streamed:") for note in record["notes"])
    assert budget * 0.95 <= record["compacted_tokens"] == independent_count(record["content"]) <= budget
    named = [line for line in lines if "checkout 4711" in line]
    assert all(line.rstrip("\n") in record["content"] for line in named)


def test_a_streamed_diff_fills_a_big_budget_and_keeps_its_task(small_stream: None, tmp_path: Path) -> None:
    """Past its 30 changed lines a file and its dropped context, a streamed diff keeps changed
    and context lines while they are within what the budget could show, and every changed line
    naming the task (with its file and hunk headers) wherever it is."""
    parts = []
    for f in range(40):
        body = "".join(
            f"+    value_{f}_{k} = compute({k})\n" if k % 3 else f"     unchanged_{f}_{k}()\n" for k in range(120)
        )
        body = body.replace(f"+    value_{f}_61 = compute(61)\n", f"+    checkout_4711(step={f})\n")
        parts.append(f"diff --git a/m{f}.py b/m{f}.py\n--- a/m{f}.py\n+++ b/m{f}.py\n@@ -1,40 +1,120 @@\n{body}")
    text = "".join(parts)
    path = tmp_path / "big.diff"
    path.write_text(text)
    budget = int(independent_count(text) * 0.5)
    record = compress_file(path, budget, task="checkout 4711")
    assert any(note.startswith("streamed:") for note in record["notes"])
    assert budget * 0.95 <= record["compacted_tokens"] <= budget
    assert all(f"+    checkout_4711(step={f})" in record["content"] for f in range(40))


def test_a_huge_line_is_cut_only_inside_a_short_word_that_is_no_value() -> None:
    """A line longer than the stream's blocks is cut where a letter meets a digit (exact
    counts), but only inside a short word that follows no `=` or `:`: a cut inside a token or
    a value would leave each half to a block of its own, and neither redacted."""
    secret = b'"token": "ghp_Z9y8X7w6Z9y8X7w6Z9y8X7w6Z9y8X7w6V5u4", '
    assert stream._safe_cut(secret * 50, 0) is None  # (the value's letters meet digits: never there)
    assert stream._safe_cut(b"password=abc12345 " * 50, 0) is None  # (a value after `=`)
    data = secret * 5 + b'"utf8": 1, ' + secret
    found = stream._safe_cut(data, 0)  # (a key is no value: cut between its `utf` and `8`)
    assert found is not None and data[found.start() - 4 : found.start() + 1] == b'"utf8'


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab \t\r\n", max_size=14), st.integers(0, 10), st.integers(0, 3))
def test_a_kept_line_is_clipped_as_said_and_is_itself_when_nothing_changes(line: str, limit: int, slack: int) -> None:
    # A streamed log holds its first and last lines and the cut's units at once: a line that
    # needs no change is the same string in both (no copy), the others end in one line feed
    # and are cut past limit + slack characters with a count of the rest.
    from ctxguard.words import clip

    body = line.rstrip("\r\n")
    shown = clip(line, limit, slack)
    if len(body) > limit + slack:
        assert shown == f"{body[:limit]}... ({len(body) - limit} chars omitted)\n"
    else:
        assert shown == body + "\n"
        if line == body + "\n":
            assert shown is line


def test_a_streamed_job_log_is_shown_without_its_timestamps(small_stream: None, tmp_path: Path) -> None:
    """As the plan shows a job log: its lines without the runner's timestamps, said in a note."""
    lines = log_of(30_000).splitlines(keepends=True)
    lines.insert(300, "FAILED tests/test_ledger.py::test_round - AssertionError: 15.0 != 1.5\n")
    path = tmp_path / "job.log"
    path.write_text(
        "".join(f"2026-11-27T10:00:{k // 10 % 60:02d}.{k % 10}000000Z {line}" for k, line in enumerate(lines))
    )
    record = compress_file(path, 600)
    assert any(note.startswith("streamed:") for note in record["notes"])
    assert "CI timestamps left out of the lines shown (the full text has them)" in record["notes"]
    assert "2026-11-27T" not in record["content"] and "FAILED tests/test_ledger.py::test_round" in record["content"]
