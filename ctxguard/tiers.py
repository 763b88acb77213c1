"""The three-tier contract, independent of artifact type.

Tier 1: the text fits, unchanged. Tier 2: within tier2_ratio x budget, the type's handler
compresses structurally and the result is re-counted and validated. Tier 3: a token-exact hard
cut with a marker that states the true number of raw tokens not shown.
"""
from __future__ import annotations

from ctxguard import probes
from ctxguard.classify import classify, is_jsonl_name
from ctxguard.handlers import HANDLERS, PLANS, Context
from ctxguard.handlers.base import CLOSE_SLACK, ESTIMATE_SLACK, task_words
from ctxguard.handlers.json import values as json_values
from ctxguard.packer import pack
from ctxguard.plan import Plan
from ctxguard.record import Record
from ctxguard.tokens import HEURISTIC_WARNING, Encoded, Tokenizer

MIN_BUDGET = 32  # room for the marker and some content
OFFLINE_MIN_BUDGET = 64  # when tokens are estimated, the warning line must fit too
TIER2_RATIO = 1.5
TIER3_MODES = ("salient", "head")


def marker(omitted: int) -> str:
    """The Tier 3 marker line."""
    return f"[TRUNCATED: content exceeds budget, remaining {omitted} tokens omitted]"


def compress(
    text: str,
    budget: int,
    *,
    tokenizer: Tokenizer,
    name: str = "<text>",
    artifact_type: str | None = None,
    task: str | None = None,
    tier2_ratio: float = TIER2_RATIO,
    encoded: Encoded | None = None,
    tier3: str = "salient",
    missed: bool = False,
) -> Record:
    """Compress one artifact's text to at most budget tokens under the three-tier contract.

    Pass `encoded` when the caller has already encoded the text, so it is encoded only once.
    tier3 is "salient" (the type's most telling parts, by priority) or "head" (the literal
    paragraph-boundary head cut). missed=True lists the missed probes in the record.
    """
    if tier3 not in TIER3_MODES:
        raise ValueError(f"tier3 must be one of {', '.join(TIER3_MODES)} (got {tier3!r})")
    if budget < min_budget(tokenizer):
        raise ValueError(f"budget must be at least {min_budget(tokenizer)} tokens (got {budget})"
                         + ("" if tokenizer.exact else " when tokens are estimated offline"))
    kind = classify(name, text, artifact_type)
    notes: list[str] = []
    warning = _warning(tokenizer)
    room = budget - tokenizer.count(warning)
    if encoded is None:
        encoded = tokenizer.encode(text)
    raw = encoded.count

    tier, content = 1, text
    planned = kind
    if raw > room and kind == "json" and json_values(text) is None:
        notes.append("content is not valid json; compressed as text")
        planned = "text"
    if raw > room and planned in PLANS:
        tier, content = _packed(encoded, room, raw <= tier2_ratio * budget, planned, name, task, tokenizer,
                                tier3, notes)
    elif raw > room:
        tier2 = _tier2(encoded, room, kind, name, task, notes) if raw <= tier2_ratio * budget else None
        if tier2 is not None:
            tier, content = 2, tier2
        else:
            tier, content = 3, _tier3(encoded, room, tokenizer, tier3)
    found = probes.extract(kind, text, name)
    if tier == 1:
        retention = probes.Retention(probes=len(found), kept=len(found))
    else:
        retention = probes.measure(kind, text, content, found)
    compacted = raw if tier == 1 else encoded.recount(content)
    if warning:  # estimated counts: the warning line is counted with the content
        content = warning + content
        compacted = tokenizer.count(content)
    return Record(
        artifact_name=name,
        raw_tokens=raw,
        compacted_tokens=compacted,
        truncated=tier == 3,
        content=content,
        type=kind,
        tier=tier,
        budget=budget,
        encoding=tokenizer.name,
        task=task,
        notes=tuple(notes),
        retention=retention.to_dict(missed),
    )


def _packed(encoded: Encoded, room: int, tier2: bool, kind: str, name: str, task: str | None,
            tokenizer: Tokenizer, mode: str, notes: list[str]) -> tuple[int, str]:
    """Tier 2 (the plan packed, every must-keep unit in, no marker) when raw is within the
    tier 2 ratio and the must-keep units fit; else tier 3 (the same plan with the marker, or
    the head cut)."""
    plan = PLANS[kind](encoded, tokenizer, name, task_words(task))
    notes.extend(plan.notes)
    content = _checked(plan, pack(plan, room, encoded.recount), "tier 2", notes) if tier2 else None
    if content is not None:
        return 2, content
    if mode == "salient":
        content = _checked(plan, pack(plan, room, encoded.recount, marker), "tier 3", notes)
    return 3, content if content is not None else head_cut(encoded, room, tokenizer)


