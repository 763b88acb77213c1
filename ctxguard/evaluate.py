"""`ctxguard eval`: compliance and retention of compression over real artifacts, per type.

For each artifact and each budget ratio (budget = ratio x raw tokens), every method compresses
the artifact; compliance is counted independently (a fresh tiktoken encoding, not ctxguard's
tokenizer), retention with the probes of ctxguard.probes.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ctxguard.engine import probes
from ctxguard.engine.tiers import compress
from ctxguard.kinds.classify import classify
from ctxguard.kinds.registry import KINDS
from ctxguard.options import MIN_BUDGET, KindName, Options, Tier3Mode
from ctxguard.read import read_artifact
from ctxguard.tokens.base import Tokenizer
from ctxguard.tokens.load import tiktoken_encoding

RATIOS = (0.8, 0.5, 0.2)
Method = Callable[[str, str, str, int], str]  # (text, kind, name, budget) -> content


@dataclass(frozen=True)
class Artifact:
    name: str
    kind: KindName
    text: str


@dataclass(frozen=True)
class Row:
    """One artifact, one budget, one method."""

    name: str
    kind: str
    method: str
    ratio: float
    budget: int
    raw: int
    tokens: int
    compliant: bool
    retention: float
    parses: bool | None  # JSON only


def load(paths: Iterable[str | Path]) -> tuple[list[Artifact], list[str]]:
    """Readable text files under the paths (folders recursed, sorted), and what was skipped."""
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.is_file()))
        else:
            files.append(path)
    artifacts, skipped = [], []
    for file in files:
        loaded = read_artifact(file)
        if loaded.text is None or not loaded.text.strip():
            skipped.append(f"{file}: {loaded.error or 'empty'}")
        else:
            artifacts.append(Artifact(str(file), classify(str(file), loaded.text), loaded.text))
    return artifacts, skipped


def ctxguard_method(tokenizer: Tokenizer, tier3: Tier3Mode = "salient") -> Method:
    """ctxguard's own compression as an eval method."""

    def run(text: str, kind: str, name: str, budget: int) -> str:
        return compress(
            text, budget, tokenizer=tokenizer, name=name, artifact_type=kind, options=Options(tier3=tier3)
        ).content

    return run


def independent_counter(tokenizer: Tokenizer) -> Callable[[str], int]:
    """A token counter that does not share ctxguard's code path (tiktoken itself, reading the
    encoding files shipped with ctxguard)."""
    if not tokenizer.exact:
        return tokenizer.count
    encoding = tiktoken_encoding(tokenizer.name)
    return lambda text: len(encoding.encode_ordinary(text))


def evaluate(
    artifacts: Sequence[Artifact], ratios: Sequence[float], methods: dict[str, Method], tokenizer: Tokenizer
) -> list[Row]:
    """Every artifact x ratio x method."""
    count = independent_counter(tokenizer)
    rows = []
    for artifact in artifacts:
        raw = tokenizer.count(artifact.text)
        found = probes.extract(artifact.kind, artifact.text, artifact.name)
        for ratio in ratios:
            budget = max(MIN_BUDGET, math.floor(raw * ratio))
            for method, fn in methods.items():
                content = fn(artifact.text, artifact.kind, artifact.name, budget)
                kept = probes.measure(artifact.kind, artifact.text, content, found)
                parses = None
                valid = KINDS[artifact.kind].valid
                if valid is not None and len(found):  # the raw text was in its kind's syntax: still is?
                    parses = valid(content)
                tokens = count(content)
                rows.append(
                    Row(
                        artifact.name,
                        artifact.kind,
                        method,
                        ratio,
                        budget,
                        raw,
                        tokens,
                        tokens <= budget,
                        kept.score,
                        parses,
                    )
                )
    return rows


def table(rows: Sequence[Row]) -> str:
    """Per type and ratio (and method): n, compliance, mean and min retention, JSON parse rate."""
    groups: dict[tuple[str, float, str], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.kind, row.ratio, row.method), []).append(row)
    header = (
        f"{'type':<9} {'budget':>6}  {'method':<10} {'n':>3}  {'compliance':>10}  {'retention':>9}  {'min':>5}"
        f"  {'parses':>6}"
    )
    lines = [header, "-" * len(header)]
    for (kind, ratio, method), group in sorted(groups.items(), key=lambda kv: (kv[0][0], -kv[0][1], kv[0][2])):
        compliance = sum(r.compliant for r in group) / len(group)
        retention = statistics.mean(r.retention for r in group)
        parses = [r.parses for r in group if r.parses is not None]
        parse_text = f"{sum(parses) / len(parses):.0%}" if parses else "-"
        lines.append(
            f"{kind:<9} {ratio:>6.0%}  {method:<10} {len(group):>3}  {compliance:>10.0%}  "
            f"{retention:>9.3f}  {min(r.retention for r in group):>5.2f}  {parse_text:>6}"
        )
    return "\n".join(lines)
