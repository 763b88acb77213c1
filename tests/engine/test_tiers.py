"""The artifact contract, point by point."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from ctxguard import compress_file, compress_text
from ctxguard.engine.tiers import compress, marker
from ctxguard.options import MIN_BUDGET, Options
from ctxguard.tokens.base import HEURISTIC_WARNING, HeuristicTokenizer
from ctxguard.tokens.load import get_tokenizer
from tests.generate import log_of, prose_of
from tests.helpers import independent_count

TOKENIZER = get_tokenizer()

CONTRACT = ["artifact_name", "raw_tokens", "compacted_tokens", "truncated", "content"]
MARKER = re.compile(r"\[TRUNCATED: content exceeds budget, remaining (\d+) tokens omitted\]$")


def test_record_starts_with_the_five_contract_fields_then_the_extras() -> None:
    record = compress_text("hello", 100, name="a.txt")
    assert list(record)[:5] == CONTRACT
    assert {"type", "tier", "budget", "encoding"} <= set(record)


def test_tier1_is_identity() -> None:
    text = "line one\nline two\n"
    record = compress_text(text, 100)
    assert record["content"] == text
    assert record["compacted_tokens"] == record["raw_tokens"] == independent_count(text)
    assert record["truncated"] is False and record["tier"] == 1


def test_tier2_fits_is_valid_and_not_truncated() -> None:
    text = log_of(1300)
    record = compress_text(text, 1000, name="service.log")
    assert record["tier"] == 2 and record["truncated"] is False
    assert independent_count(record["content"]) == record["compacted_tokens"] <= 1000
    assert "ZeroDivisionError: division by zero" in record["content"]


def test_tier3_cut_is_token_exact_and_marker_states_true_remainder() -> None:
    text = prose_of(5000)
    record = compress_text(text, 800, name="notes.txt", tier3="head")
    content = record["content"]
    assert record["tier"] == 3 and record["truncated"] is True
    assert independent_count(content) == record["compacted_tokens"] <= 800
    match = MARKER.search(content)
    assert match, content[-200:]
    shown = content[: match.start()]
    assert text.startswith(shown)
    # N is the number of raw tokens not shown: the raw tokens minus those wholly in `shown`.
    encoded = get_tokenizer().encode(text)
    assert int(match.group(1)) == encoded.count - encoded.tokens_within(len(shown))
    assert int(match.group(1)) >= independent_count(text) - independent_count(shown) - 1


def test_tier3_cuts_at_a_paragraph_boundary() -> None:
    text = prose_of(3000)
    content = compress_text(text, 700, tier3="head")["content"]
    shown = content[: MARKER.search(content).start()]  # type: ignore[union-attr]
    assert shown.endswith("\n\n")


def test_tier3_cuts_at_a_line_break_without_paragraphs() -> None:
    text = "".join(f"line {i} of a log without blank lines\n" for i in range(2000))
    content = compress_text(text, 300, artifact_type="text", name="x", tier3="head")["content"]
    shown = content[: MARKER.search(content).start()]  # type: ignore[union-attr]
    assert shown.endswith("\n") and not shown.endswith("\n\n")


def test_tier3_cuts_at_a_token_when_there_is_no_line_break() -> None:
    text = "word " * 5000
    record = compress_text(text, 100, tier3="head")
    assert record["compacted_tokens"] <= 100 and MARKER.search(record["content"])
    assert independent_count(record["content"]) <= 100


def test_over_ratio_goes_straight_to_tier3() -> None:
    text = log_of(2000)
    assert compress_text(text, 1000, name="a.log")["tier"] == 3


def test_tier2_ratio_is_a_setting() -> None:
    text = log_of(2000)
    record = compress(text, 1000, tokenizer=get_tokenizer(), name="a.log", options=Options(tier2_ratio=2.5))
    assert record.tier == 2


def test_budget_below_minimum_is_refused() -> None:
    with pytest.raises(ValueError, match="at least"):
        compress_text("x", MIN_BUDGET - 1)


@pytest.mark.parametrize(
    ("raw", "budget", "tier", "truncated"),
    [(3_200, 5_000, 1, False), (12_000, 10_000, 2, False), (25_000, 3_000, 3, True)],
)
def test_worked_examples(raw: int, budget: int, tier: int, truncated: bool) -> None:
    text = log_of(raw)
    assert raw - 60 <= independent_count(text) <= raw
    record = compress_text(text, budget, name="ci.log")
    assert (record["tier"], record["truncated"]) == (tier, truncated)
    assert independent_count(record["content"]) <= budget
    if tier == 1:
        assert record["content"] == text
    if tier == 3:
        assert MARKER.search(record["content"])


def test_missing_artifact_record(tmp_path: object) -> None:
    path = f"{tmp_path}/nope.log"
    assert compress_file(path, 100) == {
        "artifact_name": path,
        "raw_tokens": 0,
        "compacted_tokens": 0,
        "truncated": True,
        "content": f"[ERROR: artifact not found at {path}]",
        "type": "log",
        "tier": 0,
        "budget": 100,
        "encoding": "o200k_base",
        "read": "required",
        "error": f"artifact not found at {path}",
    }


def test_directory_and_binary_get_error_records(tmp_path: object) -> None:
    from pathlib import Path

    base = Path(str(tmp_path))
    (base / "blob.bin").write_bytes(b"\x89PNG\x00\x00\x01")
    directory = compress_file(base, 100)
    binary = compress_file(base / "blob.bin", 100)
    assert directory["content"].startswith("[ERROR: ") and "directory" in directory["content"]
    assert binary["content"] == "[ERROR: binary data (NUL bytes); not a text artifact]"
    assert binary["truncated"] is True and binary["raw_tokens"] == 0


def test_heuristic_tokenizer_prefixes_warning_and_stays_within_budget() -> None:
    tokenizer = HeuristicTokenizer(reason="offline")
    text = "x" * 4000
    record = compress(text, 200, tokenizer=tokenizer)
    assert record.content.startswith(HEURISTIC_WARNING + "\n")
    assert record.encoding == "heuristic"
    assert record.compacted_tokens == tokenizer.count(record.content) <= 200
    small = compress("tiny", 200, tokenizer=tokenizer)
    assert small.content == HEURISTIC_WARNING + "\ntiny" and small.tier == 1


def test_cli_strict_refuses_the_estimate(tmp_path: object) -> None:
    from pathlib import Path

    artifact = Path(str(tmp_path)) / "a.txt"
    artifact.write_text("hello\n")
    env = dict(os.environ, TIKTOKEN_CACHE_DIR=str(tmp_path), HTTPS_PROXY="http://127.0.0.1:9")
    # No cache, no network and (BUNDLED pointed at an empty folder) no shipped files either.
    code = (
        "import sys; from pathlib import Path; import ctxguard.tokens.load as t; t.BUNDLED = Path(sys.argv[1]); "
        "from ctxguard.main import main; raise SystemExit(main(sys.argv[2:]))"
    )
    base = [sys.executable, "-c", code, str(tmp_path), "compress", str(artifact), "--budget", "100"]
    lax = subprocess.run(base, capture_output=True, text=True, env=env)
    strict = subprocess.run(base + ["--strict"], capture_output=True, text=True, env=env)
    assert lax.returncode == 0 and json.loads(lax.stdout)["encoding"] == "heuristic"
    assert strict.returncode == 2 and "--strict" in strict.stderr and not strict.stdout


def test_marker_shape() -> None:
    assert marker(12) == "[TRUNCATED: content exceeds budget, remaining 12 tokens omitted]"


def test_tier_2_says_what_it_left_out_never_nothing_cut() -> None:
    from ctxguard.digest import Facts, render
    from ctxguard.record import Record, omissions

    def made(content: str, omitted: tuple[tuple[str, int], ...]) -> Record:
        return Record("app.log", 900, 500, False, content, "log", 2, 600, "o200k_base", omitted=omitted)

    assert omissions(made("x\n", (("char", 7), ("line", 121)))) == "compressed: 121 lines, 7 chars omitted"
    assert omissions(made("x\n", (("item", 1),))) == "compressed: 1 item omitted"
    assert omissions(made("x\n", ())) == "compressed: rewritten shorter, nothing omitted"
    digest = render(Facts([], [], []), [made("x\n... (lines 2-41 omitted)\ny\n", (("line", 40),))])
    assert "app.log: tier 2, compressed: 40 lines omitted" in digest and "nothing cut" not in digest


def test_what_tier_2_left_out_is_counted_by_the_cut_not_read_back_from_its_text() -> None:
    # A log that quotes gap lines and clipped lines of its own (a log of ctxguard's output): its
    # cut counts the lines it left out, not the look-alikes it shows.
    lines = [f"step {i}: ... (999 lines omitted) and (5 chars omitted)\n" for i in range(300)]
    text = "".join(lines) + "ERROR: the build failed\n"
    raw = TOKENIZER.count(text)
    record = compress(text, int(raw / 1.3), tokenizer=TOKENIZER, artifact_type="log")
    assert record.tier == 2
    shown = record.content.count("step ")
    assert dict(record.omitted) == {"line": 300 - shown}
    # A JSON cut counts the items its notes say it left out.
    data = json.dumps({"results": [{"name": f"test_{i}", "outcome": "passed"} for i in range(400)]})
    cut = compress(data, int(TOKENIZER.count(data) / 1.4), tokenizer=TOKENIZER, artifact_type="json")
    assert cut.tier == 2
    said = sum(int(n) for n in re.findall(r"(\d+) items? omitted", cut.content))
    assert said > 0 and dict(cut.omitted).get("item") == said


def test_a_reports_tier_2_cut_counts_what_its_gaps_stand_for() -> None:
    # A JUnit report's tier 2 (its rendering cut) counts its gaps' lines and failing testcases.
    cases = "".join(
        f'<testcase classname="t.T" name="test_{i}"><failure message="boom {i}">trace {i}</failure></testcase>'
        for i in range(60)
    )
    xml = f'<testsuite name="s" tests="60" failures="60">{cases}</testsuite>'
    raw = TOKENIZER.count(xml)
    for budget in range(raw // 2, raw, max(1, raw // 40)):
        record = compress(xml, budget, tokenizer=TOKENIZER, artifact_type="junit")
        if record.tier == 2 and "omitted" in record.content:
            break
    else:
        pytest.fail("no tier-2 cut with a gap was found")
    counted = dict(record.omitted)
    said = sum(int(n) for n in re.findall(r"^\.\.\. \((\d+) lines? omitted\)$", record.content, re.M))
    assert set(counted) <= {"failing testcase", "line"} and counted.get("line") == said > 0


def test_options_are_one_frozen_value_checked_when_made() -> None:
    import dataclasses

    import pytest

    from ctxguard.kinds.classify import classify

    options = Options(task="fix the parser", tier2_ratio=2.0, tier3="head")
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.tier3 = "salient"  # type: ignore[misc]
    with pytest.raises(ValueError, match="tier2_ratio must be a number of at least 1"):
        Options(tier2_ratio=0.5)
    with pytest.raises(ValueError, match="tier3 must be one of salient, head"):
        Options(tier3="tail")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="type must be one of diff, json, log, markdown, text"):
        classify("x.txt", "", "yaml")
    record = compress("word " * 400, 100, tokenizer=get_tokenizer(), name="a.txt", options=options)
    assert record.task == "fix the parser" and record.tier == 3


def test_a_one_line_file_bigger_than_its_budget_keeps_its_start() -> None:
    """A minified bundle is one line: the salient cut, which keeps whole lines, would show the
    marker alone; the head cut shows as much of the line as the budget holds."""
    import random

    pick = random.Random(7)
    text = ";".join(f"function f{i}(a,b){{return a*{pick.randint(1, 99)}+b.x{i % 7}}}" for i in range(3000))
    tokenizer = get_tokenizer()
    record = compress(text, 5000, tokenizer=tokenizer, name="dist/app.min.js")
    assert record.tier == 3 and record.truncated and record.raw_tokens > 30000
    assert 4900 <= record.compacted_tokens <= 5000 and record.content.startswith("function f0(a,b){return a*")
    assert any("a head cut shows their start" in note for note in record.notes)
