"""Any other text: definition lines of code, then head and tail, with a marked gap."""
from __future__ import annotations

import re
from collections.abc import Iterator

from ctxguard.definitions import is_definition, language
from ctxguard.handlers.base import Context, collapse, mentions, plural

_COMMENT_OR_BLANK = re.compile(r"^\s*(?:$|#(?!include|define|if|endif|pragma|!)|//|/\*|\*|<!--|--\s)")


class TextHandler:
    """Code keeps its signatures; anything else keeps its head and tail."""

    name = "text"

    def candidates(self, text: str, ctx: Context) -> Iterator[str]:
        lines = text.splitlines(keepends=True)
        if not lines:
            return
        lang = language(ctx.name)
        defs = [is_definition(line, lang) or mentions(line, ctx.task_words) for line in lines]
        code = sum(defs) >= 3
        chars_per_token = len(text) / max(1, _estimate(text))
        for share in (0.95, 0.85, 0.7, 0.5):
            target = ctx.budget * chars_per_token * share
            yield "".join(_head_tail(lines, defs if code else [False] * len(lines), target))

    def validate(self, raw: str, compressed: str) -> str | None:
        return None


def _estimate(text: str) -> int:
    return max(1, len(text) // 4)


def _head_tail(lines: list[str], pinned: list[bool], target: float) -> list[str]:
    """Keep pinned lines, then fill two thirds of what is left from the head, one from the tail."""
    keep = list(pinned)
    room = target - sum(len(line) for line, k in zip(lines, keep) if k)
    # Beginnings explain and ends conclude; the head gets the larger share.
    for order, share in ((range(len(lines)), 2 / 3), (range(len(lines) - 1, -1, -1), 1.0)):
        allowance = room * share
        for index in order:
            if keep[index]:
                continue
            if len(lines[index]) > allowance:
                break
            keep[index] = True
            allowance -= len(lines[index])
            room -= len(lines[index])
    return collapse(lines, keep, lambda run: f"... ({plural(len(run), 'line')} omitted)\n")


def is_comment_or_blank(line: str) -> bool:
    """Blank lines and lines that hold only a comment."""
    return _COMMENT_OR_BLANK.match(line) is not None
