from __future__ import annotations

from ctxguard import compress_text
from ctxguard.handlers.base import Context
from ctxguard.handlers.markdown import MarkdownHandler, blocks
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
    assert "(repeated code omitted)" in content
    assert "must move from the legacy monolith" in content  # the sentence with the action verb


def test_condensing_is_deterministic(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("plan-with-tables.md")
    ctx = Context(budget=100, name="plan.md", task_words=frozenset())
    assert list(MarkdownHandler().candidates(text, ctx)) == list(MarkdownHandler().candidates(text, ctx))


def test_blocks_take_code_fences_whole() -> None:
    parts = blocks("# T\n\n```\n# not a heading\n```\ntext\n")
    assert [b.kind for b in parts] == ["heading", "blank", "code", "prose"]


def test_validate_requires_headings_and_tasks(sample) -> None:  # type: ignore[no-untyped-def]
    text = sample("plan-with-tables.md")
    assert MarkdownHandler().validate(text, text) is None
    assert MarkdownHandler().validate(text, text.replace("## Rollback\n", "")) is not None
