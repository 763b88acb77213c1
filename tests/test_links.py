"""From failure to cause: failures linked to the changed hunks they reach (ctxguard.links), the
linked hunks first in their diff's cut, and the links said in the digest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from ctxguard.kinds.base import Change, Failure
from ctxguard.kinds.diff.changes import changes
from ctxguard.links import link, same_file, words
from ctxguard.main import main
from tests.conftest import ROOT
from tests.gitrepo import Repo

SCHEMA = json.loads((ROOT / "ctxguard/schemas/bundle.schema.json").read_text())

HUNKS = [
    (0, "change.diff", Change("src/ledger/parse.py", 200, 215, ("parse_amount",), (40, 41))),
    (0, "change.diff", Change("src/ledger/money.py", 10, 14, ("Money",), (60,))),
    (0, "change.diff", Change("src/ledger/report.py", 30, 33, ("render",), (80, 81))),
]


def test_a_frame_inside_a_hunk_links_it_wherever_the_runner_checked_the_file_out() -> None:
    for frame in (
        "src/ledger/parse.py:212",
        "/home/runner/work/ledger/ledger/src/ledger/parse.py:212",  # (a CI workspace)
        "/usr/lib/python3.11/site-packages/ledger/parse.py:214",  # (the installed package)
        "C:\\a\\ledger\\src\\ledger\\parse.py:199",  # (Windows, a line just above the hunk)
        "./src/ledger/parse.py:217:5",  # (a column, two lines below)
    ):
        found = link([(1, "tests.log", Failure("ValueError: bad amount", frames=[frame], tests=["t::x"]))], HUNKS)
        assert [(x.place, x.by) for x in found.links] == [("src/ledger/parse.py:200-215", f"frame {frame}")], frame
        assert found.focus == ((0, frozenset({40, 41})),)
    far = link([(1, "tests.log", Failure("E", frames=["src/ledger/parse.py:230"], tests=["t::x"]))], HUNKS)
    assert far.links == () and len(far.unlinked) == 1


def test_a_test_named_after_a_changed_definition_links_it() -> None:
    for test in (
        "tests/test_parse.py::test_parse_amount_rejects_garbage",
        "tests.test_parse.ParseAmountTest.test_commas",  # (JUnit's classname.name, camel case)
    ):
        found = link([(1, "r", Failure("AssertionError", tests=[test]))], HUNKS)
        assert [(x.definition, x.by) for x in found.links] == [("parse_amount", "name")], test
    assert words("parseAmount") == words("parse_amount") == ["parse", "amount"]
    # A frame is stronger evidence: a failure with one links by it alone.
    both = Failure("E", frames=["src/ledger/report.py:31"], tests=["tests/test_parse.py::test_parse_amount"])
    assert [x.by for x in link([(1, "r", both)], HUNKS).links] == ["frame src/ledger/report.py:31"]


def test_a_test_file_named_after_a_changed_file_and_a_failure_that_reaches_nothing() -> None:
    found = link([(1, "r", Failure("E", tests=["tests/test_money.py::test_add"]))], HUNKS)
    assert [(x.place, x.by) for x in found.links] == [("src/ledger/money.py:10-14", "file")]
    lost = link([(1, "r", Failure("ConnectionError: db down", tests=["tests/test_db.py::test_connect"]))], HUNKS)
    assert lost.links == () and lost.unlinked[0][1].cause == "ConnectionError: db down" and lost.focus == ()
    assert link([], HUNKS).links == () and link([(1, "r", Failure("E", tests=["x"]))], []).unlinked == ()


def test_same_file_reads_past_prefixes_but_not_other_files() -> None:
    assert same_file("/w/repo/src/pkg/mod.py", "src/pkg/mod.py")
    assert same_file("site-packages/pkg/mod.py", "src/pkg/mod.py")
    assert not same_file("src/other/mod.py", "src/pkg/mod.py") and not same_file("mod.py", "src/pkg/mod.py")


def test_a_diffs_hunks_as_data() -> None:
    diff = (
        "diff --git a/src/pkg/mod.py b/src/pkg/mod.py\n--- a/src/pkg/mod.py\n+++ b/src/pkg/mod.py\n"
        "@@ -10,4 +10,4 @@ def parse(text):\n     value = text.strip()\n-    if value == '-':\n"
        "+    if value == '+':\n         return None\n     return value\n"
        "@@ -40,2 +40,3 @@ def render(x):\n     return x\n+def fresh():\n+    pass\n"
    )
    found = changes(diff.splitlines(keepends=True))
    assert found == [
        Change("src/pkg/mod.py", 10, 13, ("parse",), (5, 6)),
        Change("src/pkg/mod.py", 40, 42, ("fresh",), (11, 12)),  # (what its changed lines are in)
    ]


# A change of two files: many edits in one (what a cut takes first on its own), and in the other
# the one quoted-string edit that breaks the test (what a cut on its own ranks last).
NOISE = "".join(f"def helper_{k}(value):\n    return value + {k}\n\n\n" for k in range(40))
PARSE = 'def parse_sign(text):\n    if text.startswith("-"):\n        return -1\n    return 1\n'
LOG = """\
============================= test session starts ==============================
collected 3 items

