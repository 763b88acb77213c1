from __future__ import annotations

import re

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
    assert re.search(r"we will roll back by flipping the `checkout.v2` flag\.[^\n]* …\n", content)
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
    text = "# Title\n\n" + "".join(
        f"## Part {i}\n\nFirst point {i} is here. Second point {i} follows.\n\n" for i in range(30)
    )
    for budget in (60, 120, 240):
        content = compress_text(text, budget, name="doc.md")["content"]
        for i in range(30):
            if f"point {i} " in content:
                assert f"## Part {i}\n" in content


def test_blocks_take_code_fences_whole() -> None:
    parts = read("# T\n\n```\n# not a heading\n```\ntext\n").blocks
    assert [b.kind for b in parts] == ["heading", "blank", "code", "prose"]


def test_setext_headings_are_headings() -> None:
    text = "Release plan\n============\n\nIntro sentence one. Intro sentence two.\n\nGoals\n-----\n\n" + "".join(
        f"Goal paragraph {i} has words. And more words here.\n\n" for i in range(40)
    )
    parts = read(text).blocks
    assert [b.lines for b in parts if b.kind == "heading"] == [
        ("Release plan\n", "============\n"),
        ("Goals\n", "-----\n"),
    ]
    record = compress_text(text, 80, name="plan.md")
    assert record["tier"] == 3
    assert "Release plan\n============\n" in record["content"] and "Goals\n-----\n" in record["content"]
    assert record["retention"]["kept"] >= 2


_RULE = re.compile(r"\b(?:MUST(?: NOT)?|SHALL(?: NOT)?|REQUIRED|SHOULD(?: NOT)?|RECOMMENDED)\b")


