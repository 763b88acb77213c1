from __future__ import annotations

from ctxguard import compress_text
from ctxguard.kinds.markdown.model import read
from tests.helpers import budget_for_tier2, independent_count


def test_plan_keeps_outline_tables_code_tasks_and_front_matter(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("plan-with-tables.md")
    record = compress_text(text, budget_for_tier2(text, 1.25), name="plan.md")
    content = record["content"]
    assert record["tier"] == 2 and independent_count(content) <= record["budget"]
    assert content.startswith("---\ntitle: Checkout rewrite\nowner: payments-team\n---\n")
    for heading in ("# Checkout rewrite plan", "## Goals", "## Milestones", "## Rollback", "## Open questions"):
        assert heading + "\n" in content
    assert "| Shadow traffic | Ana | 2024-06-01 |" in content
    assert "- [ ] Add idempotency keys to every charge request" in content
    assert "- [x] Write the adapter for the payments API" in content
    assert "ctl flags set checkout.v2 false" in content
    # A paragraph's first sentence comes before its others; what is left out is marked in place.
    assert "we will roll back by flipping the `checkout.v2` flag. (…)\n" in content
    assert independent_count(content) >= 0.9 * record["budget"]  # the budget is used


def test_condensing_is_deterministic(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("plan-with-tables.md")
    assert compress_text(text, 150, name="plan.md") == compress_text(text, 150, name="plan.md")


def test_headings_and_tasks_are_what_a_tiny_budget_keeps_first(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("plan-with-tables.md")
    record = compress_text(text, 130, name="plan.md")
    assert record["tier"] == 3
    for heading in ("# Checkout rewrite plan", "## Goals", "## Milestones", "## Rollback"):
        assert heading + "\n" in record["content"]
    assert "- [ ] Add idempotency keys to every charge request" in record["content"]


def test_a_sentence_is_never_shown_without_its_heading() -> None:
    text = "# Title\n\n" + "".join(f"## Part {i}\n\nFirst point {i} is here. Second point {i} follows.\n\n"
                                   for i in range(30))
    for budget in (60, 120, 240):
        content = compress_text(text, budget, name="doc.md")["content"]
        for i in range(30):
            if f"point {i} " in content:
                assert f"## Part {i}\n" in content


def test_blocks_take_code_fences_whole() -> None:
    parts = read("# T\n\n```\n# not a heading\n```\ntext\n").blocks
    assert [b.kind for b in parts] == ["heading", "blank", "code", "prose"]




def test_setext_headings_are_headings() -> None:
    text = ("Release plan\n============\n\nIntro sentence one. Intro sentence two.\n\n"
            "Goals\n-----\n\n" + "".join(f"Goal paragraph {i} has words. And more words here.\n\n" for i in range(40)))
    parts = read(text).blocks
    assert [b.lines for b in parts if b.kind == "heading"] == [("Release plan\n", "============\n"),
                                                               ("Goals\n", "-----\n")]
    record = compress_text(text, 80, name="plan.md")
    assert record["tier"] == 3
    assert "Release plan\n============\n" in record["content"] and "Goals\n-----\n" in record["content"]
    assert record["retention"]["kept"] >= 2
