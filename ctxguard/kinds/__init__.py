"""The explicit registry of artifact kinds (see ctxguard.kinds.base.Kind).

diff, log, markdown and text are read into documents of their own; json still plans and probes
from its text (ctxguard.handlers.json) until it moves here.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ctxguard.handlers import json
from ctxguard.kinds import diff, log, markdown, text
from ctxguard.kinds.base import Kind, KindName, Probe
from ctxguard.plan import Plan
from ctxguard.tokens import Encoded, Tokenizer


@dataclass(frozen=True)
class _Source:
    """A kind not yet moved here reads nothing ahead: its document is its text and name."""

    text: str
    name: str


@dataclass(frozen=True)
class _Unmoved:
    name: KindName
    planner: Callable[[Encoded, Tokenizer, str, frozenset[str]], Plan]
    prober: str  # the probes module's function for this kind

    def read(self, text: str, name: str = "") -> _Source:
        return _Source(text, name)

    def plan(self, doc: Any, encoded: Encoded, tokenizer: Tokenizer, task_words: frozenset[str]) -> Plan:
        return self.planner(encoded, tokenizer, doc.name, task_words)

    def probes(self, doc: Any) -> Iterable[Probe]:
        from ctxguard import probes

        found: Iterable[Probe] = getattr(probes, self.prober)(doc.text)
        return found


KINDS: dict[str, Kind] = {
    "diff": diff.KIND,
    "json": _Unmoved("json", json.plan, "json_probes"),
    "log": log.KIND,
    "markdown": markdown.KIND,
    "text": text.KIND,
}

__all__ = ["KINDS", "Kind", "KindName", "Probe"]
