from __future__ import annotations

import random

from unidiff import PatchSet

from ctxguard import compress_text
from ctxguard.handlers.base import ESTIMATE_SLACK, Context
from ctxguard.handlers.diff import (
    _LEVELS,
    ERROR_LINE,
    DiffHandler,
    _header,
    _hunk_header,
    _keep_short_runs,
    comment_marker,
    file_stats,
    is_error_line,
    line_type,
    parse,
)
from tests.helpers import budget_for_tier2, independent_count


def _tier2(text: str, name: str = "change.diff", task: str | None = None) -> dict:  # type: ignore[type-arg]
    record = compress_text(text, budget_for_tier2(text), name=name, task=task)
    assert record["tier"] == 2, record
    assert independent_count(record["content"]) <= record["budget"]
    return record


def test_python_change_keeps_signatures_errors_and_hunk_headers(sample) -> None:  # type: ignore[no-untyped-def]
    content = _tier2(sample("python-change.diff"))["content"]
    assert "diff --git a/src/payments/service.py b/src/payments/service.py\n" in content
    assert "@@ -10,10 +10,40 @@ from payments.models import Invoice\n" in content
    for kept in ("+    def charge(self, invoice: Invoice, *, retries: int = 3) -> Receipt:",
                 "+    async def refund(self, receipt: Receipt, amount: Decimal) -> Refund:",
                 '+        raise PaymentFailed(f"invoice {invoice.id} could not be charged: {last_error}")',
                 '+            raise ValueError("refund exceeds the charged amount")',
                 "+        logger.error(\"charge failed", "+class PaymentFailed(Exception):"):
        assert kept in content
    assert "# ... (" in content and "lines omitted)" in content
    assert "# Try a few times" not in content  # comment-only changed line dropped


def test_go_change_uses_slash_comments_and_keeps_panics(sample) -> None:  # type: ignore[no-untyped-def]
    content = _tier2(sample("go-change.diff"))["content"]
    assert "+func (l *Limiter) Allow(key string) error {" in content
    assert "+type Limiter struct {" in content
    assert 'fmt.Errorf("rate limit exceeded for %s", key)' in content
    assert 'panic("limiter rate must be positive")' in content
    assert "// ... (" in content


