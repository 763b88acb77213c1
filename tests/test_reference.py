"""`reference: true`: files listed by path, size, tokens and sha256 with a preview, not included."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import jsonschema
import pytest

from ctxguard import read, reference
from ctxguard.config.load import parse_config
from ctxguard.errors import ConfigError
from ctxguard.main import main
from ctxguard.tokens.load import get_tokenizer
from tests.conftest import ROOT
from tests.generate import log_of
from tests.gitrepo import Repo
from tests.helpers import independent_count

SCHEMA = json.loads((ROOT / "ctxguard/schemas/bundle.schema.json").read_text())
CONFIG = """\
version: 1
artifacts:
  - name: diff
    diff: staged
    budget: 2000
  - name: build-logs
    paths: ["logs/*"]
    budget: 800
    reference: true
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.write(".ctxguard.yaml", CONFIG)
    r.write("app.py", "def main():\n    return 1\n")
    r.commit("initial")
    r.write("app.py", "def main():\n    return 2\n")
    r.add("app.py")
    r.write("logs/build.log", log_of(4000) + "export API_TOKEN=Zq7vX2mK9pL4rT8wY3nB6cD1\n")
    return r


def _bundle(repo: Repo, *args: str) -> dict:  # type: ignore[type-arg]
    before = repo.snapshot()
    main(["bundle", "--repo", str(repo.path), *args])
    assert repo.snapshot() == before
    return json.loads((repo.path / ".git/ctxguard/bundle.json").read_text())


def _by_name(bundle: dict, name: str) -> dict:  # type: ignore[type-arg]
    return next(a for a in bundle["artifacts"] if a["artifact_name"] == name)


def test_reference_lists_the_file_instead_of_its_content(repo: Repo) -> None:
    bundle = _bundle(repo)
    jsonschema.validate(bundle, SCHEMA)
    raw = (repo.path / "logs/build.log").read_bytes()
    ref = _by_name(bundle, "logs/build.log")
    assert ref["read"] == "reference" and ref["truncated"] is True and ref["tier"] == 0
    assert ref["reference"] == {
        "path": "logs/build.log",
        "bytes": len(raw),
        "lines": raw.decode().count("\n"),
        "tokens": ref["raw_tokens"],
        "sha256": hashlib.sha256(raw).hexdigest(),
    }
    assert ref["raw_tokens"] > 10 * ref["budget"]  # far bigger than what the record carries
    assert ref["content"].startswith("[REFERENCE: logs/build.log is not included")
    assert hashlib.sha256(raw).hexdigest() in ref["content"]
    lines = raw.decode().splitlines(keepends=True)
    shown = re.search(rf"\nFirst (\d+) of {len(lines)} lines:\n", ref["content"])
    assert shown and 5 <= int(shown.group(1)) <= reference.PREVIEW_LINES  # 200 tokens of preview
    assert ref["content"].endswith("\n" + "".join(lines[: int(shown.group(1))]))
    assert ref["compacted_tokens"] == independent_count(ref["content"]) <= ref["budget"]
    assert "read" not in _by_name(bundle, "diff")  # (said only when not "required")
    assert bundle["totals"]["references"] == 1 and bundle["totals"]["truncated"] == 0
    assert "logs/build.log: tier 0, REFERENCE (not included: read on demand)" in bundle["digest"]


def test_reference_tokens_are_counted_after_redaction(repo: Repo) -> None:
    repo.write("logs/build.log", "start\nexport API_TOKEN=Zq7vX2mK9pL4rT8wY3nB6cD1\nend\n")
    ref = _by_name(_bundle(repo), "logs/build.log")
    assert "Zq7vX2mK9pL4rT8wY3nB6cD1" not in json.dumps(ref)
    assert "All 3 lines:\n" in ref["content"] and "[REDACTED" in ref["content"]
    assert any(note.startswith("redacted 1 secret value") for note in ref["notes"])
    shown = ref["content"].split("All 3 lines:\n")[1]
    assert ref["raw_tokens"] == independent_count(shown)


