"""Markdown plans, PRDs and specifications: structure and rules first."""

from __future__ import annotations

import re

from ctxguard.kinds.base import Facts, KindOf
from ctxguard.kinds.markdown.model import MarkdownDoc, read
from ctxguard.kinds.markdown.plan import left_out, plan
from ctxguard.kinds.markdown.probes import probes

_HEADING = re.compile(r"^#{1,6} \S", re.M)
_OPEN_TASK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[ \]\s*(.*)$")


def sniff(head: str, text: str) -> bool:
    """Two headings or more in the first 8 KB."""
    return bool(head.splitlines()) and len(_HEADING.findall(head)) >= 2


def facts(doc: MarkdownDoc) -> Facts:
    """The open task items (`- [ ] …`)."""
    tasks = [match.group(1).strip() for line in doc.text.splitlines() if (match := _OPEN_TASK.match(line))]
    return Facts(tasks=tuple(tasks))


KIND = KindOf(
    "markdown",
    read,
    plan,
    probes,
    suffixes=(".md", ".markdown", ".mdx"),
    sniff=sniff,
    fence="markdown",
    offload="md",
    facts=facts,
    left_out=left_out,
    first=(
        "the title, open task items; sentences with MUST / MUST NOT / SHALL / REQUIRED / SHOULD (each "
        "next the one that costs least to add: its tokens, its share of the headings and lead-in it "
        "opens (shared by two rules at most), a gap line, a SHOULD a quarter dearer; so a cut keeps as "
        "many rules as fit, from the whole document), each whole over its lines (a list item's lazy "
        "lines included, an item lead-in such as `- Constraints:` with the items under it), each with "
        "its heading and the headings that "
        "one is under, a list item with the prose that leads into its list; then the other headings, "
        "tables' header rows, task items done; code blocks' first lines"
    ),
    last=(
        "`For example` sentences; rules and code blocks that repeat an earlier one word for word; blank "
        "lines that would sit between two gaps"
    ),
)

__all__ = ["KIND", "MarkdownDoc"]
