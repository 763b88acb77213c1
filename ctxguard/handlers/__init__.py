"""The explicit registry of Tier 2 handlers, one per artifact type, and of the types that are
planned and packed instead (ctxguard.plan, ctxguard.packer)."""
from __future__ import annotations

from collections.abc import Callable

from ctxguard.handlers import diff, json, log, markdown, text
from ctxguard.handlers.base import Context, Handler
from ctxguard.handlers.json import JsonHandler
from ctxguard.plan import Plan
from ctxguard.tokens import Encoded, Tokenizer

HANDLERS: dict[str, Handler] = {
    "json": JsonHandler(),
}

# (encoded text, tokenizer, artifact name, task words) -> the artifact's plan
Planner = Callable[[Encoded, Tokenizer, str, frozenset[str]], Plan]
PLANS: dict[str, Planner] = {"diff": diff.plan, "json": json.plan, "log": log.plan, "markdown": markdown.plan,
                             "text": text.plan}

__all__ = ["HANDLERS", "PLANS", "Context", "Handler"]
