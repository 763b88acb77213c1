"""The explicit registry of artifact kinds (see ctxguard.kinds.base.Kind), outside the kinds as
pre-commit's all_languages.py sits outside its languages.

Each kind reads an artifact's text once into a document of its own (diff, json, log, markdown,
text), and answers the plan and the probes from it.
"""

from __future__ import annotations

from ctxguard.kinds import diff, json, log, markdown, text
from ctxguard.kinds.base import Kind, Probe
from ctxguard.options import KindName

KINDS: dict[str, Kind] = {
    "diff": diff.KIND,
    "json": json.KIND,
    "log": log.KIND,
    "markdown": markdown.KIND,
    "text": text.KIND,
}

__all__ = ["KINDS", "Kind", "KindName", "Probe"]