def test_headers_for_mode_rename_and_binary_are_kept_as_is(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("mode-rename-binary.diff")
    ctx = Context(budget=50, name="x.diff", task_words=frozenset())
    strongest = list(DiffHandler().candidates(text, ctx))[-1]
    for line in ("old mode 100644\n", "new mode 100755\n", "Binary files a/b.bin and b/b.bin differ\n",
                 "rename from c.txt\n", "rename to d.txt\n", "@@ -1,2 +1,5 @@\n"):
        assert line in strongest
    assert DiffHandler().validate(text, strongest) is None
    assert DiffHandler().validate(text, strongest.replace("rename from c.txt\n", "")) is not None


def test_file_stats(sample) -> None:  # type: ignore[no-untyped-def]
    stats = file_stats(sample("mode-rename-binary.diff"))
    assert [(s.path, s.added, s.removed, s.status) for s in stats] == [
        ("a.py", 4, 1, "modified"), ("b.bin", 0, 0, "binary"), ("d.txt", 0, 0, "renamed"),
    ]


def test_task_words_steer_what_is_kept(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("python-change.diff")
    plain = _tier2(text)["content"]
    steered = _tier2(text, task="watch the metrics counters")["content"]
    assert "metrics.increment" in steered
    assert steered.count("metrics.increment") > plain.count("metrics.increment")


def test_comment_marker_styles() -> None:
    assert comment_marker("a.py", 1) == "# ... (1 line omitted)"
    assert comment_marker("a.sql", 2) == "-- ... (2 lines omitted)"
    assert comment_marker("a.html", 2) == "<!-- ... (2 lines omitted) -->"
    assert comment_marker("a.rs", 3) == "// ... (3 lines omitted)"


def test_not_a_diff_falls_back_to_text_with_a_note() -> None:
    text = "".join(f"just some line {i}\n" for i in range(300))
    record = compress_text(text, budget_for_tier2(text), name="x.diff")
    assert record["tier"] == 2
    assert "content is not valid diff; compressed as text" in record["notes"]


def test_validate_finds_headers_in_any_order_and_names_a_missing_one(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("mode-rename-binary.diff")
    handler = DiffHandler()
    assert handler.validate(text, text) is None
    files = text.split("diff --git ")[1:]
    assert len(files) >= 2
    swapped = "".join("diff --git " + f for f in reversed(files))
    assert handler.validate(text, swapped) is None
    problem = handler.validate(text, "diff --git " + files[0])
    assert problem is not None and "is missing" in problem


def _keep_short_runs_reference(marks: list[bool | None], level) -> list[bool]:  # type: ignore[no-untyped-def]
    # As it read before it was made linear: each plain line looks ahead to its run's end.
    keep: list[bool] = []
    run = 0
    for i, mark in enumerate(marks):
        if mark is not None:
            keep.append(mark)
            continue
        run = run + 1 if i and marks[i - 1] is None else 1
        end = i
        while end + 1 < len(marks) and marks[end + 1] is None:
            end += 1
        keep.append(end - i + run <= level.body_run or run <= level.body_keep)
    return keep


def test_keep_short_runs_matches_its_reference() -> None:
    rng = random.Random(5)
    for _ in range(500):
        marks: list[bool | None] = [rng.choice([None, None, None, True, False]) for _ in range(rng.randrange(40))]
        for level in _LEVELS:
            assert _keep_short_runs(marks, level) == _keep_short_runs_reference(marks, level)


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


_ERROR_PIECES = ["raise", "throw", "panic!", "abort", "die", "bail!", "unreachable!", "todo!",
                 "errors.New", "fmt.Errorf", "Err(", "new", "ValueError", "Exception", "log.",
                 "logger.", "console.", "error", "warn", "fatal", "Fatalf", "critical", "perror",
                 "fprintf(", "stderr", "sys.exit", "os.Exit", "x", "(", ")", ".", "_", " "]


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
        parsed = parse(text)
        full = PatchSet(text)
        assert parsed is not None and len(parsed.files) == len(full) == len(parsed.bodies)
        for patched, bodies in zip(full, parsed.bodies):
            assert len(patched) == len(bodies)
            for hunk, body in zip(patched, bodies):
                read = [(line.line_type or " ", line.value) for line in hunk]
                ours = [(line_type(line), line[1:] or line) for line in body]
                # unidiff writes the no-newline marker it attaches after a hunk in its own words
                assert [r for r in read if r[0] != "\\"] == [o for o in ours if o[0] != "\\"], text
                assert sum(r[0] == "\\" for r in read) == sum(o[0] == "\\" for o in ours)
                compared += len(body)
    assert compared >= 40


def test_levels_sure_not_to_fit_are_passed_over_unwritten(sample, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from ctxguard.handlers import diff

    text = sample("python-change.diff") + sample("go-change.diff")
    every = list(DiffHandler().candidates(text, Context(budget=10, name="x.diff", task_words=frozenset())))
    assert len(every) == len(_LEVELS) and len(set(map(len, every))) > 2
    written = []
    render = diff._render_file
    monkeypatch.setattr(diff, "_render_file", lambda *args: (written.append(args[-1]), render(*args))[1])
    density = 0.3
    for budget in (1, *(int(len(c) * density / ESTIMATE_SLACK) for c in every), 10**6):
        written.clear()
        ctx = Context(budget=budget, name="x.diff", task_words=frozenset(), density=density)
        given = list(DiffHandler().candidates(text, ctx))
        fits = [i for i, c in enumerate(every) if len(c) * density <= budget * ESTIMATE_SLACK]
        # The levels that may fit, in order, as without the skipping; only the strongest (to be
        # turned down) when none may, and then only the mildest and the strongest are written.
        assert given == ([every[i] for i in fits] if fits else every[-1:])
        files = len(written) // len(set(written))
        assert len(written) == len(set(written)) * files  # each level written at most once
        if not fits:
            assert set(written) == {_LEVELS[0], _LEVELS[-1]}
