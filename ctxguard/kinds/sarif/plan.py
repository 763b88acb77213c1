"""A SARIF log as its reader wants it: results first, each as `level rule place: message`; those
whose message marks a fresh mistake first (ctxguard.kinds.mistakes: a typo, a name that does not
resolve, whatever level the tool gave it), then a rare
rule's results before a rule the log names often (a project's standing noise: a result the
change adds is most often of a rule with few results), and among rules as rare `error` before
`warning` before `note` (a level weighs a quarter of the way from a rule of one result to the
log's commonest), then the log's order, written in that order; the tools; the rules that have
results, each with its short description. Tier 2 keeps the totals and every error result."""

from __future__ import annotations

import math
from collections import Counter
from typing import Final

from ctxguard.kinds import rendered
from ctxguard.kinds.json.model import read as json_read
from ctxguard.kinds.json.plan import plan as json_plan
from ctxguard.kinds.mistakes import fresh
from ctxguard.kinds.rendered import Row, shorten
from ctxguard.kinds.sarif.model import LEVELS, Run, SarifDoc
from ctxguard.plan import Plan
from ctxguard.tokens.base import Encoded, Tokenizer
from ctxguard.words import clipped, mentions, plural

TOTALS: Final = 1.5  # the tools and the counts by level: after the rarest rules' results
RESULT: Final = 1.0  # a result: 1 …
COMMON_RULE: Final = 1.0  # … plus up to this much for a rule with many results (the log's most: 1) …
LEVEL_STEP: Final = 0.25  # … plus this much a level below error (warning 0.25, note 0.5, none 0.75)
ASKED: Final = 0.9  # a result that names the task's words (plus its level's step)
FRESH: Final = 0.95  # a result whose message marks a fresh mistake (ctxguard.kinds.mistakes), whatever its level
RULES: Final = 6.0  # a rule's short description
MESSAGE_CHARS: Final = 600


def totals(runs: list[Run]) -> str:
    count = Counter(result.level for run in runs for result in run.results)
    said = ", ".join(f"{count[level]} {level}" for level in LEVELS if count[level])
    tools = ", ".join(dict.fromkeys(run.tool for run in runs)) or "no tool"
    n = sum(len(run.results) for run in runs)
    return f"SARIF log: {tools}: {plural(n, 'result')}{f' ({said})' if said else ''}\n"


def line(level: str, rule: str, place: str | None, message: str) -> str:
    return f"{level} {rule}{f' {place}' if place else ''}: {shorten(message, MESSAGE_CHARS)}\n"


def rows(doc: SarifDoc, task_words: frozenset[str] = frozenset()) -> list[Row]:
    runs = doc.runs or []
    out: list[Row] = []
    rules = Counter((run.tool, result.rule) for run in runs for result in run.results)
    most = math.log(max(rules.values())) if rules and max(rules.values()) > 1 else 1.0
    found = []
    for run in runs:
        for result in run.results:
            text = line(result.level, result.rule, result.place, result.message)
            step = LEVEL_STEP * LEVELS.index(result.level)
            level = RESULT + step + COMMON_RULE * math.log(rules[(run.tool, result.rule)]) / most
            if fresh(result.message):  # (a typo, a name that does not resolve: it cannot run)
                level = FRESH
            if task_words and mentions(text, task_words):
                level = min(level, ASKED + step)
            left = clipped(result.message, MESSAGE_CHARS)
            found.append(Row(text, level, item=True, tier2=result.level == "error", clipped=left))
    # Written in the order a cut takes them, so what it keeps is one run and what it leaves out
    # one gap line (the log's order among equals).
    found.append(Row(totals(runs), TOTALS, tier2=True))  # (after the results a tight cut keeps)
    out += sorted(found, key=lambda row: row.level)
    for run in runs:
        used = [rule for rule in dict.fromkeys(result.rule for result in run.results) if run.rules.get(rule)]
        for rule in used:
            says = run.rules[rule]
            text = f"rule {rule} ({run.tool}): {shorten(says, MESSAGE_CHARS)}\n"
            out.append(Row(text, RULES, clipped=clipped(says, MESSAGE_CHARS)))
    return out


def plan(
    doc: SarifDoc,
    encoded: Encoded,
    tokenizer: Tokenizer,
    task_words: frozenset[str] = frozenset(),
    focus: frozenset[int] = frozenset(),
) -> Plan:
    if doc.runs is None:  # (not a SARIF log that parses: JSON's own reading)
        return json_plan(json_read(encoded.text), encoded, tokenizer, task_words)
    return rendered.plan(rows(doc, task_words), encoded, tokenizer, "result")
