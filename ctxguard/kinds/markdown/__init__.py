"""Markdown plans, PRDs and specifications: structure and rules first."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ctxguard.kinds.markdown.model import MarkdownDoc, read
from ctxguard.kinds.markdown.plan import plan
from ctxguard.kinds.markdown.probes import probes


@dataclass(frozen=True)
class _Markdown:
    name: Literal["markdown"] = "markdown"
    read = staticmethod(read)
    plan = staticmethod(plan)
    probes = staticmethod(probes)


KIND = _Markdown()

__all__ = ["KIND", "MarkdownDoc"]
