"""Small helpers shared by test modules."""
from __future__ import annotations

import tiktoken

from ctxguard.tokens import get_tokenizer


def independent_count(text: str, encoding: str = "o200k_base") -> int:
    """Count with tiktoken directly, not through ctxguard's seam."""
    return len(tiktoken.get_encoding(encoding).encode_ordinary(text))


def budget_for_tier2(text: str, factor: float = 1.3) -> int:
    """A budget that puts text in the Tier 2 band (raw = factor x budget)."""
    return int(get_tokenizer().count(text) / factor)
