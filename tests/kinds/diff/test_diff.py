from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from unidiff import PatchSet

from ctxguard import compress_text
from ctxguard.kinds.diff import read
from ctxguard.kinds.diff.lines import ERROR_LINE, is_error_line
from ctxguard.kinds.diff.model import _header, _hunk_header, line_type
from tests.helpers import budget_for_tier2, independent_count


def _tier2(text: str, name: str = "change.diff", task: str | None = None, factor: float = 1.3) -> dict:  # type: ignore[type-arg]
    record = compress_text(text, budget_for_tier2(text, factor), name=name, task=task)
    assert record["tier"] == 2, record
    assert independent_count(record["content"]) <= record["budget"]
    return record


def test_python_change_keeps_signatures_errors_and_hunk_headers(sample) -> None:  # type: ignore[no-untyped-def]
    content = _tier2(sample("python-change.diff"))["content"]
    assert "+++ b/src/payments/service.py\n@@ -10,10 +10,40 @@" in content  # (the file's header)
    assert "@@ -10,10 +10,40 @@ from payments.models import Invoice\n" in content
    for kept in (
        "+    def charge(self, invoice: Invoice, *, retries: int = 3) -> Receipt:",
        "+    async def refund(self, receipt: Receipt, amount: Decimal) -> Refund:",
        '+        raise PaymentFailed(f"invoice {invoice.id} could not be charged: {last_error}")',
        '+            raise ValueError("refund exceeds the charged amount")',
        '+        logger.error("charge failed',
        "+class PaymentFailed(Exception):",
    ):
        assert kept in content
    assert re.search(r"^\.\.\. \(lines \d+-\d+ omitted\)$", content, re.M)


def test_go_change_keeps_declarations_and_panics(sample) -> None:  # type: ignore[no-untyped-def]
    content = _tier2(sample("go-change.diff"))["content"]
    assert "+func (l *Limiter) Allow(key string) error {" in content
    assert "+type Limiter struct {" in content
    assert 'fmt.Errorf("rate limit exceeded for %s", key)' in content
    assert 'panic("limiter rate must be positive")' in content


def test_headers_for_mode_rename_and_binary_are_kept_as_is(sample) -> None:  # type: ignore[no-untyped-def]
    # (headers are most of this small diff: 1.1 x budget, not 1.3, leaves room for them all and
    # the gap lines that name what they leave out)
    content = _tier2(sample("mode-rename-binary.diff"), factor=1.1)["content"]
    for line in (
        "old mode 100644\n",
        "new mode 100755\n",
        "Binary files a/b.bin and b/b.bin differ\n",
        "rename from c.txt\n",
        "rename to d.txt\n",
        "@@ -1,2 +1,5 @@\n",
    ):
        assert line in content


def _orphans(content: str) -> list[str]:
    """Shown +/- lines without their file's header (`diff --git`, or `+++ b/path`) and a hunk
    header above them, nor told by their place (`First change, path:line:` right above)."""
    orphans, header, hunk, told = [], False, False, False
    for line in content.splitlines():
        changed = line[:1] in ("+", "-") and not line.startswith(("+++ ", "--- "))
        told = line.startswith("First change, ") or told and changed
        if line.startswith(("diff --git ", "+++ ")):
            header, hunk = True, False
        elif line.startswith("@@"):
            hunk = header
        elif changed and not (header and hunk or told):
            orphans.append(line)
    return orphans


@pytest.mark.parametrize("share", [0.9, 0.6, 0.4, 0.2, 0.1, 0.05])
def test_no_changed_line_is_shown_without_its_file_and_hunk(sample, share: float) -> None:  # type: ignore[no-untyped-def]
    text = sample("python-change.diff") + sample("go-change.diff") + sample("mode-rename-binary.diff")
    record = compress_text(text, max(32, int(independent_count(text) * share)), name="x.diff")
    assert independent_count(record["content"]) <= record["budget"]
    assert not _orphans(record["content"]), record["content"]


