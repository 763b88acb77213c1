"""The explicit registry of artifact kinds (see ctxguard.kinds.base.Kind), outside the kinds as
pre-commit's all_languages.py sits outside its languages.

Each kind reads an artifact's text once into a document of its own (diff, json, log, markdown,
text, junit, sarif), and answers the plan and the probes from it.
"""

from __future__ import annotations

from ctxguard.kinds import diff, json, junit, log, markdown, sarif, text
from ctxguard.kinds.base import Kind, KindOf, Probe
from ctxguard.options import KindName

KINDS: dict[KindName, KindOf] = {
    "diff": diff.KIND,
    "json": json.KIND,
    "log": log.KIND,
    "markdown": markdown.KIND,
    "text": text.KIND,
    "junit": junit.KIND,
    "sarif": sarif.KIND,
}
# The order in which a text's content is sniffed when its name does not tell (the first that
# says yes; text when none does): a diff or JSON is told surely (a SARIF log before the JSON it
# is), a log's lines only by share.
SNIFFED: tuple[KindName, ...] = ("diff", "sarif", "json", "junit", "markdown", "log")
FALLBACK: KindName = "text"

__all__ = ["KINDS", "Kind", "KindName", "Probe"]
