from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxguard import __version__
from ctxguard.main import main
from tests.conftest import ROOT, SAMPLES


def test_compress_prints_the_record(sample, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    path = str(sample.path("traceback.log"))
    assert main(["compress", path, "--budget", "400", "--task", "keep stack traces"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["artifact_name"] == path and record["compacted_tokens"] <= 400
    assert record["task"] == "keep stack traces"


def test_compress_missing_file_exits_nonzero_with_error_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "nope.md")
    assert main(["compress", missing, "--budget", "100"]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["content"] == f"[ERROR: artifact not found at {missing}]"
    assert "artifact not found" in captured.err


def test_compress_reads_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"hello <|endoftext|>\n")))
    assert main(["compress", "-", "--budget", "80", "--type", "text"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["content"] == "hello <|endoftext|>\n" and record["tier"] == 1


def test_count_prints_input_tokens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.txt").write_text("hello world")
    assert main(["count", str(tmp_path / "a.txt"), "--encoding", "cl100k_base"]) == 0
    assert json.loads(capsys.readouterr().out) == {"input_tokens": 2}


def test_count_missing_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["count", str(tmp_path / "nope")]) == 2
    assert "artifact not found" in capsys.readouterr().err


@pytest.mark.parametrize("budget", ["0", "-5", "abc"])
def test_bad_budget_is_a_usage_error(budget: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["compress", "x", "--budget", budget])
    assert exc.value.code == 2


def test_budget_below_minimum(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.txt").write_text("x")
    assert main(["compress", str(tmp_path / "a.txt"), "--budget", "10"]) == 2
    assert "at least 32" in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and __version__ in capsys.readouterr().out


def test_help_has_runnable_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "ctxguard compress examples/artifacts/failing-tests.log --budget 500" in out
    assert "exit codes" in out


def test_the_readme_example_compresses_at_tier2(capsys: pytest.CaptureFixture[str]) -> None:
    example = ROOT / "examples/artifacts/failing-tests.log"
    assert main(["compress", str(example), "--budget", "500"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["tier"] == 2 and record["compacted_tokens"] <= 500
    assert "E       decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]" in record["content"]
    assert "2 failed, 8 passed" in record["content"]


def test_eval_prints_a_table_per_type_and_ratio(capsys: pytest.CaptureFixture[str]) -> None:

    assert (
        main(["eval", str(SAMPLES / "traceback.log"), str(SAMPLES / "plan-with-tables.md"), "--ratios", "0.5,0.2"]) == 0
    )
    out = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in out[2:]]
    assert [(r[0], r[1], r[3], r[4]) for r in rows] == [
        ("log", "50%", "1", "100%"),
        ("log", "20%", "1", "100%"),
        ("markdown", "50%", "1", "100%"),
        ("markdown", "20%", "1", "100%"),
    ]
    assert main(["eval", str(SAMPLES / "traceback.log"), "--ratios", "0.5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["kind"] == "log" and data[0]["compliant"] is True and 0 < data[0]["retention"] <= 1


def test_eval_rejects_bad_ratios_and_empty_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["eval", str(tmp_path), "--ratios", "1.5"])
    assert exc.value.code == 2
    assert main(["eval", str(tmp_path)]) == 2
    assert "no readable artifacts" in capsys.readouterr().err


def test_offline_budget_floor_is_64(
    sample,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
    capsys: pytest.CaptureFixture[str],
) -> None:
    from ctxguard.tokens import load as tokens

    offline = tokens.HeuristicTokenizer(reason="offline")
    monkeypatch.setattr(tokens, "get_tokenizer", lambda encoding=None: offline)
    monkeypatch.setattr("ctxguard.api.get_tokenizer", lambda encoding=None: offline)
    assert main(["compress", str(sample.path("traceback.log")), "--budget", "40"]) == 2
    assert "at least 64 tokens when tokens are estimated offline" in capsys.readouterr().err
    assert main(["compress", str(sample.path("traceback.log")), "--budget", "64"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["encoding"] == "heuristic" and record["compacted_tokens"] <= 64


def test_a_bug_is_exit_3_with_a_message_that_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The one place a bug becomes a message: exit 3, what went wrong in a line, the details to
    report; never a bare traceback (and never for what the machine or the user said no to)."""
    from ctxguard.commands import count

    def broken(args: object) -> int:
        raise KeyError("units")

    monkeypatch.setattr(count, "run", broken)
    (tmp_path / "a.txt").write_text("hello\n")
    assert main(["count", str(tmp_path / "a.txt")]) == 3
    err = capsys.readouterr().err
    assert err.startswith("ctxguard: unexpected error: KeyError: 'units'\nThis is a bug in ctxguard; please report it")
    assert "Traceback (most recent call last)" in err  # (the details to report, after the message)