def _checked(plan: Plan, content: str | None, tier: str, notes: list[str]) -> str | None:
    """The content, unless the plan's check turns it down (a note says why)."""
    problem = plan.check(content) if content is not None and plan.check is not None else None
    if problem is None:
        return content
    notes.append(f"{tier} result rejected: {problem}")
    return None


def _tier3(encoded: Encoded, room: int, tokenizer: Tokenizer, mode: str) -> str:
    """The tier-3 cut of a JSON text (the one type still cut by its handler's forms): valid JSON
    when it fits, else the head cut."""
    if mode == "salient":
        from ctxguard.salient import salient_cut

        content = salient_cut(encoded, room)
        if content is not None:
            return content
    return head_cut(encoded, room, tokenizer)


def min_budget(tokenizer: Tokenizer) -> int:
    """The smallest budget the tokenizer allows: 32, or 64 when tokens are only estimated."""
    return MIN_BUDGET if tokenizer.exact else OFFLINE_MIN_BUDGET


def _warning(tokenizer: Tokenizer) -> str:
    return "" if tokenizer.exact else HEURISTIC_WARNING + "\n"


def overhead(tokenizer: Tokenizer) -> int:
    """Tokens every record's content carries besides the artifact (the offline warning line)."""
    return tokenizer.count(_warning(tokenizer))


def handler_context(encoded: Encoded, room: int, name: str, task: str | None) -> Context:
    """What a handler is told about an artifact it compresses into room tokens."""
    return Context(budget=room, name=name, task_words=task_words(task), jsonl=is_jsonl_name(name),
                   density=tokens_per_char(encoded))


def tokens_per_char(encoded: Encoded) -> float:
    """Tokens per character of the encoded text."""
    return encoded.count / max(1, len(encoded.text))


def _tier2(encoded: Encoded, room: int, kind: str, name: str, task: str | None,
           notes: list[str]) -> str | None:
    """The mildest structural compression (of the type's handler) that fits and is valid, or None."""
    text = encoded.text
    ctx = handler_context(encoded, room, name, task)
    density = tokens_per_char(encoded)
    handler = HANDLERS[kind]
    slack = ESTIMATE_SLACK
    for candidate in handler.candidates(text, ctx):
        if candidate == text or len(candidate) * density > room * slack:
            continue
        count = encoded.recount(candidate)
        if count <= room:
            problem = handler.validate(text, candidate)
            if problem is None:
                return candidate
            notes.append(f"tier 2 result rejected: {problem}")
            return None
        # Too big: the next, stronger candidates are estimated with this one's real density.
        density, slack = count / max(1, len(candidate)), CLOSE_SLACK
    return None


def head_cut(encoded: Encoded, budget: int, tokenizer: Tokenizer) -> str:
    """Cut at the last blank line (else line break, else token) so that text + marker fit.

    The cut comes from the one token array of the raw text; the only other counts are of
    the marker and one check of the result.
    """
    total = encoded.count
    keep = budget - tokenizer.count("\n" + marker(total))
    while True:
        prefix = encoded.head(keep)
        cut = _boundary(prefix)
        shown = prefix[:cut]
        omitted = total - encoded.tokens_within(cut)
        joint = "" if not shown or shown.endswith("\n") else "\n"
        content = shown + joint + marker(omitted)
        over = encoded.recount(content) - budget
        if over <= 0 or keep <= 0:
            return content
        # BPE can merge across the cut or the joint; shrink by exactly the overshoot and retry.
        keep = max(0, keep - over)


def _boundary(prefix: str) -> int:
    """Where to cut a prefix: after a blank line, else a line break, else at its end.

    A boundary counts only in the last half of the prefix, so one early blank line does not
    throw away most of the budget.
    """
    half = len(prefix) // 2
    paragraph = prefix.rfind("\n\n")
    if paragraph >= half:
        return paragraph + 2
    line = prefix.rfind("\n")
    if line >= half:
        return line + 1
    return len(prefix)
