from __future__ import annotations

from ctxguard import compress_text
from tests.helpers import budget_for_tier2, independent_count


def test_code_keeps_signatures_head_and_tail() -> None:
    body = "".join(f"    value_{i} = compute_{i}(value_{i - 1})\n" for i in range(1, 40))
    text = "".join(f"def step_{n}(value_0):\n{body}    return value_39\n\n" for n in range(6))
    record = compress_text(text, budget_for_tier2(text), name="steps.py")
    content = record["content"]
    assert record["tier"] == 2 and independent_count(content) <= record["budget"]
    assert all(f"def step_{n}(value_0):" in content for n in range(6))
    assert " omitted)" in content
