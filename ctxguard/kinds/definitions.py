"""Lines that declare something (functions, methods, classes, structs, interfaces …), per language.

A file's language comes from its name. Where it is known, only that language's forms are tried:
faster, and a Python line such as `assert isinstance(x, int)` or `from a import (` is not taken
for a C declaration. Where it is not known (other languages, text without a name), every form
is tried.
"""

from __future__ import annotations

import functools
import re
from pathlib import PurePosixPath

_C_MODIFIERS = (
    r"(?:public|private|protected|internal|static|final|abstract|override|virtual"
    r"|sealed|synchronized|native|partial|inline|constexpr|extern)"
)
_FORMS = {
    "def": r"(?:async\s+)?def\s+\w+",
    "class": r"(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+\w+",
    "function": r"(?:export\s+)?(?:default\s+)?(?:async\s+)?function\b\*?\s*\w*\s*\(",
    "arrow": (
        r"(?:export\s+)?(?:const|let|var)\s+\w+\s*(?::[^=]+)?=\s*(?:async\s+)?(?:\([^)]*\)|\w+)\s*(?::\s*[^=]+)?=>"
    ),
    "type": r"(?:export\s+)?(?:declare\s+)?(?:abstract\s+)?(?:interface|enum|type)\s+\w+",
    "func": r"func\s+",
    "go_type": r"type\s+\w+\s+(?:struct|interface)\b",
    "rust": (
        r"(?:pub(?:\([\w:]+\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+\"\w+\"\s+)?"
        r"(?:fn|struct|enum|trait|impl|mod|union|macro_rules!)\b"
    ),
    "modified": r"(?:" + _C_MODIFIERS + r"\s+)+[\w<>\[\],.?*&:\s]*\(",
    "c_class": r"(?:" + _C_MODIFIERS + r"\s+)*(?:class|interface|enum|record)\s+\w+",
    "c_type": r"(?:public\s+|private\s+|protected\s+)?(?:record|struct|union|typedef|namespace|template)\b",
    "define": r"\#define\s+\w+",
    "method": (
        r"(?:async\s+)?(?:static\s+)?(?:get\s+|set\s+)?"
        r"(?!(?:if|for|while|switch|catch|return|with|else|do|new|await|typeof|sizeof)\b)"
        r"\w+\s*\([^;{}]*\)\s*(?::\s*[\w<>\[\]|., ]+)?\s*\{\s*$"
    ),
    "c_decl": (
        r"(?!(?:return|else|if|while|for|case|goto|delete|new|throw|using)\b)"
        r"[A-Za-z_][\w\s\*&:<>,]*[\s\*&]+~?[A-Za-z_][\w:~]*\s*\([^;]*$"
    ),
}
_LANGUAGES = {
    "python": ("def", "class"),
    "js": ("class", "function", "arrow", "type", "modified", "method"),
    "go": ("func", "go_type"),
    "rust": ("rust",),
    "c": ("modified", "c_class", "c_type", "define", "method", "c_decl"),
}
_SUFFIXES = {
    **dict.fromkeys((".py", ".pyi"), "python"),
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"), "js"),
    ".go": "go",
    ".rs": "rust",
    **dict.fromkeys((".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".java", ".cs"), "c"),
}


def _pattern(forms: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"^\s*(?:" + "|".join(_FORMS[form] for form in forms) + ")")


DEFINITION = _pattern(tuple(_FORMS))  # every form: for text whose language is not known
_PATTERNS = {language: _pattern(forms) for language, forms in _LANGUAGES.items()}

# Every form needs one of these words, a "(" or a "=>"; and in the languages of _NEEDS, one of
# their few words. A line holding none of its language's hint (most lines) is answered without
# trying the pattern's many branches; a diff's changed lines are searched for hints all at once
# (ctxguard.literals). No hint holds a line break, so a hint found in lines joined is inside one line.
_DEFINITION_WORD = (
    r"def|class|interface|enum|type|func|fn|struct|trait|impl|mod|union|macro_rules|record|namespace|template"
)
_NEEDS = {
    "python": ("def", "class"),
    "go": ("func", "type"),
    "rust": ("fn", "struct", "enum", "trait", "impl", "mod", "union", "macro_rules"),
}
_ANY_WORDS = ("(", "=>", *_DEFINITION_WORD.split("|"))
_ANY_HINT = re.compile("|".join(map(re.escape, _ANY_WORDS)))
_HINTS = {language: re.compile("|".join(words)) for language, words in _NEEDS.items()}


def hint(language: str | None) -> re.Pattern[str]:
    """What every definition line of the language holds (see is_definition)."""
    return _HINTS.get(language or "", _ANY_HINT)


def hint_words(language: str | None) -> tuple[str, ...]:
    """hint's words, as literals (what ctxguard.literals scans many lines for at once)."""
    return _NEEDS.get(language or "", _ANY_WORDS)


@functools.lru_cache(maxsize=1 << 12)
def language(name: str) -> str | None:
    """The language family a file name says (python, js, go, rust, c), or None. (Remembered: a
    diff asks it of each file's path several times.)"""
    return _SUFFIXES.get(PurePosixPath(name).suffix.lower())


@functools.lru_cache(maxsize=1 << 16)
def is_definition(line: str, language: str | None = None) -> bool:
    """A line that declares a function, method, class, struct, interface … in the language
    (see `language`; None tries every language's forms).

    Remembered: the handler, the probes and the cut of one diff or source file each ask about
    the same lines, and the pattern costs more than the look-up.
    """
    if len(line) >= 400 or hint(language).search(line) is None:
        return False
    return _PATTERNS.get(language or "", DEFINITION).match(line) is not None


_COMMENT_OR_BLANK = re.compile(r"\s*+(?:$|#(?!include|define|if|endif|pragma|!)|//|/\*|\*|<!--|--\s)")


def is_comment_or_blank(line: str, start: int = 0) -> bool:
    """Blank lines and lines that hold only a comment (from start on: a diff's line after its
    sign, without a copy of the rest)."""
    return _COMMENT_OR_BLANK.match(line, start) is not None


_NAME_AFTER_KEYWORD = re.compile(
    r"\b(?:def|class|struct|interface|enum|trait|type|fn|func|function|mod|module|impl|union|record"
    r"|namespace|macro_rules!|#define)\s+(?:\([^)]*\)\s*)?\*?([A-Za-z_$][\w$]*)"
)

_NAME_BEFORE_PAREN = re.compile(r"([A-Za-z_$][\w$]*)\s*(?:<[^()]*>)?\s*\(")

_NAME_ASSIGNED = re.compile(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)")

_NOT_NAMES = frozenset("if for while switch catch return with else do new await typeof sizeof".split())


def definition_name(line: str) -> str | None:
    """The name a definition line declares: `def parse_amount(` -> parse_amount."""
    match = _NAME_AFTER_KEYWORD.search(line)
    if match:
        return match.group(1)
    for match in _NAME_BEFORE_PAREN.finditer(line):
        if match.group(1) not in _NOT_NAMES:
            return match.group(1)
    match = _NAME_ASSIGNED.search(line)
    return match.group(1) if match else None
