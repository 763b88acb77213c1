"""Big logs are streamed: exact counts, the salient cut, redaction, all without reading them whole."""
from __future__ import annotations

import re
from pathlib import Path

import jsonschema
import pytest

from ctxguard import stream
from ctxguard.api import compress_file
from ctxguard.redact import redact
from tests.generate import log_of
from tests.helpers import independent_count
from tests.test_hostile import RECORD

MARKER = re.compile(r"\[TRUNCATED: content exceeds budget, remaining (\d+) tokens omitted\]")


@pytest.fixture
def small_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stream anything over 20 kB, in blocks of 4 kB, so small test files take the big-file path."""
    monkeypatch.setattr(stream, "STREAM_BYTES", 20_000)
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
