"""The three-tier contract, independent of artifact type.

Tier 1: the text fits, unchanged. Tier 2: within tier2_ratio x budget, the type's plan
(ctxguard.kinds) packed without the marker, every must-keep unit in, re-counted and checked.
Tier 3: the same plan packed with a marker that states the true number of raw tokens not shown,
or a token-exact head cut.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ctxguard.engine import probes
from ctxguard.engine.packer import pack, tier2
from ctxguard.kinds.classify import classify
from ctxguard.kinds.registry import KINDS
from ctxguard.options import MIN_BUDGET, OFFLINE_MIN_BUDGET, KindName, Options
from ctxguard.plan import Plan
from ctxguard.record import Record, Tier
from ctxguard.tokens.base import Encoded, Tokenizer, warning_line
from ctxguard.words import task_words


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
    options: Options = Options(),
    encoded: Encoded | None = None,
    doc: Any = None,
) -> Record:
    """Compress one artifact's text to at most budget tokens under the three-tier contract.

    Pass `encoded` when the caller has already encoded the text, so it is encoded only once.
    `options` holds the task, the tier-2 ratio, the tier-3 mode ("salient": the kind's most
    telling parts, by priority; "head": the literal paragraph-boundary head cut) and whether the
    record lists the probes a cut missed (ctxguard.options). Pass `doc`
    (the kind's reading of the text, ctxguard.kinds) when the caller has read it: a bundle
    compresses an artifact again at each try of its budgets, from the one reading.
    """
    if budget < min_budget(tokenizer):
        raise ValueError(
            f"budget must be at least {min_budget(tokenizer)} tokens (got {budget})"
            + ("" if tokenizer.exact else " when tokens are estimated offline")
        )
    kind = classify(name, text, artifact_type)
    notes: list[str] = []
    warning = warning_line(tokenizer)
    room = budget - tokenizer.count(warning)
    if encoded is None:
        encoded = tokenizer.encode(text)
    raw = encoded.count

    reader = KINDS[kind]
    if doc is None:
        doc = reader.read(text, name)  # read once: the plan and the probes both come from it
    tier: Tier = 1
    content = text
    omitted: tuple[tuple[str, int], ...] = ()
    if raw > room:
        plan = reader.plan(doc, encoded, tokenizer, task_words(options.task), options.focus)
        tier, content, omitted = _packed(
            plan if options.listing else plan.but(listing=None),
            encoded,
            room,
            raw <= options.tier2_ratio * budget,
            kind,
            tokenizer,
            options.tier3,
            notes,
        )
        del plan  # (its units and their columns: let go before the probes read the content)
    else:
        notes.extend(reader.notes(doc))
    found = probes.extract(kind, text, name, doc)
    if tier == 1:
        retention = probes.Retention(probes=len(found), kept=len(found))
    else:
        retention = probes.measure(kind, text, content, found, doc)
    counted = reader.left_out(doc, content) if tier > 1 and reader.left_out is not None else None
    if counted is not None and counted[1]:  # (said, counted: what retention's probes, templates, cannot)
        what, left, of = counted
        retention = replace(retention, left_out={what: [left, of]})
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
        task=options.task,
        notes=tuple(notes),
        retention=retention.to_dict(options.missed),
        omitted=omitted,
    )


def _packed(
    plan: Plan,
    encoded: Encoded,
    room: int,
    within: bool,
    kind: KindName,
    tokenizer: Tokenizer,
    mode: str,
    notes: list[str],
) -> tuple[Tier, str, tuple[tuple[str, int], ...]]:
    """Tier 2 (the plan packed, every must-keep unit in, no marker) when raw is within the
    tier 2 ratio and the must-keep units fit, with what it left out; else tier 3 (the same plan
    with the marker, or the head cut)."""
    notes.extend(plan.notes)
    check = plan.tier2_check or plan.check  # (a tier-2 check asks what the plan's check asks too)
    cut = tier2(plan, room, encoded.recount) if within else None
    if cut is not None and _checked(check, cut.content, "tier 2", notes) is not None:
        return 2, cut.content, cut.omitted
    return 3, _tier3(plan, encoded, room, kind, tokenizer, mode, notes), ()


def _tier3(
    plan: Plan, encoded: Encoded, room: int, kind: KindName, tokenizer: Tokenizer, mode: str, notes: list[str]
) -> str:
    """Tier 3: the plan packed with the marker ("salient"), or the head cut."""
    content: str | None = None
    if mode == "salient":
        content = _checked(plan.check, pack(plan, room, encoded.recount, marker), "tier 3", notes)
        bare = KINDS[kind].bare
        if content is None and bare is not None:  # (a kind that cannot be head-cut: its marker alone)
            alone, said = bare(marker(encoded.count))
            notes.append(said)
            return alone
        shown = encoded.recount(content) if content is not None and KINDS[kind].head_cut else room
        if content is not None and shown < room // 4:
            # Lines longer than the budget (a minified bundle, one huge log line) leave the
            # salient cut nearly empty: the head cut shows the start of them instead.
            head = head_cut(encoded, room, tokenizer)
            if encoded.recount(head) > 2 * shown:
                notes.append("its lines are longer than the budget: a head cut shows their start")
                return head
    return content if content is not None else head_cut(encoded, room, tokenizer)


def _checked(check: Callable[[str], str | None] | None, content: str | None, tier: str, notes: list[str]) -> str | None:
    """The content, unless the check turns it down (a note says why)."""
    problem = check(content) if content is not None and check is not None else None
    if problem is None:
        return content
    notes.append(f"{tier} result rejected: {problem}")
    return None


def min_budget(tokenizer: Tokenizer) -> int:
    """The smallest budget the tokenizer allows: 32, or 64 when tokens are only estimated."""
    return MIN_BUDGET if tokenizer.exact else OFFLINE_MIN_BUDGET


def overhead(tokenizer: Tokenizer) -> int:
    """Tokens every record's content carries besides the artifact (the offline warning line)."""
    return tokenizer.count(warning_line(tokenizer))


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
