"""The explicit registry of plans, one per artifact type (ctxguard.plan, ctxguard.packer)."""
from __future__ import annotations

from collections.abc import Callable

from ctxguard.handlers import diff, json, log, markdown, text
from ctxguard.plan import Plan
from ctxguard.tokens import Encoded, Tokenizer

# (encoded text, tokenizer, artifact name, task words) -> the artifact's plan
Planner = Callable[[Encoded, Tokenizer, str, frozenset[str]], Plan]
PLANS: dict[str, Planner] = {"diff": diff.plan, "json": json.plan, "log": log.plan, "markdown": markdown.plan,
                             "text": text.plan}

__all__ = ["PLANS", "Planner"]
