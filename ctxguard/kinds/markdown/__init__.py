"""Markdown plans, PRDs and specifications: structure and rules first."""

from __future__ import annotations

from ctxguard.kinds.base import KindOf
from ctxguard.kinds.markdown.model import MarkdownDoc, read
from ctxguard.kinds.markdown.plan import plan
from ctxguard.kinds.markdown.probes import probes

KIND = KindOf("markdown", read, plan, probes)

__all__ = ["KIND", "MarkdownDoc"]
