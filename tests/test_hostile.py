"""Hostile and odd inputs: each yields a valid record with a clear note, never a traceback."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from ctxguard.api import compress_file
from ctxguard.main import main
from tests.conftest import ROOT
from tests.gitrepo import Repo, configured
from tests.helpers import independent_count

SCHEMA = json.loads((ROOT / "ctxguard/schemas/bundle.schema.json").read_text())
RECORD = {"$defs": SCHEMA["$defs"], "$ref": "#/$defs/record"}


def _deep_json(levels: int) -> bytes:
    return ("[" * levels + "]" * levels).encode()


def _many_files(n: int) -> bytes:
    return "".join(
        f"diff --git a/f{i}.py b/f{i}.py\nindex 1111111..2222222 100644\n--- a/f{i}.py\n"
        f"+++ b/f{i}.py\n@@ -1 +1 @@\n-x = {i}\n+x = {i + 1}\n"
        for i in range(n)
    ).encode()


_DIFF = (
    "diff --git a/app.py b/app.py\nindex 1111111..2222222 100644\n--- a/app.py\n+++ b/app.py\n"
    "@@ -1,3 +1,3 @@\n def main():\n-    return 1\n+    return 2\n"
)


def _sarif_with_surrogates(n: int) -> str:
    results = [
        {"ruleId": f"R{i % 7}", "level": "error", "message": {"text": f"bad \ud800 value {i}"}} for i in range(n)
    ]
    return json.dumps({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "lint"}}, "results": results}]})


_SURROGATES: dict[str, str] = {
    "log": "INFO start\nERROR token=abcDEF123ghiJKL456 \ud800 failed\n" * 3000,
    "diff": _DIFF.replace("return 2", "return '\ud800'") * 300,
    "markdown": "# Spec\n\n" + "".join(f"It MUST keep \ud800 part {i}.\n\n" for i in range(600)),
    "json": json.dumps({"tests": [{"nodeid": f"t\ud800{i}", "outcome": "failed"} for i in range(600)]}),
    "sarif": _sarif_with_surrogates(600),
    "junit": '<testsuite><testcase name="t\ud800"><failure message="m"/></testcase></testsuite>' * 300,
    "text": "line \ud800 of text\n" * 3000,
}


CASES: dict[str, tuple[str, Callable[[], bytes]]] = {
    "nul-bytes": ("blob.bin", lambda: b"\x7fELF\x00\x00\x01" * 100),
    "invalid-utf8": ("app.log", lambda: b"INFO start\nERROR bad byte \xff\xfe here\n" * 200),
    "utf16-bom": ("notes.md", lambda: "# Title\n\n- [ ] task\n".encode("utf-16")),
    "crlf": ("build.log", lambda: b"INFO step\r\nERROR failed\r\n" * 500),
    "no-final-newline": ("x.diff", lambda: _DIFF.rstrip("\n").encode()),
    "empty": ("empty.log", lambda: b""),
    "one-mb-line": ("bundle.min.js", lambda: b"QUJD" * 262_144),
    "special-tokens": ("chat.log", lambda: b"<|endoftext|><|im_start|>system<|im_end|><|fim_prefix|>\n" * 300),
    "deep-json": ("deep.json", lambda: _deep_json(10_000)),
    "duplicate-keys": ("dup.json", lambda: b'{"a": 1, "a": 2, "b": {"c": 1, "c": [1, 2, 3]}}' * 1),
    "truncated-diff": ("cut.diff", lambda: (_DIFF * 40)[: len(_DIFF) * 40 - 37].encode()),
    "fifty-thousand-files": ("huge.diff", lambda: _many_files(50_000)),
    # (escaped lone surrogates: decoded, strings no UTF-8 output can hold)
    "surrogate-escapes-sarif": ("lint.sarif", lambda: _sarif_with_surrogates(400).encode()),
    "surrogate-escapes-json": ("report.json", lambda: _SURROGATES["json"].encode()),
}


@pytest.mark.parametrize(
    ("case", "budget"),
    [
        (case, budget)
        for case in sorted(CASES)
        for budget in (64, 1000)
        if case != "fifty-thousand-files" or budget == 1000  # one budget is enough for the slow one
    ],
)
def test_hostile_input_gives_a_valid_record(case: str, budget: int, tmp_path: Path) -> None:
    name, make = CASES[case]
    path = tmp_path / name
    path.write_bytes(make())
    record = compress_file(path, budget)
    jsonschema.validate(record, RECORD)
    assert record["compacted_tokens"] <= budget
    if record.get("error"):
        assert record["content"].startswith("[ERROR: ") and record["raw_tokens"] == 0
    else:
        assert independent_count(record["content"]) == record["compacted_tokens"]
    if case == "nul-bytes":
        assert "binary" in record["error"]
    if case == "invalid-utf8":
        assert any("U+FFFD" in note for note in record["notes"])
    if case == "utf16-bom" and budget == 1000:
        assert record["content"] == "# Title\n\n- [ ] task\n"
    if case == "deep-json":
        assert (
            record["type"] == "json"
            and any("not valid json" in n for n in record.get("notes", []))
            or record["tier"] == 1
            or record["truncated"]
        )
    if case == "fifty-thousand-files":
        assert record["truncated"] and record["content"].startswith("Changed files (50000):")


def test_cli_never_prints_a_traceback_on_hostile_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for case, (name, make) in CASES.items():
        if case == "fifty-thousand-files":
            continue
        path = tmp_path / name
        path.write_bytes(make())
        code = main(["compress", str(path), "--budget", "200"])
        captured = capsys.readouterr()
        assert code in (0, 2), case
        assert "Traceback" not in captured.err, case
        json.loads(captured.out)


def test_bundle_of_a_merge_commit_validates(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    repo.write(
        ".ctxguard.yaml", "version: 1\nfail_on: never\nartifacts:\n  - name: merge\n    diff: HEAD\n    budget: 200\n"
    )
    repo.write("app.py", "a = 1\n")
    repo.write("lib.py", "b = 1\n")
    repo.commit("base")
    repo.git.git.checkout("-q", "-b", "side")
    repo.write("app.py", "a = 2\n")
    repo.commit("side")
    repo.git.git.checkout("-q", "main")
    repo.write("lib.py", "b = 2\n")
    repo.commit("main")
    repo.merge("-q", "--no-edit", "side")
    merge = repo.git.head.commit.hexsha
    for mode in (merge, f"{merge}~1...{merge}"):
        output = tmp_path / "bundle.json"
        assert main(["bundle", "--repo", str(repo.path), "--diff", mode, "--output", str(output)]) == 0
        bundle = json.loads(output.read_text())
        jsonschema.validate(bundle, SCHEMA)
    # and the combined diff git shows for a merge (diff --cc) as a file
    combined = subprocess.run(["git", "show", "--cc", merge], cwd=repo.path, capture_output=True).stdout
    (tmp_path / "merge.diff").write_bytes(combined * 20)
    record = compress_file(tmp_path / "merge.diff", 100)
    jsonschema.validate(record, RECORD)
    assert record["compacted_tokens"] <= 100 and re.search(r"\[TRUNCATED: ", record["content"])


def test_a_named_pipe_gets_an_error_record_at_once(tmp_path: Path) -> None:
    import os
    import sys

    fifo = tmp_path / "build.log"
    os.mkfifo(fifo)
    # In a child process with a timeout: a read that blocks fails the test instead of hanging it.
    done = subprocess.run(
        [sys.executable, "-m", "ctxguard", "compress", str(fifo), "--budget", "100"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    record = json.loads(done.stdout)
    assert done.returncode == 2 and record["tier"] == 0
    assert "named pipe (FIFO), not a regular file" in record["error"] and "compress -" in record["error"]


def test_a_config_glob_matching_a_named_pipe_does_not_block(tmp_path: Path) -> None:
    import os
    import sys

    repo = configured(
        tmp_path / "repo",
        "version: 1\nfail_on: never\nartifacts:\n  - {name: logs, paths: ['logs/*.log'], budget: 400}\n",
    )
    repo.write("logs/ok.log", "INFO started\nERROR boom\n")
    os.mkfifo(repo.path / "logs" / "live.log")
    out = tmp_path / "bundle.json"
    done = subprocess.run(
        [sys.executable, "-m", "ctxguard", "bundle", "--repo", str(repo.path), "--output", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    records = {r["artifact_name"]: r for r in json.loads(out.read_text())["artifacts"]}
    assert "named pipe" in records["logs/live.log"]["error"]
    assert records["logs/ok.log"]["content"] == "INFO started\nERROR boom\n"


def test_random_bytes_without_a_nul_named_log_are_marked_binary(tmp_path: Path) -> None:
    """An image or an archive renamed `.log` holds no NUL byte by chance in its first block, but
    most of it is not UTF-8: a clear binary record, never a budget of U+FFFD."""
    import random

    from ctxguard.read import read_artifact

    pick = random.Random(5)
    data = bytes(pick.choice([b for b in range(1, 256)]) for _ in range(20000))
    path = tmp_path / "capture.log"
    path.write_bytes(data)
    loaded = read_artifact(path)
    assert loaded.text is None and loaded.error is not None and loaded.error.startswith("binary data (")
    latin1 = tmp_path / "latin1.log"
    latin1.write_bytes("Fehler beim Öffnen der Datei: Größe überschritten\n".encode("latin-1") * 200)
    assert read_artifact(latin1).text is not None  # a few bad bytes a line: still text, noted


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the child's signal mask from /proc")
def test_sigterm_is_said_and_leaves_nothing_behind(tmp_path: Path) -> None:
    """A cancelled CI job sends SIGTERM: ctxguard says so, exits 143 and leaves no temporary file
    (here: standard input spooled, while it waits for more)."""
    import signal
    import sys
    import time

    spool = tmp_path / "tmp"
    spool.mkdir()
    child = subprocess.Popen(
        [sys.executable, "-m", "ctxguard", "compress", "-", "--budget", "100"],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(spool)},
        preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL),  # (whatever the parent ignores)
    )
    assert child.stdin is not None and child.stderr is not None
    child.stdin.write(b"a line of a log that goes on\n" * 1000)
    child.stdin.flush()
    # Wait until the child catches SIGTERM (bit 15 of its SigCgt mask): no sleep guesses the time.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = Path(f"/proc/{child.pid}/status").read_text()
        caught = int(next(line for line in status.splitlines() if line.startswith("SigCgt:")).split()[1], 16)
        if caught & (1 << (signal.SIGTERM - 1)):
            break
        time.sleep(0.01)
    else:
        pytest.fail("the child never caught SIGTERM")
    child.send_signal(signal.SIGTERM)
    child.stdin.close()
    err = child.stderr.read().decode()
    assert child.wait(timeout=60) == 143, err
    assert "ctxguard: terminated (SIGTERM)" in err and "Traceback" not in err
    assert list(spool.iterdir()) == []


def test_a_sigterm_whose_exception_something_swallowed_still_ends_the_run_with_143(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Python drops an exception raised in a finaliser (or a library catches BaseException):
    the SIGTERM is still said, and the exit is 143, not 0."""
    import argparse
    import os
    import signal

    from ctxguard import main as entry

    def swallowed(args: argparse.Namespace) -> int:
        try:
            os.kill(os.getpid(), signal.SIGTERM)  # (its handler runs at the next instruction)
            for _ in range(1000):
                pass
        except BaseException:  # (what a careless finaliser or library does)
            pass
        return 0

    parser = entry.build_parser()
    monkeypatch.setattr(entry, "build_parser", lambda: parser)
    monkeypatch.setattr(parser, "parse_args", lambda argv: argparse.Namespace(command="x", func=swallowed))
    assert entry.main(["x"]) == 143
    assert "terminated (SIGTERM)" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


@pytest.mark.parametrize("kind", sorted(_SURROGATES))
def test_lone_surrogates_given_to_the_library_make_a_valid_record(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone surrogate (a JSON string's `\\ud800`, or a caller's str) cannot be UTF-8 encoded:
    the literal scans read it as U+FFFD in place, and every one-scan search (forced here from
    the first text on) falls back to one by one where a text sought holds one."""
    from ctxguard import literals
    from ctxguard.api import compress_text

    monkeypatch.setattr(literals, "SCANS_FIRST", -1)  # (held and the probes' check ask one_scan_pays)
    monkeypatch.setattr(literals, "TOGETHER", 0)
    text = _SURROGATES[kind]
    record = compress_text(text, 300, name=f"x.{kind}", artifact_type=kind)
    jsonschema.validate(record, RECORD)
    assert record["truncated"] is True
