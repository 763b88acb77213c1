"""Any other text: definition lines of code, then head and tail, with a marked gap."""
from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from ctxguard.handlers.base import Context, collapse, mentions, plural

# Definitions and signatures in the languages reviews meet most; shared with the diff handler.
DEFINITION = re.compile(
    r"""^\s*(?:
      (?:async\s+)?def\s+\w+
    | class\s+\w+
    | (?:export\s+)?(?:default\s+)?(?:async\s+)?function\b\*?\s*\w*\s*\(
    | (?:export\s+)?(?:const|let|var)\s+\w+\s*(?::[^=]+)?=\s*(?:async\s+)?(?:\([^)]*\)|\w+)\s*(?::\s*[^=]+)?=>
    | (?:export\s+)?(?:declare\s+)?(?:abstract\s+)?(?:interface|enum|type)\s+\w+
    | func\s+
    | type\s+\w+\s+(?:struct|interface)\b
    | (?:pub(?:\([\w:]+\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"\w+"\s+)?(?:fn|struct|enum|trait|impl|mod|union|macro_rules!)\b
    | (?:(?:public|private|protected|internal|static|final|abstract|override|virtual|sealed|synchronized|native|partial|inline|constexpr|extern)\s+)+[\w<>\[\],.?*&:\s]*\(
    | (?:public\s+|private\s+|protected\s+)?(?:record|struct|union|typedef|namespace|template)\b
    | \#define\s+\w+
    | (?:async\s+)?(?:static\s+)?(?:get\s+|set\s+)?(?!(?:if|for|while|switch|catch|return|with|else|do|new|await|typeof|sizeof)\b)\w+\s*\([^;{}]*\)\s*(?::\s*[\w<>\[\]|., ]+)?\s*\{\s*$
    | (?!(?:return|else|if|while|for|case|goto|delete|new|throw|using)\b)[A-Za-z_][\w\s\*&:<>,]*[\s\*&]+~?[A-Za-z_][\w:~]*\s*\([^;]*$
    )""",
    re.X,
)
_COMMENT_OR_BLANK = re.compile(r"^\s*(?:$|#(?!include|define|if|endif|pragma|!)|//|/\*|\*|<!--|--\s)")


@functools.lru_cache(maxsize=1 << 16)
def is_definition(line: str) -> bool:
    """A line that declares a function, method, class, struct, interface …

    Remembered: the handler, the probes and the cut of one diff or source file each ask about
    the same lines, and the pattern costs more than the look-up.
    """
    return len(line) < 400 and _may_define(line) and DEFINITION.match(line) is not None


# Every branch of DEFINITION needs one of these words, a "(" or a "=>": lines with none of them
# (most lines without a call) are answered without trying the pattern's many branches.
_DEFINITION_WORD = re.compile(
    r"def|class|interface|enum|type|func|fn|struct|trait|impl|mod|union|macro_rules|record|namespace|template"
)


def _may_define(line: str) -> bool:
    return "(" in line or "=>" in line or _DEFINITION_WORD.search(line) is not None


class TextHandler:
    """Code keeps its signatures; anything else keeps its head and tail."""

    name = "text"

    def candidates(self, text: str, ctx: Context) -> Iterator[str]:
        lines = text.splitlines(keepends=True)
        if not lines:
            return
        defs = [is_definition(line) or mentions(line, ctx.task_words) for line in lines]
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