def test_reference_passes_fail_on_truncated_but_a_cut_does_not(repo: Repo) -> None:
    assert main(["check", "--repo", str(repo.path)]) == 0
    repo.write(".ctxguard.yaml", CONFIG.replace("    reference: true\n", ""))
    assert main(["check", "--repo", str(repo.path)]) == 1


def test_reference_to_a_missing_file_is_a_missing_record(repo: Repo) -> None:
    repo.write(".ctxguard.yaml", CONFIG.replace('["logs/*"]', '["logs/*", "logs/gone.log"]'))
    bundle = _bundle(repo)
    gone = _by_name(bundle, "logs/gone.log")
    assert gone["read"] == "reference" and gone["error"] == "artifact not found at logs/gone.log"
    assert gone["content"] == "[ERROR: artifact not found at logs/gone.log]" and gone["missing"] is True
    assert main(["check", "--repo", str(repo.path)]) == 0  # optional unless required
    repo.write(".ctxguard.yaml", CONFIG.replace('["logs/*"]', '["logs/*", "logs/gone.log"]') + "    required: true\n")
    assert main(["check", "--repo", str(repo.path)]) == 1


def test_reference_to_binary_data_gives_size_and_sha256_only(repo: Repo) -> None:
    data = b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(range(256)) * 4
    repo.write("logs/screenshot.png", data)
    ref = _by_name(_bundle(repo), "logs/screenshot.png")
    assert ref["reference"]["tokens"] is None and ref["reference"]["lines"] is None
    assert ref["reference"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert f"{len(data):,} bytes of binary data" in ref["content"]
    assert "error" not in ref


def test_reference_to_a_fifo_is_refused_at_once(repo: Repo) -> None:
    os.mkfifo(repo.path / "logs/pipe.log")
    gone = _by_name(_bundle(repo), "logs/pipe.log")
    assert "named pipe (FIFO)" in gone["error"] and gone["read"] == "reference"


def test_reference_of_a_big_file_is_streamed_with_the_same_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.log"
    path.write_text(log_of(2000), encoding="utf-8")
    tokenizer = get_tokenizer()
    whole = reference.describe(path, "big.log", tokenizer)
    monkeypatch.setattr(read, "STREAM_BYTES", 1024)
    streamed = reference.describe(path, "big.log", tokenizer)
    assert isinstance(whole, reference.Described) and isinstance(streamed, reference.Described)
    assert streamed == whole


@pytest.mark.parametrize("budget", [32, 40, 60, 80, 120, 400])
def test_reference_content_fits_any_budget(tmp_path: Path, budget: int) -> None:
    name = "logs/" + "very-long-directory-name/" * 6 + "build.log"
    path = tmp_path / "f.log"
    path.write_text(log_of(50), encoding="utf-8")
    tokenizer = get_tokenizer()
    found = reference.describe(path, name, tokenizer)
    assert isinstance(found, reference.Described)
    record = reference.record(found, budget, tokenizer, "log")
    assert record.compacted_tokens == independent_count(record.content) <= budget
    assert record.content.startswith("[REFERENCE:")
    assert record.reference is not None and record.reference.path == name


def test_reference_is_only_for_files_artifacts() -> None:
    with pytest.raises(ConfigError, match=r"artifacts\[0\].reference: applies to files artifacts"):
        parse_config("artifacts:\n  - name: d\n    diff: staged\n    budget: 100\n    reference: true\n")


def test_markdown_bundle_says_reference_not_included(repo: Repo) -> None:
    main(["bundle", "--repo", str(repo.path), "--format", "markdown"])
    text = (repo.path / ".git/ctxguard/bundle.md").read_text()
    assert "  - omitted: `logs/build.log`" in text and "### logs/build.log\n\nlog, omitted," in text
