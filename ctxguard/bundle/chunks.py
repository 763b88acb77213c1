"""`split: chunks`: a change bigger than one bundle, reviewed in several instead of cut.

The diff entry's changed files are grouped, in diff order, into chunks; each chunk is a bundle of
its files and every other artifact, within total_budget, with its files whole (a file bigger
than a chunk is cut in a chunk of its own). Groups are first estimated from the files' token
counts and the room the other artifacts leave, then checked by building each bundle: a group
whose files were cut is split in two and built again.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ctxguard.collect import Artifact, Source
from ctxguard.config.model import Config
from ctxguard.options import MIN_BUDGET
from ctxguard.tokens.base import Tokenizer

ESCAPE = 1.15  # a content string's tokens as JSON, about, over its own
RECORD = 60  # a record's fields, about


def chunked_entry(config: Config) -> str | None:
    """The entry whose files are grouped into chunks, if one is."""
    return next((s.name for s in config.artifacts if s.split == "chunks"), None)


def is_file_of(artifact: Artifact, entry: str) -> bool:
    """One changed file of the chunked entry (its record is named `entry:path`)."""
    return artifact.entry == entry and artifact.name != artifact.entry


def split(
    config: Config,
    collected: tuple[list[Artifact], Source],
    tokenizer: Tokenizer,
    build: Callable[[list[Artifact]], tuple[Any, int]],
) -> list[tuple[Any, list[Artifact]]]:
    """The change's bundles, one per chunk, in order, each with its artifacts: `build` makes a
    bundle of some artifacts and says the records' tiers (its result) and its written tokens."""
    entry = chunked_entry(config)
    artifacts, _ = collected
    files = [a for a in artifacts if entry is not None and is_file_of(a, entry)]
    others = [a for a in artifacts if entry is None or not is_file_of(a, entry)]
    spec = config.spec(entry) if entry is not None else None
    if not files or spec is None or config.total_budget is None:
        return [(build(artifacts)[0], artifacts)]
    total = math.floor(config.total_budget * config.margin)
    _, fixed = build(others)  # what the other artifacts take, the digest and the fields
    room = max(total - fixed, total // 3)
    costs = [math.ceil(tokenizer.count(a.text or "") * ESCAPE) + RECORD for a in files]
    pending = _groups(costs, room)[::-1]
    done: list[tuple[Any, list[Artifact]]] = []
    while pending:
        group = pending.pop()
        chosen = [replace(a, budget=max(MIN_BUDGET, spec.budget // len(group))) for a in (files[i] for i in group)]
        part = others + chosen
        result, _ = build(part)
        cut = any(r.tier > 1 for r in result.records if r.entry == entry and r.artifact_name != entry)
        if cut and len(group) > 1:  # (the estimate was short: two halves instead)
            half = len(group) // 2
            pending += [group[half:], group[:half]]
            continue
        done.append((result, part))
    return done


def _groups(costs: Sequence[int], room: int) -> list[list[int]]:
    """The files' indexes in order, grouped while their costs fit the room."""
    groups: list[list[int]] = [[]]
    used = 0
    for i, cost in enumerate(costs):
        if groups[-1] and used + cost > room:
            groups.append([])
            used = 0
        groups[-1].append(i)
        used += cost
    return groups
