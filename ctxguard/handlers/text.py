"""Any other text: a plan of lines. Code keeps its definitions first; anything else its first
and last lines, then its head and tail."""
from __future__ import annotations

import re

from ctxguard.definitions import is_definition, language
from ctxguard.handlers.base import mentions
from ctxguard.plan import Plan, ended, ends, units
from ctxguard.tokens import Encoded, Tokenizer

_COMMENT_OR_BLANK = re.compile(r"^\s*(?:$|#(?!include|define|if|endif|pragma|!)|//|/\*|\*|<!--|--\s)")
EDGE = 10  # lines at each end taken before the middle


def plan(encoded: Encoded, tokenizer: Tokenizer, name: str = "", task_words: frozenset[str] = frozenset()) -> Plan:
    """Lines. Kept by tier 2 whatever the room: the first and last line and, in code (the file's
    language, or any when unknown), every definition. Then lines naming the task, the first and
    last EDGE lines, then the rest in order, from the head."""
    lines = ended(encoded.text.splitlines(keepends=True))
    n = len(lines)
    lang = language(name)
    rank = [(3.0, i) for i in range(n)]
    must = [False] * n
    for i, line in enumerate(lines):
        if is_definition(line, lang):
            rank[i], must[i] = (1.0, i), True
        elif task_words and mentions(line, task_words):
            rank[i] = (1.5, i)
        elif i < EDGE or i >= n - EDGE:
            rank[i] = (2.0, min(i, n - 1 - i))
    for order, i in enumerate(ends(lines)):
        rank[i], must[i] = (0.0, order), True
    return Plan(units(lines, lines, rank, must, lambda i: (), encoded, tokenizer), encoded.count)


def is_comment_or_blank(line: str) -> bool:
    """Blank lines and lines that hold only a comment."""
    return _COMMENT_OR_BLANK.match(line) is not None
