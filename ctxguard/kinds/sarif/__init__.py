"""SARIF 2.1.0 logs (CodeQL, ruff, semgrep, ESLint, trivy, gitleaks …): read once into runs of
results; rendered for a reader, results first, errors before warnings before notes, a rare
rule's before a common one's; the rules' metadata only for rules with results."""

from __future__ import annotations

from collections.abc import Iterator

from ctxguard.kinds.base import Facts, KindOf, Probe, not_shown
from ctxguard.kinds.rendered import bare, shorten
from ctxguard.kinds.sarif.model import LEVELS, SarifDoc, is_sarif, read
from ctxguard.kinds.sarif.plan import plan, totals

PROBED_CHARS = 200


def probes(doc: SarifDoc) -> Iterator[Probe]:
    """The totals; each result's rule with its place, and the start of its message."""
    if doc.runs is None:
        return
    yield Probe("summary", totals(doc.runs).strip())
    for run in doc.runs:
        for result in run.results:
            yield Probe("result", result.key)
            if result.message:
                yield Probe("message", shorten(result.message, PROBED_CHARS))


def notes(doc: SarifDoc) -> tuple[str, ...]:
    return () if doc.runs is not None else ("not a SARIF log that parses; read as JSON",)


def sniff(head: str, text: str) -> bool:
    return is_sarif(head) and read(text).runs is not None


def facts(doc: SarifDoc) -> Facts:
    """The digest's error lines: each rule's results with their count (errors first)."""
    if doc.runs is None:
        return Facts()
    seen: dict[str, int] = {}
    for run in doc.runs:
        for result in sorted(run.results, key=lambda r: LEVELS.index(r.level)):
            key = f"{result.level} {result.rule}: {shorten(result.message, 160)}"
            seen[key] = seen.get(key, 0) + 1
    return Facts(errors=tuple(seen.items()))


def left_out(doc: SarifDoc, content: str) -> tuple[str, int, int]:
    """The results a cut does not show (by rule and place)."""
    if doc.runs is None:
        return "results", 0, 0
    wanted = [r.key for run in doc.runs for r in run.results]
    return "results", not_shown(wanted, content), len(wanted)


KIND = KindOf(
    "sarif",
    read,
    plan,
    probes,
    notes,
    suffixes=(".sarif",),
    within=(".json",),
    sniff=sniff,
    offload="sarif",
    head_cut=False,
    bare=bare("result"),
    facts=facts,
    left_out=left_out,
    first=(
        "every result as `level rule uri:line:column: message`, those whose message marks a fresh mistake "
        "first (a name that does not resolve, a typo: `undefined name 'x'`, `did you mean`), whatever "
        "their level; then a rule with few results before one the "
        "log names often (a project's standing noise), among rules as rare `error` before `warning` "
        "before `note`, then in the log's order; the tools and the results' counts by level"
    ),
    last=(
        "the short description of each rule that has results; the rules' other metadata, `fixes`, "
        "`codeFlows` and snippets are left out (the full text keeps them)"
    ),
)

__all__ = ["KIND", "SarifDoc", "read"]