def test_a_tiny_budget_starts_with_the_file_list(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("python-change.diff") + sample("go-change.diff")
    content = compress_text(text, 60, name="x.diff")["content"]
    assert content.startswith("Changed files (2):\n  src/payments/service.py (+")


def test_file_stats(sample) -> None:  # type: ignore[no-untyped-def]
    stats = list(read(sample("mode-rename-binary.diff")).files)
    assert [(s.path, s.added, s.removed, s.status) for s in stats] == [
        ("a.py", 4, 1, "modified"),
        ("b.bin", 0, 0, "binary"),
        ("d.txt", 0, 0, "renamed"),
    ]


def test_a_file_with_no_hunks_is_shown_whole_only_with_its_header(sample) -> None:  # type: ignore[no-untyped-def]
    """A binary file or a rename has no hunk lines; the content shows it when it shows its header."""
    from ctxguard.kinds.diff import file_coverage

    text = sample("mode-rename-binary.diff")
    doc = read(text)
    first = text[: text.index("diff --git a/b.bin")]  # a.py whole, nothing of b.bin or the rename
    assert file_coverage(doc, first) == {"a.py": "whole", "b.bin": "omitted", "d.txt": "omitted"}
    assert file_coverage(doc, text) == {"a.py": "whole", "b.bin": "whole", "d.txt": "whole"}


def test_task_words_steer_what_is_kept(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("python-change.diff")
    plain = _tier2(text, factor=1.45)["content"]  # (a budget where not every changed line fits)
    steered = _tier2(text, task="watch the metrics counters", factor=1.45)["content"]
    assert "metrics.increment" in steered
    assert steered.count("metrics.increment") > plain.count("metrics.increment")


def test_not_a_diff_is_planned_as_plain_lines_with_a_note() -> None:
    text = "".join(f"just some line {i}\n" for i in range(300))
    record = compress_text(text, budget_for_tier2(text), name="x.diff")
    assert record["tier"] == 2
    assert "content is not a parseable diff; its lines are kept in order" in record["notes"]


def test_headers_are_built_exactly_as_unidiff_prints_them(sample) -> None:  # type: ignore[no-untyped-def]
    # _header and _hunk_header rebuild what str() of unidiff's objects starts with, without
    # printing every line; they must agree with the printed form on every kind of file.
    stamped = "--- a/x.py\t2024-01-01 10:00:00\n+++ b/x.py\t2024-01-02 10:00:00\n@@ -1,2 +1,2 @@ def f():\n-a\n+b\n c\n"
    texts = [sample(name) for name in ("python-change.diff", "go-change.diff", "mode-rename-binary.diff")]
    checked = 0
    for text in [*texts, stamped]:
        for patched in PatchSet(text):  # unidiff's full parse, printed
            printed = str(patched)
            hunks = "".join(str(h) for h in patched)
            assert _header(patched) == printed[: len(printed) - len(hunks)]
            for hunk in patched:
                assert _hunk_header(hunk) == str(hunk).split("\n", 1)[0] + "\n"
                checked += 1
    assert checked >= 4


_ERROR_PIECES = [
    "raise",
    "throw",
    "panic!",
    "abort",
    "die",
    "bail!",
    "unreachable!",
    "todo!",
    "errors.New",
    "fmt.Errorf",
    "Err(",
    "new",
    "ValueError",
    "Exception",
    "log.",
    "logger.",
    "console.",
    "error",
    "warn",
    "fatal",
    "Fatalf",
    "critical",
    "perror",
    "fprintf(",
    "stderr",
    "sys.exit",
    "os.Exit",
    "x",
    "(",
    ")",
    ".",
    "_",
    " ",
]


def test_error_prefilter_agrees_with_the_whole_pattern() -> None:
    # is_error_line skips the pattern for lines holding none of the words every branch needs.
    rng = random.Random(5)
    hits = 0
    for _ in range(20000):
        line = "".join(rng.choice(_ERROR_PIECES) + rng.choice(["", " "]) for _ in range(rng.randrange(1, 6)))
        expected = ERROR_LINE.search(line) is not None
        assert is_error_line(line) == expected, line
        hits += expected
    assert hits > 1000


_TRICKY = [
    # no newline at the end of either side, inside and after a hunk
    "diff --git a/x.txt b/x.txt\n--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
    # blank context lines written without their space, CRLF line ends, a blank line after a hunk
    "--- a/w.c\n+++ b/w.c\n@@ -1,4 +1,4 @@\n int a;\n\n-int b;\r\n+long b;\r\n int c;\n\n--- a/v.c\n+++ b/v.c\n@@ -3 +3 @@ f\n-x\n+y",
    # a hunk header inside a commit message is a hunk to unidiff too; lines that look like headers
    "diff --git a/m.py b/m.py\nindex 1..2 100644\n--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,4 @@ class M:\n--- not a header\n+++ not one either\n def f():\n+    return 1\n     pass\n@@ -10,0 +11,2 @@\n+a\n+b\n",
]


def test_hunk_bodies_are_the_lines_unidiffs_full_parse_reads(sample) -> None:  # type: ignore[no-untyped-def]
    # unidiff parses headers and ranges (metadata only); the body lines are taken from the text.
    # They must be exactly the lines unidiff's full parse builds, on every kind of diff.
    texts = [sample(n) for n in ("python-change.diff", "go-change.diff", "mode-rename-binary.diff")]
    compared = 0
    for text in [*texts, *_TRICKY]:
        parsed = read(text).parsed
        full = PatchSet(text)
        assert parsed is not None and len(parsed.files) == len(full) == len(parsed.bodies)
        for patched, bodies in zip(full, parsed.bodies):
            assert len(patched) == len(bodies)
            for hunk, body in zip(patched, bodies):
                theirs = [(line.line_type or " ", line.value) for line in hunk]
                ours = [(line_type(line), line[1:] or line) for line in body]
                # unidiff writes the no-newline marker it attaches after a hunk in its own words
                assert [r for r in theirs if r[0] != "\\"] == [o for o in ours if o[0] != "\\"], text
                assert sum(r[0] == "\\" for r in theirs) == sum(o[0] == "\\" for o in ours)
                compared += len(body)
    assert compared >= 40


def _hunk_with_a_definition_deep_inside(header: str) -> str:
    body = "".join(f"+    step_{i} = load_{i}(step_{i - 1})\n" for i in range(1, 31))
    tail = "".join(f"+    tail_{i} = load_{i}(tail_{i - 1})\n" for i in range(1, 31))
    return (
        header
        + "--- a/pkg/jobs.py\n+++ b/pkg/jobs.py\n@@ -1,0 +1,62 @@\n"
        + body
        + "+def retry_job(job):\n"
        + "+    near_the_definition = job.attempts\n"
        + tail
    )


def test_body_lines_near_a_definition_go_first_with_or_without_git_headers() -> None:
    from ctxguard.kinds.diff.plan import plan
    from ctxguard.tokens.load import get_tokenizer

    tokenizer = get_tokenizer()
    for header in ("diff --git a/pkg/jobs.py b/pkg/jobs.py\nindex 1111111..2222222 100644\n", ""):
        text = _hunk_with_a_definition_deep_inside(header)
        units = plan(read(text), tokenizer.encode(text), tokenizer).units
        rank = {unit.text: unit.priority for unit in units}
        near = rank["+    near_the_definition = job.attempts\n"]
        far = rank["+    step_15 = load_15(step_14)\n"]  # 15 lines from the hunk header and the definition
        assert near < far, header or "plain diff -u"


def test_a_line_naming_the_task_keeps_its_lift_in_a_test_file() -> None:
    from ctxguard.kinds.diff.plan import plan
    from ctxguard.tokens.load import get_tokenizer

    lines = [f"+    value_{i} = compute_{i}(value_{i - 1})\n" for i in range(1, 60)]
    body = "".join(lines)
    text = (
        "diff --git a/tests/test_jobs.py b/tests/test_jobs.py\n--- a/tests/test_jobs.py\n"
        "+++ b/tests/test_jobs.py\n@@ -1,0 +1,60 @@\n"
        + "".join(lines[:30])
        + "+    assert refund_total == 3\n"
        + "".join(lines[30:])
    )
    tokenizer = get_tokenizer()
    units = plan(read(text), tokenizer.encode(text), tokenizer, frozenset({"refund"})).units
    rank = {unit.text: unit.priority for unit in units}
    task = rank["+    assert refund_total == 3\n"]
    assert all(task < rank[line] for line in body.splitlines(keepends=True))


def test_a_form_feed_or_a_lone_carriage_return_stays_inside_its_diff_line() -> None:
    # git ends a diff's lines at line feeds only; C sources carry form feeds (page breaks) and
    # stray carriage returns inside lines. Each unit of the plan is one line of the diff, as
    # the parse reads it (str.splitlines cut `+\f` from its line feed, a unit no diff line is).
    from ctxguard.kinds.diff.plan import plan
    from ctxguard.tokens.load import get_tokenizer

    text = (
        "diff --git a/src/main.c b/src/main.c\n--- a/src/main.c\n+++ b/src/main.c\n@@ -1,2 +1,4 @@\n"
        " int x;\n+\f\n+int y = 1;\r/* old */\n int z;\n"
    )
    tokenizer = get_tokenizer()
    units = plan(read(text), tokenizer.encode(text), tokenizer).units
    assert [unit.text for unit in units] == [line + "\n" for line in text.split("\n")[:-1]]


def test_a_changed_body_line_shows_under_its_enclosing_definition(sample) -> None:  # type: ignore[no-untyped-def]
    record = compress_text(sample("enclosing-def.diff"), 100, name="enclosing-def.diff")
    assert record["tier"] == 3
    content = record["content"]
    assert "+    if n == 1:\n" in content and "-    if n == 0:\n" in content
    assert " def windowed(seq, n, step=1):\n" in content  # the unchanged def that encloses the change
    assert content.index(" def windowed(") < content.index("-    if n == 0:")


def test_a_line_edited_in_place_in_source_goes_before_tests_docs_and_new_code(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("release-with-noise.diff")
    total = compress_text(text, 100_000, name="r.diff")["raw_tokens"]
    for ratio in (0.5, 0.3):  # (below, added definitions and file headers come first)
        record = compress_text(text, max(64, int(total * ratio)), name="release-with-noise.diff")
        assert "+    if n == 1:\n" in record["content"], ratio
    tier2 = compress_text(text, int(total / 1.45), name="release-with-noise.diff")
    assert tier2["tier"] == 2 and "+    if n == 1:\n" in tier2["content"] and "-    if n == 0:\n" in tier2["content"]


def _file_diff(path: str, body: list[str]) -> str:
    """One file's diff with one hunk, its ranges counted from the body."""
    old = sum(1 for line in body if line[0] in " -")
    new = sum(1 for line in body if line[0] in " +")
    return f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,{old} +1,{new} @@\n" + "".join(
        line + "\n" for line in body
    )


_VERSION_BUMP = _file_diff("pkg/_version.py", ["  # generated", "-version = '1.2.0'", "+version = '1.3.0'", " x = 1"])
_RELEASE = (
    _file_diff("CHANGES.md", [f"+- change {i} of this release, described at some length" for i in range(40)])
    + _file_diff(
        "pkg/window.py",
        [
            " def windowed(seq, n):",
            "     seq = list(seq)",
            "-    if n == 0:",
            "+    if n == 1:",
            "         return []",
            "     return seq",
        ],
    )
    + _file_diff("tests/test_window.py", [f"+    assert windowed(range({i}), 2) == expected({i})" for i in range(40)])
)


def test_a_cut_that_lists_the_files_shows_the_behaviour_change_before_other_headers() -> None:
    text = _VERSION_BUMP + _RELEASE
    budget = independent_count(text) // 8
    content = compress_text(text, budget, name="release.diff")["content"]
    assert content.startswith("Changed files (4):\n")
    assert "-    if n == 0:\n+    if n == 1:\n" in content  # the behaviour change, with its headers
    assert "+++ b/pkg/window.py\n@@ -1,5 +1,5 @@\n" in content  # (the file's header: its `+++` line)
    # The changelog is named by the list; its header comes after the behaviour's changes.
    assert "diff --git a/CHANGES.md" not in content and "+++ b/CHANGES.md" not in content
    # Tier 2 still keeps every file's header.
    tier2 = compress_text(text, int(independent_count(text) / 1.45), name="release.diff")
    assert tier2["tier"] == 2 and tier2["content"].count("\n+++ b/") == 4


def test_in_a_tight_room_the_first_change_comes_before_the_file_lists_rows() -> None:
    """A release of 23 files at 2 % of its raw: the file list takes at most half of what
    the room has beyond 120 tokens, so the flipped condition with its file and hunk headers is
    shown; a room a little bigger lists rows too; a smaller one tells the change alone."""
    from ctxguard.plan import LISTING_AFTER

    docs = "".join(_file_diff(f"docs/page_{k}.md", [f"+line {j} of page {k}" for j in range(30)]) for k in range(19))
    text = _VERSION_BUMP + docs + _RELEASE
    for budget in (80, 150, 170):
        content = compress_text(text, budget, name="release.diff")["content"]
        assert "-    if n == 0:\n+    if n == 1:\n" in content, budget
        assert "+++ b/pkg/window.py\n" in content
    # A room the change with its headers does not fit in tells the change alone, by its place
    # (its line in the new file); a little more room lists the files first, the change's first.
    told = "First change, pkg/window.py:3:\n-    if n == 0:\n+    if n == 1:\n... (lines 1-752 omitted)\n"
    assert compress_text(text, 64, name="release.diff")["content"].startswith(told)
    listed = compress_text(text, 74, name="release.diff")["content"]
    assert listed.startswith(
        "Changed files (23):\n  pkg/window.py (+1 -1, modified)\n  ... and 22 more files\n\n" + told
    )
    assert "First change" not in compress_text(text, 48, name="release.diff")["content"]  # (nor does it)
    wide = compress_text(text, 600, name="release.diff")["content"]
    # (the list's first row: the file of the change shown first)
    listing = wide.split("\n\n")[0]
    assert wide.startswith("Changed files (23):\n  pkg/window.py") and listing.count("\n  docs/page_") >= 2
    assert LISTING_AFTER == 120


def test_a_hunk_lines_number_is_its_new_files_or_for_a_removed_line_its_old_files() -> None:
    from ctxguard.kinds.diff.numbers import number_of

    lines = [
        "diff --git a/x.py b/x.py\n",
        "--- a/x.py\n",
        "+++ b/x.py\n",
        "@@ -10,4 +20,5 @@ def f():\n",
        " a\n",
        "-b\n",
        "+c\n",
        "\\ No newline at end of file\n",
        "+d\n",
        " e\n",
    ]
    assert [number_of(lines, i) for i in range(len(lines))] == [None, None, None, None, 20, 11, 21, None, 22, 23]


def test_a_room_too_small_for_the_first_change_with_its_headers_tells_it_alone() -> None:
    """Its place (the file's path, the line in the new file) and its lines: the line it was
    edited from, or, for a removed line, the kept line added after it in its hunk; a deleted
    file's path from its `diff --git` line; a diff without git's headers, from `+++`."""
    from ctxguard.kinds.diff.plan import first_change

    def told(text: str, budget: int) -> str:
        """The content's first three lines (a change told alone: its place, two lines)."""
        return "".join(compress_text(text, budget, name="x.diff")["content"].splitlines(keepends=True)[:3])

    signature = _file_diff("pkg/api.py", [" import os", "-def fetch(url):", "+def fetch(url, timeout):", "     pass"])
    changes = _file_diff("CHANGES.md", [f"+- change {i} of this release, described at some length" for i in range(40)])
    assert told(signature + changes, 50) == "First change, pkg/api.py:2:\n-def fetch(url):\n+def fetch(url, timeout):\n"
    plain = signature.replace("diff --git a/pkg/api.py b/pkg/api.py\n", "") + changes.replace(
        "diff --git a/CHANGES.md b/CHANGES.md\n", ""
    )
    assert told(plain, 50) == "First change, pkg/api.py:2:\n-def fetch(url):\n+def fetch(url, timeout):\n"
    # Read from the plan's lines: a deleted file's removed line, numbered in the old file.
    gone = ["diff --git a/old.py b/old.py\n", "deleted file mode 100644\n", "--- a/old.py\n", "+++ /dev/null\n"]
    gone += ["@@ -1,2 +0,0 @@\n", "-def f():\n", "-    raise ValueError('x')\n"]
    assert first_change(gone, 5, [False] * 5 + [True, True], {}).text == "First change, old.py:1:\n-def f():\n"
    assert first_change(gone[1:], 4, [False] * 4 + [True, True], {}).text == "First change, old.py:1:\n-def f():\n"
    # A room that shows the change with its headers shows no told change.
    assert "First change" not in compress_text(signature + changes, 64, name="x.diff")["content"]


def test_a_modified_files_plus_line_names_it_and_a_renamed_or_mode_changed_file_keeps_its_git_line(sample) -> None:  # type: ignore[no-untyped-def]
    """`+++ b/path` names a file only modified, at half the cost of its `diff --git` line (and
    next to its first hunk): a tight cut shows that, not the `diff --git` line; a file whose
    mode changed keeps its `diff --git` line, which says so."""
    text = sample("python-change.diff") + sample("mode-rename-binary.diff")
    budget = independent_count(text) // 3
    content = compress_text(text, budget, name="x.diff")["content"]
    assert "+++ b/src/payments/service.py\n@@ -10,10 +10,40 @@" in content
    assert "diff --git a/src/payments/service.py" not in content
    assert "diff --git a/a.py b/a.py\n" in content and "+++ b/a.py" not in content
    assert "diff --git a/a.py b/a.py\nold mode 100644\nnew mode 100755\n" in _tier2(text, factor=1.2)["content"]


def test_a_quoted_string_edited_goes_after_code_edited_and_a_flipped_condition_first() -> None:
    from ctxguard.kinds.diff.plan import EDITED, EDITED_QUOTED, FLIPPED, plan
    from ctxguard.tokens.load import get_tokenizer

    tokenizer = get_tokenizer()
    text = _VERSION_BUMP + (
        "diff --git a/pkg/b.py b/pkg/b.py\n--- a/pkg/b.py\n+++ b/pkg/b.py\n"
        "@@ -1,4 +1,4 @@\n def f(n):\n-    if n == 0:\n+    if n == 1:\n"
        "         pass\n-    return compute(n, cache)\n+    return compute_all(n, cache)\n"
    )
    units = plan(read(text), tokenizer.encode(text), tokenizer).units
    level = {u.text: u.priority[0] for u in units}
    assert level["+version = '1.3.0'\n"] == EDITED_QUOTED
    assert level["+    return compute_all(n, cache)\n"] == EDITED  # a rename: edited in place
    assert level["+    if n == 1:\n"] == FLIPPED  # a condition flipped: before definitions (1.0)
    assert FLIPPED < 1.0 < EDITED < EDITED_QUOTED


@settings(max_examples=300, deadline=None)
@given(a=st.text("ab\u00e9", max_size=12), b=st.text("ab\u00e9", max_size=12))
def test_the_ends_two_lines_share_are_counted_as_a_walk_along_them_counts_them(a: str, b: str) -> None:
    from ctxguard.kinds.diff.plan import _common_head, _common_tail

    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    most = min(len(a), len(b)) - head
    tail = 0
    while tail < most and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    assert _common_head(a, b) == head
    assert _common_tail(a, b, most) == tail


def test_a_number_edited_in_a_docstring_is_prose_not_a_flip() -> None:
    """`On Python 3.12 and above` -> `3.13` inside a docstring flips no condition: it is not
    ranked with the flipped conditions (nor kept as code edited in place); the same edit in
    code is, and so is one below a docstring that closed above it in the hunk."""
    from ctxguard.kinds.diff.plan import EDITED, FLIPPED, plan
    from ctxguard.tokens.load import get_tokenizer

    tokenizer = get_tokenizer()
    text = (
        "diff --git a/pkg/b.py b/pkg/b.py\n--- a/pkg/b.py\n+++ b/pkg/b.py\n@@ -1,12 +1,12 @@\n"
        ' def batched(iterable, n):\n     """Batch data into tuples of length n.\n \n'
        "-    On Python 3.12 and above, this is an alias for itertools.batched.\n"
        "+    On Python 3.13 and above, this is an alias for itertools.batched.\n"
        '     """\n-    if n < 1:\n+    if n <= 1:\n         raise ValueError(n)\n'
        "@@ -40,4 +40,4 @@ def window(seq):\n"
        '     """\n-    if step == 0:\n+    if step == 1:\n         return\n'
    )
    units = {u.text: u for u in plan(read(text), tokenizer.encode(text), tokenizer).units}
    level = {text: u.priority[0] for text, u in units.items()}
    prose = units["+    On Python 3.13 and above, this is an alias for itertools.batched.\n"]
    assert prose.priority[0] not in (FLIPPED, EDITED) and not prose.must
    assert level["+    if n <= 1:\n"] == FLIPPED
    assert level["+    if step == 1:\n"] == FLIPPED  # (the hunk starts on a docstring's closing quote)


@pytest.mark.parametrize(
    ("old", "new", "compared"),
    [
        ("    if incomplete == 'fill':", "    if incomplete == 'full':", True),
        ('    if sign == "-":', '    if sign == "+":', True),
        ("    case 'strict':", "    case 'strict2':", True),
        ("  } else if (mode !== `a`) {", "  } else if (mode !== `b`) {", True),
        ("    hint = 'n must be >= 0'", "    hint = 'n must be >= 1'", False),
        ("version = '1.2.0'", "version = '1.3.0'", False),
        ('    if x: log("helo")', '    if x: log("hello")', False),
    ],
)
def test_a_quoted_value_the_code_compares_is_a_flip(old: str, new: str, compared: bool) -> None:
    """`if sign == "-"` -> `"+"` is logic, ranked with the flipped conditions; a message, a
    version or a log line reworded stays a quoted edit."""
    from ctxguard.kinds.diff.plan import EDITED_QUOTED, FLIPPED, plan
    from ctxguard.tokens.load import get_tokenizer

    tokenizer = get_tokenizer()
    text = f"diff --git a/pkg/b.py b/pkg/b.py\n--- a/pkg/b.py\n+++ b/pkg/b.py\n@@ -1,3 +1,3 @@\n def f(n):\n-{old}\n+{new}\n"
    level = {u.text: u.priority[0] for u in plan(read(text), tokenizer.encode(text), tokenizer).units}
    assert level[f"+{new}\n"] == (FLIPPED if compared else EDITED_QUOTED)


@pytest.mark.parametrize(
    ("old", "new", "flips"),
    [
        ("if n == 0:", "if n == 1:", True),
        ("if N < 2:", "if N <= 2:", True),
        ('elif name == "x":', 'if name == "x":', True),
        ("return a and b", "return a or b", True),
        ("if not ok:", "if ok:", True),
        ("timeout = 30", "timeout = 300", True),
        ("This function is analagous to", "This function is analogous to", False),  # a typo
        ("x = foo(a)", "x = bar(a)", False),  # a rename
        ("object_type: t.Type, ensure", "object_type: t.Type[T], ensure", False),  # a type made precise
        ("func: t.Callable[[str], str]", "func: t.Callable[[str], str],", False),  # a comma: a reformat
    ],
)
def test_a_flip_is_an_operator_a_number_or_a_keyword_of_logic(old: str, new: str, flips: bool) -> None:
    from ctxguard.kinds.diff.plan import flipped

    assert flipped(old, new) is flips


def test_a_definition_or_error_line_moved_goes_after_the_edits() -> None:
    """`raise ValueError(` removed at one depth and added at another is a move, not a change:
    still kept by tier 2, but a cut takes the lines edited in place first."""
    from ctxguard.kinds.diff.plan import EDITED, MOVED, plan
    from ctxguard.tokens.load import get_tokenizer

    tokenizer = get_tokenizer()
    text = (
        "diff --git a/pkg/c.py b/pkg/c.py\n--- a/pkg/c.py\n+++ b/pkg/c.py\n"
        "@@ -1,6 +1,5 @@\n def g(items, default):\n-    if not items:\n-        raise ValueError('empty')\n"
        "+    if items:\n+        return items[0]\n+    raise ValueError('empty')\n-    return items[0]\n"
        "-    result = lookup(default)\n+    result = lookup_all(default)\n"
        "+    raise KeyError('new')\n"
    )
    units = plan(read(text), tokenizer.encode(text), tokenizer).units
    level = {u.text: u.priority[0] for u in units}
    must = {u.text: u.must for u in units}
    assert level["-        raise ValueError('empty')\n"] == level["+    raise ValueError('empty')\n"] == MOVED
    assert must["+    raise ValueError('empty')\n"]  # (tier 2 keeps every error line)
    assert level["+    raise KeyError('new')\n"] == 1.0 < EDITED < MOVED


_ODD_PATHS = ("my tests/x y.py", "tür.py", "a b/c.py")
_ODD = (
    _file_diff("my tests/x y.py", ["-x = 1", "+x = 2"])
    .replace("a/my tests/x y.py", '"a/my tests/x y.py"')
    .replace("b/my tests/x y.py", '"b/my tests/x y.py"')
    + _file_diff("tür.py", ["-y = 1", "+y = 2"])
    .replace("a/tür.py", '"a/t\\303\\274r.py"')
    .replace("b/tür.py", '"b/t\\303\\274r.py"')
    # (git ends a spaced path on its ---/+++ lines with a tab)
    + "diff --git a/a b/c.py b/a b/c.py\n--- a/a b/c.py\t\n+++ b/a b/c.py\t\n@@ -1 +1 @@\n-def f():\n+def g():\n"
)


def test_one_reading_gives_one_path_to_the_plan_probes_digest_coverage_and_stream(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ctxguard import digest
    from ctxguard.engine import stream
    from ctxguard.kinds.diff import KIND, file_coverage, file_listing
    from ctxguard.tokens.load import get_tokenizer

    tokenizer = get_tokenizer()
    doc = read(_ODD)
    assert tuple(f.path for f in doc.files) == _ODD_PATHS
    assert [p.value for p in KIND.probes(doc) if p.kind == "path"] == list(_ODD_PATHS)
    assert tuple(f.path for f in digest.facts([("d", KIND.facts(doc))]).files) == _ODD_PATHS
    assert tuple(file_coverage(doc, _ODD)) == _ODD_PATHS
    listing = file_listing(doc.files, tokenizer, 1000)
    assert all(f"  {path} (+1 -1, modified)\n" in listing for path in _ODD_PATHS)
    path = tmp_path / "odd.diff"
    path.write_text(_ODD, encoding="utf-8")
    _, sink = stream.prepare(path, tokenizer, "diff")
    assert tuple(f.path for f in sink.stats) == _ODD_PATHS  # type: ignore[union-attr]


def test_changed_definitions_go_by_turns_across_files() -> None:
    """A tight cut shows each file's first changed definition before any file's second, and a
    definition's removed and added lines together: what changed across the change, not all of
    its first file."""
    files = []
    for name in ("alpha", "beta", "gamma"):
        hunks = "".join(
            f"@@ -{10 * k + 1},3 +{10 * k + 1},3 @@\n"
            f"-def {name}_{k}(request, timeout=1):\n+def {name}_{k}(request, timeout=2, retries=0):\n"
            "     return handle(request)\n"
            for k in range(6)
        )
        files.append(f"diff --git a/src/{name}.py b/src/{name}.py\n--- a/src/{name}.py\n+++ b/src/{name}.py\n{hunks}")
    text = "".join(files)
    content = compress_text(text, 360, name="change.diff")["content"]
    for name in ("alpha", "beta", "gamma"):
        assert f"-def {name}_0(request, timeout=1):\n+def {name}_0(request, timeout=2, retries=0):\n" in content
    assert "alpha_5" not in content
    # A streamed diff's sink ranks them alike.
    from ctxguard.kinds.diff.sink import DiffSink

    sink = DiffSink()
    for number, line in enumerate(text.splitlines(keepends=True)):
        sink.take(number, line)
    sink.close()
    order = [o.text for o in sorted(sink.offered(0, "salient").values(), key=lambda o: (o.level, o.rank))]
    first = [order.index(f"+def {name}_0(request, timeout=2, retries=0):\n") for name in ("alpha", "beta", "gamma")]
    assert max(first) < order.index("-def alpha_1(request, timeout=1):\n")


# --- comments and blank lines go first --------------------------------------------------------

from ctxguard.kinds.definitions import is_comment_or_blank  # noqa: E402
from ctxguard.plan import omitted_lines  # noqa: E402
from tests.helpers import shown_lines as _shown  # noqa: E402


def _quiet_kept_for_code(diff: str, content: str) -> list[str]:
    """Comment and blank lines a cut shows while it leaves out changed code, except those in a run
    between two shown lines that costs no more than the gap line standing for it (showing them
    is cheaper than saying they are left out)."""
    raw = diff.splitlines()
    shown = _shown(content, raw)
    changed = [n for n, line in enumerate(raw, 1) if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    quiet = {n for n in changed if is_comment_or_blank(raw[n - 1][1:])}
    if all(n in shown for n in changed if n not in quiet):
        return []
    widest = independent_count(omitted_lines(len(raw), len(raw)))
    bad = []
    for n in sorted(quiet & shown):
        first = last = n
        while first - 1 in shown and is_comment_or_blank(raw[first - 2][1:]):
            first -= 1
        while last + 1 in shown and is_comment_or_blank(raw[last][1:]):
            last += 1
        bounded = (first - 1 in shown or first == 1) and (last + 1 in shown or last == len(raw))
        run = "".join(line + "\n" for line in raw[first - 1 : last])
        if not (bounded and independent_count(run) <= widest):
            bad.append(raw[n - 1])
    return bad


@st.composite
def _source_diffs(draw: st.DrawFn) -> str:
    body: list[str] = []
    for i in range(draw(st.integers(8, 40))):
        if draw(st.booleans()):
            body.append(f"# Helper {i}: computes the weighted balance of one ledger entry, with its fee.")
        body.append(f"def helper_{i}(ledger, rate):")
        if draw(st.booleans()):
            body.append("    # apply the rate first, then the fee when the total is over the limit")
        body.append(f"    total = ledger.total * rate + {draw(st.integers(1, 99))}")
        body.append(f"    if total > {draw(st.integers(100, 999))}:")
        body.append("        total -= ledger.fee")
        body += [""] * draw(st.integers(0, 2))
        body.append("    return round(total, 2)")
        body += ["", ""]
    head = "diff --git a/app/ledger.py b/app/ledger.py\nnew file mode 100644\n--- /dev/null\n+++ b/app/ledger.py\n"
    return head + f"@@ -0,0 +1,{len(body)} @@\n" + "".join(f"+{line}\n" for line in body)


@settings(max_examples=30, deadline=None)
@given(diff=_source_diffs(), factor=st.floats(1.05, 1.5))
def test_no_comment_or_blank_line_is_kept_while_code_of_its_file_is_left_out(diff: str, factor: float) -> None:
    budget = max(64, int(independent_count(diff) / factor))
    record = compress_text(diff, budget, name="change.diff")
    assert _quiet_kept_for_code(diff, record["content"]) == []


@st.composite
def _ledger_diffs(draw: st.DrawFn) -> str:
    words = ["fee", "rate", "limit", "count", "offset", "balance", "total"]
    parts = []
    for name in draw(st.lists(st.sampled_from(["ledger", "report", "account"]), min_size=1, max_size=3, unique=True)):
        body: list[str] = []
        for i in range(draw(st.integers(3, 12))):
            v = draw(st.sampled_from(words))
            body += [f"def compute_{i}(acct):", f"    {v} = acct.{draw(st.sampled_from(words))} * {i + 2}"]
            body += [f"    {v} += acct.{draw(st.sampled_from(words))}", f"    return {v}", ""]
        parts.append(
            f"diff --git a/src/{name}.py b/src/{name}.py\nnew file mode 100644\n--- /dev/null\n+++ b/src/{name}.py\n"
            f"@@ -0,0 +1,{len(body)} @@\n" + "".join(f"+{line}\n" for line in body)
        )
    return "".join(parts)


@settings(max_examples=40, deadline=None)
@given(diff=_ledger_diffs(), share=st.floats(0.1, 0.95))
def test_the_tasks_lines_come_first_among_equals_at_every_tier(diff: str, share: float) -> None:
    """While a changed line that names the task is left out, no other changed body line is shown
    (definitions and headers are the cut's frame; a cheap run between shown lines may close)."""
    task = "keep balance and total computations"
    budget = max(64, int(independent_count(diff) * share))
    content = compress_text(diff, budget, name="change.diff", task=task)["content"]
    raw = diff.splitlines()
    shown = _shown(content, raw)
    body = [n for n, line in enumerate(raw, 1) if line.startswith("+    ")]
    asked = [n for n in body if re.search(r"\b(balance|total)\b", raw[n - 1])]
    if all(n in shown for n in asked):
        return
    widest = independent_count(omitted_lines(len(raw), len(raw)))
    for n in body:
        if n in shown and n not in asked:
            bounded = n - 1 in shown and n + 1 in shown
            assert bounded and independent_count(raw[n - 1] + "\n") <= widest, (budget, raw[n - 1])


def test_the_task_is_kept_at_a_tight_tier_3() -> None:
    """Six languages, a task naming two words: a tier-3 cut takes the lines that name them, each
    with its file, hunk and definition, before the other definitions."""
    diff = "".join(
        f"diff --git a/src/ledger.{ext} b/src/ledger.{ext}\nnew file mode 100644\n--- /dev/null\n+++ b/src/ledger.{ext}\n"
        f"@@ -0,0 +1,40 @@\n"
        + "".join(f"+{head.format(i=i)}\n+{body.format(v='balance' if i % 3 == 0 else 'fee', i=i)}\n+}}\n+\n" for i in range(10))
        for ext, head, body in (
            ("js", "function f{i}(a) {{", "  const {v} = a.rate * {i};"),
            ("go", "func F{i}(a Account) int {{", "\t{v} := a.rate * {i}"),
            ("java", "public int f{i}(Account a) {{", "    int {v} = a.rate * {i};"),
            ("c", "int f{i}(struct account *a) {{", "    int {v} = a->rate * {i};"),
        )
    )  # fmt: skip
    record = compress_text(diff, 400, name="change.diff", task="keep balance computations")
    kept = [line for line in record["content"].splitlines() if "balance" in line]
    assert record["tier"] == 3 and len(kept) >= 8, record["content"]


_SUBJECTS = ("Refuse a refund above the order's total", "Log each refund with its order", "Add the refund entry point")


def test_a_linked_edit_never_shows_its_removed_line_without_the_added_one() -> None:
    """A flipped condition in the hunk a failing test leads to (the bundle's focus): at every
    room the cut shows the edit's added line with its removed one, or neither (told by its place
    where the headers do not fit), never the removed line alone."""
    from ctxguard.engine.tiers import compress
    from ctxguard.options import Options
    from ctxguard.tokens.load import get_tokenizer

    tokenizer = get_tokenizer()
    body = "".join(f"     value_{k} = compute_{k}(key, value)\n" for k in range(3))
    diff = (
        "diff --git a/src/cache/__init__.py b/src/cache/__init__.py\nindex 1a2b3c4..5d6e7f8 100644\n"
        "--- a/src/cache/__init__.py\n+++ b/src/cache/__init__.py\n"
        "@@ -72,7 +72,7 @@ class Cache(collections.abc.MutableMapping):\n"
        "     def __setitem__(self, key, value):\n" + body + "-        if size > maxsize:\n"
        "+        if size >= maxsize:\n             raise ValueError('value too large')\n"
    ) + "".join(
        f"diff --git a/src/cache/m{k}.py b/src/cache/m{k}.py\n--- a/src/cache/m{k}.py\n+++ b/src/cache/m{k}.py\n"
        f"@@ -1,2 +1,3 @@\n def f{k}():\n+    log('step {k}')\n     return {k}\n"
        for k in range(8)
    )
    lines = diff.splitlines()
    focus = frozenset(i for i, line in enumerate(lines) if "maxsize" in line)
    shown = set()
    for budget in range(64, 260, 4):
        content = compress(diff, budget, tokenizer=tokenizer, name="c.diff", options=Options(focus=focus)).content
        removed, added = "-        if size > maxsize:\n" in content, "+        if size >= maxsize:\n" in content
        assert removed == added, (budget, content)
        shown.add(added)
    assert shown == {True}  # (told or shown at every room)


def _history() -> str:
    """A `git log -p` of three commits, four files each, a condition flipped in the oldest."""
    out = []
    for c, subject in enumerate(_SUBJECTS):
        out.append(f"commit {c + 1:x}{'0' * 39}\nAuthor: Ada <ada@example.com>\nDate:   Tue Nov 24 10:12:0{c} 2026\n\n")
        out.append(f"    {subject}\n\n")
        for f in range(4):
            path = f"shop/module_{c}_{f}.py"
            body = [f"     value_{k} = compute_{k}(order, amount)\n" for k in range(6)]
            flips = c == 2 and f == 1
            body[3:3] = ["-    if amount < 0:\n", "+    if amount <= 0:\n"] if flips else [f"+    log('step {c}{f}')\n"]
            out.append(
                f"diff --git a/{path} b/{path}\nindex 1a2b3c4..5d6e7f8 100644\n--- a/{path}\n+++ b/{path}\n"
                f"@@ -10,{6 + flips} +10,7 @@ def handler_{f}(order, amount):\n" + "".join(body)
            )
        out.append("\n")
    return "".join(out)


def test_a_tight_cut_of_a_git_log_shows_every_subject_before_its_file_list() -> None:
    """`git log -p` cut tight: the first change and each commit's subject (what each commit meant
    to do) come before the rows of the log's file list, which say less, the change told by its
    place while its headers do not fit beside the subjects; a bigger room never shows fewer
    subjects, and lists the files once they are all in. (A plain diff's list waits for its
    first change only: see listing_room.)"""
    text = _history()
    assert len(read(text).files) == 12  # (parsed: the list has its rows)
    listed, told, before = [], [], 0
    for room in range(70, 600, 5):
        record = compress_text(text, room, name="history.diff")
        content = record["content"]
        assert record["tier"] == 3 and record["compacted_tokens"] <= room and not _orphans(content)
        assert "+    if amount <= 0:\n" in content  # (the flipped condition: shown, or told)
        shown = [s for s in _SUBJECTS if f"    {s}\n" in content]
        assert len(shown) >= before, (room, content)
        before = len(shown)
        if "First change, shop/module_2_1.py:13:\n-    if amount < 0:\n" in content:
            told.append(room)
        if "Changed files (12):" in content:
            assert len(shown) == 3 and "@@ -10,7 +10,7 @@ def handler_1" in content, (room, content)
            listed.append(room)
    assert told and told[0] == 70 and before == 3  # (told at the least room, every subject in the end)
    assert listed and listed[-1] == 595 and told[-1] < listed[0]


@pytest.mark.parametrize("share", [0.9, 0.6, 0.4, 0.25])
def test_a_git_log_keeps_each_commits_subject_with_its_line(sample, share: float) -> None:  # type: ignore[no-untyped-def]
    """`git log -p`: a commit's subject says what its change means to do; it is taken right after
    a flipped condition, before the definitions, and never without its `commit <sha>` line."""
    text = sample("git-log-p.diff")
    record = compress_text(text, int(independent_count(text) * share), name="history.diff")
    content = record["content"]
    assert record["compacted_tokens"] <= record["budget"] and not _orphans(content)
    shown = [s for s in _SUBJECTS if f"    {s}\n" in content]
    assert record["tier"] == 2 or len(shown) == 3 or "+    if amount <= 0:" in content
    if record["tier"] == 2:
        assert len(shown) == 3  # (every commit's line and subject: tier 2 keeps them)
    for subject in shown:
        sha = text.split(f"    {subject}\n")[0].rsplit("commit ", 1)[1].split("\n")[0]
        assert len(sha) == 40 and f"commit {sha[:12]}\n" in content  # (its id as `--abbrev=12` writes it)
    assert "+    if amount <= 0:" in content  # (the flipped condition: first of all)
    assert content.count("\ncommit ") + content.startswith("commit ") == len(shown)  # (partners)
    if share >= 0.6:
        assert len(shown) == 3


def test_a_streamed_git_log_keeps_its_commits(sample, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from ctxguard import read as reading
    from ctxguard.api import compress_file
    from ctxguard.engine import stream

    monkeypatch.setattr(reading, "STREAM_BYTES", 1000)
    monkeypatch.setattr(stream, "BLOCK", 512)
    path = tmp_path / "history.diff"
    path.write_text(sample("git-log-p.diff"))
    for budget in (200, 260, 320):
        record = compress_file(path, budget)
        content = record["content"]
        assert any(note.startswith("streamed:") for note in record["notes"])
        shown = [s for s in _SUBJECTS if f"    {s}\n" in content]
        assert shown and content.count("\ncommit ") == len(shown)  # (never a commit's line without its subject)
    assert len(shown) == 3


def test_a_lines_distance_is_to_the_nearest_key_line_of_its_hunk() -> None:
    """Asked of the hunks' lines in order (as the plan asks), each line's distance is to the
    nearest key line of its own hunk, REACH in a hunk without one."""
    import random as _random

    from ctxguard.kinds.diff.plan import REACH, _distances

    rnd = _random.Random(1)
    for _ in range(300):
        keys: dict[tuple[int, ...], list[int]] = {}
        hunk_of: dict[int, tuple[int, ...]] = {}
        start = 0
        for _hunk in range(rnd.randint(1, 4)):
            size = rnd.randint(1, 60)
            hunk = (start,)
            keys[hunk] = sorted(rnd.sample(range(start, start + size), rnd.randint(0, min(size, 8))))
            if not keys[hunk]:
                del keys[hunk]
            hunk_of.update((i, hunk) for i in range(start, start + size) if rnd.random() < 0.7)
            start += size
        asked = sorted(hunk_of)
        expected = [min((abs(i - k) for k in keys.get(hunk_of[i], [])), default=REACH) for i in asked]
        assert _distances(asked, hunk_of.__getitem__, keys) == expected


def test_a_changed_line_is_read_once_for_the_plan_and_the_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan's reading and the probes' classification ask the same questions of the same
    changed lines: each distinct line is read once per diff (a diff of more distinct lines than
    the shared caches hold read them twice), and a line without a definition's hint not at all."""
    from ctxguard.kinds.definitions import is_definition
    from ctxguard.kinds.diff import lines as diff_lines
    from ctxguard.kinds.diff import model as diff_model
    from ctxguard.kinds.diff.plan import plan
    from ctxguard.tokens.load import get_tokenizer

    asked: list[tuple[str, str | None]] = []

    def counted(line: str, language: str | None = None) -> bool:
        asked.append((line, language))
        return is_definition.__wrapped__(line, language)  # (not the shared cache: every question seen)

    monkeypatch.setattr(diff_lines, "is_definition", counted)  # (the plan's reading)
    monkeypatch.setattr(diff_model, "is_definition", counted)  # (the probes')
    body = [f"+def f{i}(x):\n+    return x + {i}\n-    raise ValueError({i})\n" for i in range(40)]
    text = "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,40 +1,80 @@\n" + "".join(body)
    doc = read(text)
    tokenizer = get_tokenizer("o200k_base")
    plan(doc, tokenizer.encode(text), tokenizer)
    assert doc.classified is not None and sum(map(sum, (h.bits for f in doc.classified for h in f.hunks)))
    changed = [line for line, _ in asked if line[0].strip()]
    # Each once, and only those with a Python definition's hint (`def`, `class`): the 40 defs.
    assert len(changed) == len(set(changed)) == 40 and all(line.startswith("def f") for line in changed)


_PIECES = ["def ", "class ", "func ", "fn ", "(", ")", "=>", " raise ", "Error", "throw ", "x", " ", "\t", "\r", "\f"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("+- "), st.lists(st.sampled_from(_PIECES), max_size=8).map("".join)), max_size=12
    ),
    st.sampled_from(["a.py", "a.go", "a.rs", "a.ts", "a.c", "a.txt"]),
)
def test_a_hunk_read_at_once_says_what_each_of_its_lines_says_alone(lines: list[tuple[str, str]], name: str) -> None:
    # The hints of definitions and errors are searched in the changed lines of every hunk of a
    # language joined: each line's bits are still what reading it alone gives.
    from ctxguard.kinds.definitions import is_definition, language
    from ctxguard.kinds.diff.lines import DEFINES, ERROR
    from ctxguard.kinds.diff.model import _changed, _read_bits

    body = [kind + value + "\n" for kind, value in lines]
    values: list[str] = []
    half = len(body) // 2
    hunks = [_changed("@@ -1 +1 @@\n", body[:half], values), _changed("@@ -9 +9 @@\n", body[half:], values)]
    _read_bits(hunks, values, language(name))
    changed = [line for line in body if line[0] in "+-" and line[1:].strip()]
    assert hunks[0].lines + hunks[1].lines == changed
    assert hunks[0].bits + hunks[1].bits == [
        (DEFINES if is_definition(line[1:], language(name)) else 0)
        | (ERROR if line[0] == "+" and is_error_line(line[1:]) else 0)
        for line in changed
    ]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(["+a = 1", "-a = 0", " ctx", "", "+++ b/x", "--- a/x", "+b\rc", "-d\x0b+e", "+f\x85"])),
    st.booleans(),
)
def test_changed_lines_left_out_are_counted_from_the_lines_as_splitlines_cuts_them(lines: list[str], end: bool) -> None:
    """left_out reads the document's own lines where they are what str.splitlines gives."""
    from ctxguard.kinds.base import missing_lines
    from ctxguard.kinds.diff import left_out

    text = "\n".join(lines) + ("\n" if end and lines else "")
    content = "\n".join(lines[::2])
    wanted = [line for line in text.splitlines() if line[:1] in "+-" and not line.startswith(("+++ ", "--- "))]
    assert left_out(read(text), content) == ("changed lines", missing_lines(wanted, content), len(wanted))


_PROSE_AND_CODE = """\
diff --git a/CHANGES.rst b/CHANGES.rst
index 1111111..2222222 100644
--- a/CHANGES.rst
+++ b/CHANGES.rst
@@ -1,5 +1,8 @@
 Version 3.1.4
 -------------
+-   Do not raise an error for undefined filters in unexecuted
+    blocks, and check whether a value has changed since the last iteration (or
+    not) with ``loop.changed``.
 -   Fix a crash in the sandbox.
 Version 3.1.3
 -------------
diff --git a/docs/conf.py b/docs/conf.py
index 3333333..4444444 100644
--- a/docs/conf.py
+++ b/docs/conf.py
@@ -1,2 +1,4 @@
 project = "Jinja"
+def setup(app):
+    raise RuntimeError("no app")
 release = "3.1.4"
"""


@pytest.mark.parametrize("streamed", [False, True])
def test_a_documents_lines_declare_and_raise_nothing_but_code_in_a_docs_folder_does(streamed: bool) -> None:
    """A changelog's `raise an error` and `the last iteration (or` are words: plain changed lines,
    never must nor probes, read whole or streamed; `docs/conf.py` is Python, its definition and
    error line are kept."""
    from ctxguard.kinds.diff import KIND
    from ctxguard.kinds.diff.changes import changes
    from ctxguard.kinds.diff.lines import DiffReader

    if streamed:  # (the stream's reader asks each line itself: no probes' reading to go by)
        reader = DiffReader(context_definitions=False)
        said = {line: reader.read(line)[0] for line in _PROSE_AND_CODE.splitlines(keepends=True)}
    else:
        reader = DiffReader(said=read(_PROSE_AND_CODE).said())
        said = {line: reader.read(line)[0] for line in _PROSE_AND_CODE.splitlines(keepends=True)}
    prose = [line for line in said if line.startswith("+") and not line.startswith("+++")][:3]  # (CHANGES.rst's)
    assert [said[line] for line in prose] == ["change", "change", "change"]
    assert said["+def setup(app):\n"] == "definition" and said['+    raise RuntimeError("no app")\n'] == "error"
    probes = {(p.kind, p.value) for p in KIND.probes(read(_PROSE_AND_CODE))}
    assert {kind for kind, _ in probes} == {"path", "definition", "error"}
    assert ("definition", "setup") in probes and ("error", "no app") in probes and len(probes) == 4
    tier2 = _tier2(_PROSE_AND_CODE)["content"]
    assert "+def setup(app):" in tier2 and "raise RuntimeError" in tier2
    hunks = changes(_PROSE_AND_CODE.splitlines(keepends=True))  # (what the bundle's links match)
    assert [(h.path, h.definitions) for h in hunks] == [("CHANGES.rst", ()), ("docs/conf.py", ("setup",))]
