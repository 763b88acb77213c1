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


def shown_lines(content: str, raw: list[str]) -> set[int]:
    """The raw line numbers (from 1) a cut shows, read from its gap lines (`... (lines A-B
    omitted)` says which raw lines it stands for): a count independent of ctxguard's own."""
    from ctxguard.plan import GAP_LINE

    shown, at = set(), 1
    for line in content.splitlines():
        gap = GAP_LINE.match(line)
        if gap:
            at = int(gap.group(2) or gap.group(1)) + 1
        elif at <= len(raw) and (line == raw[at - 1] or line.startswith(raw[at - 1] + "  (")):
            shown.add(at)  # (as it is, or with how often it occurs: `… (12 occurrences)`)
            at += 1
    return shown