def _rules(text: str) -> list[str]:
    """Each sentence with an RFC 2119 word in capitals, outside code and the keyword list."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    flat = [" ".join(p.split()) for p in re.split(r"\n\s*\n", prose)]
    return [s for p in flat for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", p) if _RULE.search(s) and '"MUST"' not in s]


def test_a_spec_cut_to_60_percent_keeps_every_rule_whole(sample) -> None:  # type: ignore[no-untyped-def]
    # (At half it keeps all but two SHOULD rules: its ten gap lines name the lines they stand for.)
    text = sample("rfc2119-spec.md")
    rules = _rules(text)
    assert len(rules) >= 8
    budget = independent_count(text) * 6 // 10
    record = compress_text(text, budget, name="spec.md")
    assert record["tier"] == 3 and independent_count(record["content"]) <= budget
    flat = " ".join(record["content"].split())
    assert [r for r in rules if r not in flat] == []
    head = " ".join(text[: len(text) * 6 // 10].split())  # (a head cut of about the same size)
    assert sum(r in head for r in rules) < len(rules)


def test_a_rule_goes_on_over_its_items_lazy_lines() -> None:
    text = (
        "# Spec\n\n## Rules\n\n1. A server MUST answer every request with a page, even when the\n"
        "page is empty. Pages are cached for a while by most of the clients we know about.\n"
        + "".join(f"\nFiller paragraph {i} says nothing a reviewer needs to see today.\n" for i in range(30))
    )
    content = compress_text(text, 80, name="spec.md")["content"]
    assert "1. A server MUST answer every request with a page, even when the\npage is empty." in content


def test_a_lead_in_is_kept_with_the_rules_it_introduces() -> None:
    text = (
        "# Spec\n\n### id\n\nThe identifier of the event.\n\n- Constraints:\n  - REQUIRED\n"
        "  - MUST be a non-empty string\n"
        + "".join(f"\nFiller paragraph {i} says nothing a reviewer needs to see today.\n" for i in range(30))
    )
    content = compress_text(text, 60, name="spec.md")["content"]
    assert "- Constraints:\n  - REQUIRED\n  - MUST be a non-empty string\n" in content


def test_a_numbered_items_marker_is_not_a_sentence() -> None:
    text = "# Spec\n\n1. First rule here. It has two sentences.\n2. A client SHOULD retry.\n"
    doc = read(text)
    pieces = [sentence.text for paragraph in doc.paragraphs for sentence in paragraph.sentences]
    assert pieces == ["1. First rule here. ", "It has two sentences.\n", "2. A client SHOULD retry.\n"]


def test_a_cut_keeps_rules_from_the_whole_document_and_a_repeated_rule_once() -> None:
    """Rules are taken the cheaper first, so a tight cut keeps as many as fit,
    wherever they are; a rule said again word for word goes last."""
    long_rules = "".join(
        f"\n### Part {i}\n\nEach part {i} handler MUST validate the whole of its input against the schema given "
        "in the appendix before it does anything else with it, and reject what does not match.\n"
        for i in range(8)
    )
    fields = "".join(f"\n### Field {i}\n\n- id (string) - REQUIRED.\n- name{i} MUST NOT be empty.\n" for i in range(8))
    text = "# Spec\n" + long_rules + fields
    budget = independent_count(text) // 3
    content = compress_text(text, budget, name="spec.md")["content"]
    assert sum(f"name{i} MUST NOT be empty." in content for i in range(8)) >= 4  # the short rules first
    assert "Each part 0 handler MUST" not in content  # (a head-first cut would keep the long ones)
    from ctxguard.kinds.markdown import KIND
    from ctxguard.tokens.load import get_tokenizer

    tokenizer = get_tokenizer()
    plan = KIND.plan(KIND.read(text, "spec.md"), tokenizer.encode(text), tokenizer, frozenset())
    copies = [u for u in plan.units if u.text == "- id (string) - REQUIRED.\n"]
    assert len(copies) == 8 and [u.must for u in copies] == [True] + [False] * 7
    assert all(u.priority > copies[0].priority for u in copies[1:])


def test_a_tight_cut_takes_rules_by_their_cost_with_their_section_and_a_should_not_last() -> None:
    """MUST and SHOULD sentences are one group taken the cheaper first: short SHOULD rules come
    before long MUST rules; and a rule pays its share of its heading and gap lines, so the rules
    of one section with several come before lone rules, as short, under headings of their own."""
    long_musts = "".join(
        f"\n### Part {i}\n\nEach part {i} handler MUST validate the whole of its input against the schema given "
        "in the appendix before it does anything else with it, and reject what does not match.\n"
        for i in range(6)
    )
    lone = "".join(f"\n### Field number {i} of the event envelope\n\n- Its value{i} is REQUIRED.\n" for i in range(8))
    together = "\n### Clients\n\n" + "".join(f"- A client SHOULD retry case{i}.\n" for i in range(8))
    text = "# Spec\n" + long_musts + lone + together
    content = compress_text(text, independent_count(text) // 4, name="spec.md")["content"]
    kept = sum(f"retry case{i}." in content for i in range(8))
    assert kept >= 6, content  # the section of SHOULD rules, cheap per rule, first
    assert sum(f"value{i} is REQUIRED" in content for i in range(8)) < kept
    assert "Each part 0 handler MUST" not in content


def test_a_tight_cut_shows_rules_under_their_headings_path_before_empty_sections() -> None:
    """Past the title, headings come after the rules: sections with nothing kept do not take
    the room of the rules, and a rule deep in the outline shows with every heading it is under."""
    filler = "".join(
        f"\n## Background part {i}\n\n" + f"Some background prose number {i} without any rules. " * 6 + "\n"
        for i in range(10)
    )
    deep = "\n## Protocols\n\n### MQTT\n\n#### topicname\n\n- The topicname setting MUST be a non-empty string.\n"
    text = "# Subscriptions spec\n" + filler + deep + filler.replace("Background", "Appendix")
    content = compress_text(text, 120, name="spec.md")["content"]
    assert content.startswith("# Subscriptions spec\n"), content
    assert "MUST be a non-empty string." in content
    assert content.index("## Protocols") < content.index("### MQTT") < content.index("#### topicname")
    assert sum(f"## Background part {i}\n" in content for i in range(30)) < 10  # (they alone cost 300)


def test_task_items_show_under_their_heading() -> None:
    parts = "".join(f"\n## Part {i}\n\nA sentence that explains part {i} of the plan at length.\n" for i in range(20))
    text = "# Plan\n" + parts + "\n## Tasks\n\n- [ ] Do it\n"
    content = compress_text(text, 48, name="plan.md")["content"]
    assert "- [ ] Do it" in content and "## Tasks" in content, content


def test_list_rules_show_with_the_prose_that_leads_into_their_list() -> None:
    """`… attribute names have the following constraints:` says what the items constrain: an
    item is never shown without it, and the items share its cost (the cheapest item alone
    would not bring it)."""
    lead = (
        "In order to maximize the likelihood of interoperability across transport protocols,\n"
        "attribute names have the following constraints:\n"
    )
    items = "- MUST consist of lower-case letters.\n- SHOULD start with a letter.\n- MUST NOT be `data`.\n"
    filler = "".join(f"\nFiller paragraph {i} says nothing a reviewer needs to see today.\n" for i in range(30))
    text = "# Spec\n\n## Naming\n\n" + lead + items + filler
    from ctxguard.kinds.markdown import KIND
    from ctxguard.tokens.load import get_tokenizer

    tokenizer = get_tokenizer()
    plan = KIND.plan(KIND.read(text, "spec.md"), tokenizer.encode(text), tokenizer, frozenset())
    lead_unit = next(i for i, u in enumerate(plan.units) if u.text == lead)
    rules = [u for u in plan.units if u.text in items.splitlines(keepends=True)]
    assert len(rules) == 3 and all(u.anchors == (lead_unit,) for u in rules)
    shown = 0
    for budget in (40, 60, 80, 100):
        content = compress_text(text, budget, name="spec.md")["content"]
        if "- SHOULD start with a letter." in content or "- MUST NOT be `data`." in content:
            assert lead in content and "## Naming" in content, content
            shown += 1
    assert shown >= 2


def test_each_next_rule_is_the_one_that_costs_least_to_add() -> None:
    """Once a rule has opened its section, the section's other rules cost only themselves: they
    come before a rule as short under three headings of its own, and the order holds at any
    room."""
    deep = "\n## Transport\n\n### Framing\n\n#### Headers\n\nClients MUST send the trace header.\n"
    wide = (
        "\n## Servers\n\nServers MUST reply within five seconds.\n\nSome prose that is not a rule.\n\n"
        "Servers MUST log a rejected request.\n"
    )
    text = "# Spec\n" + deep + wide
    from ctxguard.kinds.markdown import KIND
    from ctxguard.tokens.load import get_tokenizer

    tokenizer = get_tokenizer()
    plan = KIND.plan(KIND.read(text, "spec.md"), tokenizer.encode(text), tokenizer, frozenset())
    order = sorted((u for u in plan.units if "MUST" in u.text), key=lambda u: u.priority)
    assert [u.text.split(" MUST")[0] for u in order] == ["Servers", "Servers", "Clients"]


# --- every fence closed, at every budget ---------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_BLOCKS = [
    "```python\ndef apply(rate):\n    return round(rate * 100, 2)\n```\n",
    "```\nmake test\n```\n",
    "~~~sh\npip install .\nctxguard bundle\n~~~\n",
]
_PROSE = [
    "Users MUST see percentages.",
    "It SHOULD round to two places.",
    "Some prose about why the dashboard needs this change and what users said.",
    "- [ ] ship behind a flag",
    "| a | b |\n|---|---|\n| 1 | 2 |",
]


@st.composite
def _plans(draw: st.DrawFn) -> str:
    parts = ["# Plan\n"]
    for k in range(draw(st.integers(1, 5))):
        parts.append(f"\n## Section {k}\n\n")
        for _ in range(draw(st.integers(1, 4))):
            parts.append(draw(st.sampled_from(_PROSE + _BLOCKS)) + "\n\n")
    return "".join(parts)


def _fences_balanced(content: str) -> bool:
    """Every opening fence has its closing one: outside a block, a fence opens one; inside, only
    the same fence character, at least as long, closes it."""
    open_fence: str | None = None
    for line in content.splitlines():
        match = re.match(r"^\s{0,3}(`{3,}|~{3,})", line)
        if match is None:
            continue
        mark = match.group(1)
        if open_fence is None:
            open_fence = mark
        elif mark[0] == open_fence[0] and len(mark) >= len(open_fence) and not line.strip()[len(mark) :]:
            open_fence = None
    return open_fence is None


@settings(max_examples=60, deadline=None)
@given(text=_plans(), share=st.floats(0.05, 0.99))
def test_every_fence_is_closed_in_every_markdown_cut(text: str, share: float) -> None:
    """A repeated code block (taken last) left out must take both its fences with it: a closing
    fence kept alone turns everything after it into code."""
    budget = max(64, int(independent_count(text) * share))
    content = compress_text(text, budget, name="plan.md")["content"]
    assert _fences_balanced(content), content


def test_a_repeated_code_block_cut_keeps_no_stray_fence() -> None:
    block = "```python\ndef apply(rate):\n    return round(rate * 100, 2)\n```\n"
    plan = (
        "# Plan: rate display\n\n## Change\n\nFormat every rate with this helper:\n\n" + block
        + "\nIt SHOULD round to two places.\n\n## Appendix\n\nThe same helper again, for the report page:\n\n"
        + block + "\nThe report page MUST use the helper too.\n\n## Notes\n\n"
        + "Some more prose about why the dashboard needs this change and what users said. " * 6 + "\n"
    )  # fmt: skip
    for budget in range(64, independent_count(plan)):
        content = compress_text(plan, budget, name="plan.md")["content"]
        assert _fences_balanced(content), (budget, content)


def test_a_wall_of_links_with_no_full_stop_does_not_leave_the_room_unused() -> None:
    """A README's sponsors: a hundred lines of links that read as one 'sentence'. Whole, it fits
    nowhere and tier 2 filled three quarters of its budget; its lines are taken as far as they fit."""
    links = "".join(
        f'<a href="https://example.org/sponsor/{i}"><img src="https://example.org/{i}.svg"></a>\n' for i in range(100)
    )
    sections = "".join(
        f"## Part {i}\n\nA short paragraph about part {i}. It says what part {i} does.\n\n" for i in range(20)
    )
    text = f"# Project\n\n{sections}## Sponsors\n\n{links}\n## Backers\n\n{links}"
    budget = independent_count(text) * 2 // 3
    record = compress_text(text, budget, name="README.md")
    assert record["tier"] == 2 and record["compacted_tokens"] >= 0.95 * budget


def test_a_tight_room_shows_a_shallow_sections_rule_before_a_deep_sections_path() -> None:
    """A heading path's cost is shared among at most two of the rules under it when rules are
    ordered: six rules five headings deep, each sharing the path six ways, looked cheaper than
    one rule under a heading of its own, and a tight room held the deep path and no rule."""
    filler = "This paragraph explains the background of the section at some length, with no rule in it.\n\n" * 6
    text = "# The specification of message routing\n\n" + filler
    for heading in (
        "## Deliveries across the bindings of every transport we know",
        "### Subscriptions made over the bindings of every transport",
        "#### Filters applied to subscriptions over every transport",
        "##### Dialects of the filters applied to subscriptions",
    ):
        text += f"{heading}\n\n{filler}"
    text += "".join(f"Dialect {k} MUST be supported.\n\n{filler}" for k in range(6))
    text += "## Errors\n\n" + filler + "A sender MUST retry a failed delivery.\n\n" + filler
    tight = compress_text(text, 80, name="spec.md")["content"]
    assert "## Errors\n" in tight and "A sender MUST retry a failed delivery.\n" in tight
    assert "##### Dialects" not in tight
    roomy = compress_text(text, 200, name="spec.md")["content"]  # (then the deep section's rules)
    assert "A sender MUST retry" in roomy and sum(f"Dialect {k} MUST" in roomy for k in range(6)) >= 3
