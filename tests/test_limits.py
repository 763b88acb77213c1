"""Limits instead of crashes: hostile configs, endless stdin, failing disks, missing git, exact
counts, an index never written, paths an agent can open."""

from __future__ import annotations

import base64
import io
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ctxguard.bundle.output import remove_stale, write_atomic
from ctxguard.config.load import parse_config
from ctxguard.errors import ConfigError
from ctxguard.git.paths import header_path, unquote
from ctxguard.main import main
from ctxguard.read import BINARY, read_artifact, spool
from ctxguard.tokens.exact import exact_pieces
from ctxguard.tokens.load import get_tokenizer, tiktoken_encoding
from tests.conftest import ROOT
from tests.gitrepo import Repo, configured

_LEVELS = "".join(f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
BOMB = 'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]\n' + _LEVELS + "artifacts: *i\n"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (BOMB, "expands to more than"),
        ("artifacts: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
        ("artifacts:\n" + "".join("  " * i + "- a:\n" for i in range(1, 60)), "nested more than"),
    ],
)
def test_a_hostile_config_is_refused_at_once_in_bounded_memory(text: str, says: str) -> None:
    started = time.perf_counter()
    with pytest.raises(ConfigError, match=says):
        parse_config(text)
    assert time.perf_counter() - started < 20  # (was 80 s and 5 GB, then MemoryError)


def test_a_yaml_bomb_in_the_repository_is_exit_2_with_a_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = configured(tmp_path / "repo", BOMB)
    assert main(["check", "--repo", str(repo.path)]) == 2
    err = capsys.readouterr().err
    assert "expands to more than" in err and "Traceback" not in err


def test_stdin_is_spooled_in_blocks_and_binary_stops_at_the_first_block(tmp_path: Path) -> None:
    class Endless(io.RawIOBase):
        """/dev/zero: reads never end; counts what was taken."""

        taken = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
            buffer[:] = bytes(len(buffer))
            self.taken += len(buffer)
            return len(buffer)

    zeros = Endless()
    assert spool(io.BufferedReader(zeros), tmp_path) == BINARY
    assert zeros.taken <= 4 << 20  # stopped at once, not at the cap
    text = io.BytesIO(b"INFO ok\n" * 200_000)
    found = spool(text, tmp_path, limit=1 << 20)
    assert isinstance(found, str) and "over 1 MiB" in found and "pass the file's path" in found
    small = spool(io.BytesIO(b"INFO ok\nERROR bad\n"), tmp_path)
    assert isinstance(small, Path) and read_artifact(small).text == "INFO ok\nERROR bad\n"


