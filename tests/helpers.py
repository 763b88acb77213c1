"""Small helpers shared by test modules."""

from __future__ import annotations

from ctxguard.tokens.load import get_tokenizer, tiktoken_encoding


def independent_count(text: str, encoding: str = "o200k_base") -> int:
    """Count with tiktoken itself (from the shipped files), not through ctxguard's counting."""
    return len(tiktoken_encoding(encoding).encode_ordinary(text))


def budget_for_tier2(text: str, factor: float = 1.3) -> int:
    """A budget that puts text in the Tier 2 band (raw = factor x budget)."""
    return int(get_tokenizer().count(text) / factor)


def probes_kept(text: str, kind: str, name: str, shares: tuple[float, float]) -> list[set[object]]:
    """The probes a cut keeps at the smaller and the bigger of two budgets (shares of the raw
    tokens, at least 32), compared as the records compare them."""
    from ctxguard.engine import probes
    from ctxguard.engine.tiers import compress

    tokenizer = get_tokenizer()
    raw = tokenizer.count(text)
    found = probes.extract(kind, text, name)
    kept = []
    for budget in sorted(max(32, int(raw * share)) for share in shares):
        content = compress(text, budget, tokenizer=tokenizer, name=name, artifact_type=kind).content
        kept.append(set(found) - set(probes.measure(kind, text, content, found).missed))
    return kept
