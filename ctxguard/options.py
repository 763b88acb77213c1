"""How one artifact is cut: the options that travel with it from the config or the command line
to the tiers, as one frozen value (black's `Mode` is the model); and the names every stage
shares: the kinds' names, the least budget."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

KindName = Literal["diff", "json", "log", "markdown", "text", "junit", "sarif"]  # the artifact kinds (ctxguard.kinds)
TYPES: tuple[KindName, ...] = get_args(KindName)
Format = Literal["json", "markdown", "prompt"]  # the forms a bundle is written in (ctxguard.bundle)
FORMATS: tuple[Format, ...] = get_args(Format)
MIN_BUDGET = 32  # the least budget: room for the marker and some content
OFFLINE_MIN_BUDGET = 64  # when tokens are estimated, the warning line must fit too

Tier3Mode = Literal["salient", "head"]  # the type's most telling parts, or the literal head cut
TIER3_MODES: tuple[Tier3Mode, ...] = get_args(Tier3Mode)
TIER2_RATIO = 1.5


@dataclass(frozen=True)
class Options:
    """task: what the reviewer is asked to do (its words lift the lines that name them);
    tier2_ratio: how far over the budget a raw text may be for tier 2; tier3: the mode of a
    tier-3 cut; missed: list the probes a cut lost in the record; listing: a tier-3 cut starts
    with its kind's listing (a diff's files), unless the record lists them itself (a bundle's);
    focus: the raw lines (0-based) the bundle's failures lead to (ctxguard.links), which its
    kind's plan takes first (a diff's hunks that failing tests go through)."""

    task: str | None = None
    tier2_ratio: float = TIER2_RATIO
    tier3: Tier3Mode = "salient"
    missed: bool = False
    listing: bool = True
    focus: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if not math.isfinite(self.tier2_ratio) or self.tier2_ratio < 1:
            raise ValueError(f"tier2_ratio must be a number of at least 1 (got {self.tier2_ratio!r})")
        if self.tier3 not in TIER3_MODES:
            raise ValueError(f"tier3 must be one of {', '.join(TIER3_MODES)} (got {self.tier3!r})")