def test_compress_dash_reads_stdin_like_a_file_and_refuses_dev_zero() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = "".join(f"INFO step {i}\n" for i in range(3000)) + "ERROR the one failure\n"
    done = subprocess.run(
        [sys.executable, "-m", "ctxguard", "compress", "-", "--budget", "200"],
        input=log,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    record = json.loads(done.stdout)
    assert done.returncode == 0 and record["artifact_name"] == "-" and "ERROR the one failure" in record["content"]
    with open("/dev/zero", "rb") as zero:
        done = subprocess.run(
            [sys.executable, "-m", "ctxguard", "compress", "-", "--budget", "200"],
            stdin=zero,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
    assert done.returncode == 2 and "binary data" in done.stderr and "Traceback" not in done.stderr


def test_a_nul_byte_past_the_first_block_is_binary_not_text(tmp_path: Path) -> None:
    path = tmp_path / "app.log"
    path.write_bytes(b"INFO fine\n" * 2000 + b"\x00\x01\x02 core dump\n")
    loaded = read_artifact(path)
    assert loaded.text is None and loaded.error is not None and "NUL byte at byte 20,000" in loaded.error


@pytest.mark.parametrize("case", ["directory", "read-only", "no-space", "too-big"])
def test_write_failures_are_exit_2_with_what_to_do(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    repo = configured(tmp_path / "repo", "version: 1\nfail_on: never\nartifacts:\n  - name: diff\n    budget: 500\n")
    repo.write("a.py", "x = 1\n")
    repo.add("a.py")
    output = tmp_path / "out" / "bundle.json"
    output.parent.mkdir()
    expected = {
        "directory": "is a directory",
        "read-only": "read-only",
        "no-space": "no space left",
        "too-big": "file-size limit",
    }[case]
    if case == "directory":
        output.mkdir()
    else:
        code = {"read-only": errno.EROFS, "no-space": errno.ENOSPC, "too-big": errno.EFBIG}[case]

        def refuse(*args: object, **kwargs: object) -> object:
            raise OSError(code, os.strerror(code), str(output.parent))

        monkeypatch.setattr("tempfile.mkstemp", refuse)
    assert main(["bundle", "--repo", str(repo.path), "--output", str(output)]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err and "bug in ctxguard" not in err


def test_git_missing_from_path_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = configured(tmp_path / "repo", "version: 1\nartifacts:\n  - name: diff\n    budget: 500\n")
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    monkeypatch.delenv("GIT_PYTHON_GIT_EXECUTABLE", raising=False)
    assert main(["bundle", "--repo", str(repo.path)]) == 2
    assert "git is not installed or not on PATH" in capsys.readouterr().err


def test_a_killed_writers_temporary_file_is_removed_by_the_next_run(tmp_path: Path) -> None:
    target = tmp_path / "bundle.json"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    stale = tmp_path / f".bundle.json.{dead.stdout.strip()}.abc123.tmp"
    stale.write_text("{ half a bundle")
    live = tmp_path / f".bundle.json.{os.getpid()}.def456.tmp"
    live.write_text("{ being written")
    other = tmp_path / ".notes.md.1.xyz.tmp"
    other.write_text("someone else's")
    write_atomic(target, "{}\n")
    assert not stale.exists() and live.exists() and other.exists()
    assert target.read_text() == "{}\n" and remove_stale(target) == []


# --- counts ----------------------------------------------------------------------------------


def _long_runs(seed: int) -> list[str]:
    rng = random.Random(seed)
    js = "var a=function(b){return b+1};if(x<3)y.z[4]='q';"
    return [
        base64.b64encode(rng.randbytes(rng.randint(9_000, 60_000))).decode(),
        "".join(rng.choice(js) for _ in range(rng.randint(9_000, 60_000))),
        "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(rng.randint(5_000, 30_000))),
        json.dumps(
            [{f"k{j}": rng.random(), "v": "x" * rng.randint(0, 9)} for j in range(rng.randint(300, 2000))],
            separators=(",", ":"),
        ),
        "prefix " + "".join(rng.choice("ab1") for _ in range(40_000)) + " suffix\n",
    ]


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
@pytest.mark.parametrize("seed", range(6))
def test_counts_of_long_runs_are_exact(encoding: str, seed: int) -> None:
    plain = tiktoken_encoding(encoding)
    tokenizer = get_tokenizer(encoding)
    for text in _long_runs(seed):
        exact = len(plain.encode_ordinary(text))
        assert tokenizer.count(text) == exact
        assert tokenizer.encode(text).count == exact


def test_a_long_run_is_cut_only_where_a_letter_meets_a_digit() -> None:
    run = "x " + "ab" * 20_000 + "c7" + "de" * 20_000
    pieces = list(exact_pieces(run))
    assert "".join(pieces) == run and len(pieces) == 2 and pieces[1].startswith("7")
    assert list(exact_pieces("q" * 50_000)) == ["q" * 50_000]  # letters only: never cut


def test_a_record_never_reports_fewer_tokens_than_its_content_holds() -> None:
    from ctxguard.api import compress_text

    text = base64.b64encode(random.Random(3).randbytes(30_000)).decode()
    exact = len(tiktoken_encoding("o200k_base").encode_ordinary(text))
    record = compress_text(text, exact)
    assert record["tier"] == 1 and record["raw_tokens"] == exact == record["compacted_tokens"]


def test_a_json_cut_that_cannot_be_packed_is_a_marked_valid_json_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxguard.api import compress_text

    text = (ROOT / "tests/samples/json-nested-at-a-tiny-budget.json").read_text()
    record = compress_text(text, 64, artifact_type="json")  # (a head cut of it did not parse)
    assert record["tier"] == 3 and "TRUNCATED" in json.dumps(json.loads(record["content"]))
    monkeypatch.setattr("ctxguard.engine.tiers.pack", lambda *args, **kwargs: None)  # nothing fits at all
    record = compress_text(text, 64, artifact_type="json")
    assert record["tier"] == 3 and record["truncated"] and "TRUNCATED" in json.loads(record["content"])
    assert any("only the marker" in n for n in record["notes"])


# --- the index and paths ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["staged", "worktree", "HEAD", "HEAD~1...HEAD", "HEAD"])
def test_no_diff_mode_writes_the_index_or_takes_its_lock(tmp_path: Path, mode: str) -> None:
    repo = configured(
        tmp_path / "repo",
        f"version: 1\nfail_on: never\nartifacts:\n  - name: d\n    diff: {mode!r}\n    budget: 2000\n",
    )
    for i in range(20):
        repo.write(f"f{i}.py", f"x = {i}\n")
    repo.commit("one")
    repo.write("f0.py", "x = 100\n")
    repo.commit("two")
    repo.write("f1.py", "x = 200\n")
    repo.add("f1.py")
    repo.write("f2.py", "x = 300\n")
    time.sleep(1.1)  # stat-dirty: same content, newer times than the index recorded
    for i in range(3, 20):
        os.utime(repo.path / f"f{i}.py")
    index = repo.path / ".git/index"
    before = (index.read_bytes(), index.stat().st_mtime_ns)
    assert main(["bundle", "--repo", str(repo.path), "--stdout"]) == 0
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    assert not (repo.path / ".git/index.lock").exists()


@pytest.mark.parametrize(
    ("header", "path"),
    [
        ('diff --git "a/my tests/x y.py" "b/my tests/x y.py"', "my tests/x y.py"),
        ("diff --git a/my tests/x y.py b/my tests/x y.py", "my tests/x y.py"),
        ('diff --git "a/t\\303\\274r.py" "b/t\\303\\274r.py"', "tür.py"),
        ('diff --git "a/a\\"b\\\\c.py" "b/a\\"b\\\\c.py"', 'a"b\\c.py'),
        ("diff --git a/a b/c.py b/a b/c.py", "a b/c.py"),
    ],
)
def test_a_diff_header_gives_one_path_as_text(header: str, path: str) -> None:
    assert header_path(header) == path
    assert unquote('"t\\303\\274r.py"') == "tür.py" and unquote("plain.py") == "plain.py"


def test_files_the_digest_and_the_listing_show_utf8_paths_whatever_quotepath_says(tmp_path: Path) -> None:
    repo = configured(tmp_path / "repo", "version: 1\nfail_on: never\nartifacts:\n  - name: diff\n    budget: 20000\n")
    repo.git.git.config("core.quotePath", "true")
    repo.write("docs/über uns.md", "# Hallo\n")
    repo.write('odd "name".py', "x = 1\n")
    repo.add()
    out = tmp_path / "bundle.json"
    assert main(["bundle", "--repo", str(repo.path), "--output", str(out)]) == 0
    bundle = json.loads(out.read_text())
    record = bundle["artifacts"][0]
    assert {row[0] for row in record["files"]["rows"]} == {"docs/über uns.md", 'odd "name".py'}
    assert "2 files changed" in bundle["digest"] and "\\303" not in bundle["digest"]
    assert "\\303" not in json.dumps(record["files"])


def test_the_repository_alone_is_not_written_by_a_bundle(tmp_path: Path) -> None:
    repo: Repo = configured(tmp_path / "repo", "version: 1\nfail_on: never\nartifacts:\n  - name: d\n    budget: 500\n")
    repo.write("a.py", "x = 1\n")
    repo.add("a.py")
    before = repo.snapshot()
    assert main(["bundle", "--repo", str(repo.path), "--stdout"]) == 0
    assert repo.snapshot() == before


# --- the smaller ones --------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0.5", "11"])
def test_a_tier2_ratio_that_is_no_ratio_is_refused(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["compress", str(ROOT / "README.md"), "--budget", "100", f"--tier2-ratio={value}"])
    assert stopped.value.code == 2 and "--tier2-ratio" in capsys.readouterr().err


def test_invalid_json_kept_whole_says_it_is_not_json() -> None:
    from ctxguard.api import compress_text

    record = compress_text('{"a": 1,, "b": 2}\n', 500, artifact_type="json")
    assert record["tier"] == 1 and any("not valid json" in n for n in record["notes"])


def test_a_cut_of_json_with_repeated_keys_says_so() -> None:
    from ctxguard.api import compress_text

    items = ",".join(f'{{"id": {i}, "status": "ok", "status": "failed", "note": "{"word " * 30}"}}' for i in range(60))
    record = compress_text(f'{{"runs": [{items}]}}', 400, artifact_type="json")
    assert record["tier"] == 3 and json.loads(record["content"])
    assert any("repeated key" in n and "status" in n for n in record["notes"])


def test_split_file_keeps_the_digest_short(tmp_path: Path) -> None:
    from ctxguard.digest import MAX_ARTIFACTS

    budget = (MAX_ARTIFACTS + 151) * 32  # (each file its smallest budget: every one alone)
    repo = configured(
        tmp_path / "repo",
        f"version: 1\nfail_on: never\nartifacts:\n  - name: diff\n    budget: {budget}\n    split: file\n",
    )
    for i in range(MAX_ARTIFACTS + 150):
        repo.write(f"pkg/m{i:04d}.py", f"VALUE = {i}\n")
    repo.add()
    out = tmp_path / "bundle.json"
    assert main(["bundle", "--repo", str(repo.path), "--output", str(out)]) == 0
    digest = json.loads(out.read_text())["digest"]
    status = [line for line in digest.splitlines() if line.startswith("- diff/") or line.startswith("- pkg/")]
    assert len(status) <= MAX_ARTIFACTS + 100 and "more artifacts, each in its own record" in digest


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_a_written_file_has_the_mode_the_umask_gives(tmp_path: Path, umask: int) -> None:
    """A bundle is written as any file the user writes: 0644 under umask 022, not mkstemp's 0600."""
    code = (
        "import os, sys; from pathlib import Path; from ctxguard.bundle.output import write_atomic\n"
        f"os.umask({umask}); write_atomic(Path(sys.argv[1]), 'x')\n"
    )
    target = tmp_path / "bundle.json"
    subprocess.run([sys.executable, "-c", code, str(target)], check=True)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_split_file_keeps_to_the_entrys_budget_and_lists_the_files_it_groups(tmp_path: Path) -> None:
    """120 one-line files at budget 1,000: as many as fit their smallest budget come alone, the
    rest together in one artifact whose notes name them; the entry's content keeps to 1,000."""
    repo = configured(tmp_path / "repo", "version: 1\nartifacts:\n  - name: diff\n    budget: 1000\n    split: file\n")
    for i in range(120):
        repo.write(f"pkg/m{i:03d}.py", f"VALUE = {i}\n")
    repo.add()
    out = tmp_path / "bundle.json"
    assert main(["bundle", "--repo", str(repo.path), "--output", str(out)]) == 0
    records = [r for r in json.loads(out.read_text())["artifacts"] if r["artifact_name"].startswith("diff:")]
    assert sum(r["compacted_tokens"] for r in records) <= 1000
    assert sum(r["budget"] for r in records) <= 1000
    other = next(r for r in records if r["artifact_name"] == "diff:other files")
    said = next(n for n in other["notes"] if n.startswith("split: file:"))
    alone = {r["artifact_name"].removeprefix("diff:") for r in records} - {"other files"}
    named = {f"pkg/m{i:03d}.py" for i in range(120)} - alone
    assert len(alone) == 1000 // 32 - 1 and all(path in said for path in sorted(named)[:50])
    assert f"{len(named) - 50} more" in said
