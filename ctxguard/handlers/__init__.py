"""The explicit registry of Tier 2 handlers, one per artifact type."""
from __future__ import annotations

from ctxguard.handlers.base import Context, Handler
from ctxguard.handlers.diff import DiffHandler
from ctxguard.handlers.json import JsonHandler
from ctxguard.handlers.log import LogHandler
from ctxguard.handlers.markdown import MarkdownHandler
from ctxguard.handlers.text import TextHandler

HANDLERS: dict[str, Handler] = {
    "diff": DiffHandler(),
    "json": JsonHandler(),
    "log": LogHandler(),
    "markdown": MarkdownHandler(),
    "text": TextHandler(),
}

__all__ = ["HANDLERS", "Context", "Handler"]