tests/test_sign.py F..                                                   [100%]

=================================== FAILURES ===================================
_______________________________ test_parse_sign ________________________________

    def test_parse_sign():
>       assert parse_sign("-5") == -1
E       AssertionError: assert 1 == -1

tests/test_sign.py:4: AssertionError
=========================== short test summary info ============================
FAILED tests/test_sign.py::test_parse_sign - AssertionError: assert 1 == -1
========================= 1 failed, 2 passed in 0.02s ==========================
"""


@pytest.fixture
def red(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "repo")
    repo.write("app/noise.py", NOISE)
    repo.write("app/sign.py", PARSE)
    repo.commit("initial")
    repo.write("app/noise.py", NOISE.replace("return value + ", "return value * "))
    repo.write("app/sign.py", PARSE.replace('startswith("-")', 'startswith("+")'))
    repo.write("reports/tests.log", LOG)
    repo.write(
        ".ctxguard.yaml",
        "version: 1\nfail_on: never\nartifacts:\n  - name: diff\n    diff: worktree\n    budget: 240\n"
        "  - name: tests\n    paths: [reports/tests.log]\n    budget: 400\n",
    )
    return repo


def test_a_red_change_shows_the_failure_with_the_changed_line_it_goes_through(red: Repo) -> None:
    assert main(["bundle", "--repo", str(red.path)]) == 0
    bundle = json.loads((red.path / ".git/ctxguard/bundle.json").read_text())
    diff = next(r for r in bundle["artifacts"] if r["artifact_name"] == "diff")
    assert diff["truncated"]
    assert '+    if text.startswith("+"):' in diff["content"]  # (the failing test's namesake, first)
    assert "Failures and the change (1 reach a changed hunk, 0 do not):" in bundle["digest"]
    assert "- tests/test_sign.py::test_parse_sign -> app/sign.py:1-4 (parse_sign) in diff, by name" in bundle["digest"]
    jsonschema.validate(bundle, SCHEMA)
    assert bundle["links"] == [
        {
            "test": "tests/test_sign.py::test_parse_sign",
            "cause": "AssertionError: assert 1 == -1",
            "artifact": "diff",
            "change": "app/sign.py:1-4",
            "definition": "parse_sign",
            "by": "name",
        }
    ]
    prompt = subprocess.run(
        [sys.executable, "-m", "ctxguard", "show", str(red.path / ".git/ctxguard/bundle.json"), "--format", "prompt"],
        capture_output=True,
        text=True,
    ).stdout
    assert "Failures and the change" in prompt and "app/sign.py:1-4 (parse_sign)" in prompt


def test_without_a_failure_the_diff_is_cut_as_before(red: Repo) -> None:
    (red.path / "reports/tests.log").write_text(LOG.replace("F..", "...").split("=== FAILURES")[0])
    assert main(["bundle", "--repo", str(red.path)]) == 0
    bundle = json.loads((red.path / ".git/ctxguard/bundle.json").read_text())
    diff = next(r for r in bundle["artifacts"] if r["artifact_name"] == "diff")
    assert '+    if text.startswith("+"):' not in diff["content"] and "Failures and the change" not in bundle["digest"]
    assert "links" not in bundle


def test_a_failure_that_reaches_no_change_is_said_plainly(red: Repo) -> None:
    (red.path / "reports/tests.log").write_text(
        LOG.replace("test_parse_sign", "test_connects").replace("tests/test_sign.py", "tests/test_db.py")
    )
    assert main(["bundle", "--repo", str(red.path)]) == 0
    bundle = json.loads((red.path / ".git/ctxguard/bundle.json").read_text())
    assert "Failures and the change (0 reach a changed hunk, 1 do not):" in bundle["digest"]
    assert "tests/test_db.py::test_connects (reports/tests.log) reaches no changed line" in bundle["digest"]
    assert [link["by"] for link in bundle["links"]] == [None]


def _failure(name: str, place: str, error: str) -> str:
    return (
        f"{'_' * 30} {name} {'_' * 30}\n\n    def {name}():\n>       check()\n\n"
        f"{place}: in check\n    raise {error.split(':')[0]}()\nE   {error}\n\n{place}: {error.split(':')[0]}\n"
    )


_OTHERS = ("KeyError: no such key", "TypeError: bad operand", "IndexError: out of range", "OSError: disk full",
           "RuntimeError: loop closed", "LookupError: not found")  # fmt: skip


def test_a_logs_frame_into_the_change_comes_before_the_other_failures_places(red: Repo) -> None:
    """Of two failures, the one whose traceback goes through a changed line is the one whose
    place a tight log cut shows, wherever it stands in the log."""
    noise = "".join(f"tests/test_misc.py::test_{k} PASSED\n" for k in range(200))
    log = (
        "=================================== FAILURES ===================================\n"
        + "".join(_failure(f"test_other_{k}", f"app/other_{k}.py:5", error) for k, error in enumerate(_OTHERS))
        + _failure("test_total", "app/sign.py:2", "AssertionError: wrong sign")
        + noise
        + "=========================== short test summary info ============================\n"
        + "FAILED tests/test_app.py::test_total - AssertionError: wrong sign\n"  # (the farthest from the end)
        + "".join(f"FAILED tests/test_app.py::test_other_{k} - {error}\n" for k, error in enumerate(_OTHERS))
        + "========================= 7 failed, 200 passed in 0.52s ==========================\n"
    )
    (red.path / "reports/tests.log").write_text(log)
    config = (red.path / ".ctxguard.yaml").read_text().replace("budget: 400", "budget: 200")
    (red.path / ".ctxguard.yaml").write_text(config)
    assert main(["bundle", "--repo", str(red.path)]) == 0
    bundle = json.loads((red.path / ".git/ctxguard/bundle.json").read_text())
    tests = next(r for r in bundle["artifacts"] if r["artifact_name"] == "reports/tests.log")
    assert tests["truncated"] and "app/sign.py:2: AssertionError" in tests["content"]
    assert "by frame app/sign.py:2" in bundle["digest"]
    (red.path / "app/sign.py").write_text(PARSE)  # (no change left in sign.py: nothing to reach)
    assert main(["bundle", "--repo", str(red.path)]) == 0
    bundle = json.loads((red.path / ".git/ctxguard/bundle.json").read_text())
    tests = next(r for r in bundle["artifacts"] if r["artifact_name"] == "reports/tests.log")
    assert "app/sign.py:2: AssertionError" not in tests["content"]


def test_the_hunks_looked_up_are_those_a_check_of_every_hunk_finds() -> None:
    """Each evidence looks its candidates up (file name, definition word, stem) and checks them
    whole: the same hunks, in the same order, as checking every hunk."""
    import random

    from ctxguard import links

    rng = random.Random(6)
    paths = ["src/a/mod.py", "mod.py", "lib/mod.py", "src/b/parse.py", "./x\\y/mod.py", "", "tests/test_mod.py"]
    names = ["parse_amount", "ParseAmount", "mod", "render_all", "x", "Money2"]
    for _ in range(200):
        changes = [
            (0, "d", Change(rng.choice(paths), s, s + rng.randint(0, 9), tuple(rng.sample(names, rng.randint(0, 2)))))
            for s in (rng.randint(1, 60) for _ in range(rng.randint(1, 12)))
        ]
        frames = [
            f"{rng.choice(['/w/', '', 'site-packages/a/'])}{rng.choice(paths)}:{rng.randint(1, 70)}" for _ in range(3)
        ]
        tests = [
            f"tests/test_{rng.choice(['mod', 'parse'])}.py::test_{rng.choice(names)}_{rng.choice(['ok', 'amount'])}"
        ]
        failure = Failure("E", frames[0], tests, frames)
        hunks = links._Hunks(changes)
        every_frame = [
            (item, f"frame {frame}")
            for frame in frames
            if (place := links._PLACE.match(frame))
            for item in changes
            if same_file(place.group(1), item[2].path)
            and item[2].start - links.NEAR <= int(place.group(2)) <= item[2].end + links.NEAR
        ]
        said = links._test_words(tests[0])
        every_name = [
            (item, "name")
            for item in changes
            if any(links._runs_in(words(n), said) for n in item[2].definitions if len(n) >= links.SHORTEST_NAME)
        ]
        stem = links._tested_stem(tests[0])
        every_file = [(item, "file") for item in changes if links._stem(item[2].path) == stem]
        assert (hunks.by_frames(failure), hunks.by_names(failure), hunks.by_files(failure)) == (
            every_frame,
            every_name,
            every_file,
        )


@pytest.mark.parametrize("wheel", [True, False])
def test_the_lines_holding_each_word_are_a_search_of_each_lines(wheel: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    from ctxguard import literals

    if not wheel:
        monkeypatch.setattr(literals, "present_at", lambda words, text: None)
    rng = random.Random(8)
    pieces = ["a.py:3", '"a.py", line 3', "ba.py:3", "\0", " ", "é", "x", ":3"]
    for _ in range(200):
        lines = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 5))) for _ in range(rng.randint(0, 8))]
        words = [rng.choice(pieces) for _ in range(rng.randint(0, 4))]
        expected = {word: {i for i, line in enumerate(lines) if word in line} for word in words}
        assert literals.holders(words, lines) == expected
