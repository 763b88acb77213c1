"""Vendors' token formats (ctxguard.secrets.vendors), each found from a literal anchor in one
scan of the text.

One scan finds every format's anchor literals, and the hint words that send a line to the
assignment readers (`find_anchors`: an Aho-Corasick automaton, or one regular expression with
the same matches); only there is a format's full pattern tried (`BY_ANCHOR`). A line found by a
vendor's anchor alone (a URL's `://`) goes to the readers only when it holds a secret word's
stem (ctxguard.secrets.names.STEMS): they find values under secret names only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import cache

from ctxguard.literals import matcher
from ctxguard.secrets.vendors import FORMATS, Format

__all__ = [
    "ANCHOR_WORDS",
    "BY_ANCHOR",
    "FORMATS",
    "HINTS",
    "PEM_BEGIN",
    "PEM_END",
    "PROGRAMS",
    "SHORT_SPELLINGS",
    "Format",
    "find_anchors",
    "word_at",
]

PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9_-]{0,60}PRIVATE KEY(?: BLOCK)?-----")
PEM_END = re.compile(r"-----END[ A-Z0-9_-]{0,60}PRIVATE KEY(?: BLOCK)?-----")

# Words whose presence sends a line to the assignment readers (matched case-insensitively).
HINTS = (
    "pass",
    "pwd",
    "pw",
    "secret",
    "token",
    "key",
    "auth",
    "cred",
    "sig",
    "salt",
    "session",
    "cookie",
    "private",
    "dsn",
    "jwt",
    "pat",
)
# Programs that take a password on their command line (`docker login -p`, `mysql -pVALUE`): their
# lines go to the readers too, found with a plain search apiece (in the one scan, their first
# letters would be tried at every `l`, `m` and `r` of the text).
PROGRAMS = ("login", "mysql", "mariadb", "sshpass", "redis-cli")


def _alternation(words: list[str]) -> str:
    """Literals as one alternation grouped by first character (so each position is tried once)."""
    groups: dict[str, list[str]] = {}
    for word in sorted(set(words), key=lambda w: (-len(w), w)):
        groups.setdefault(word[0], []).append(re.escape(word[1:]))
    return "|".join(f"{re.escape(first)}(?:{'|'.join(rest)})" for first, rest in groups.items())


_SENSITIVE = [a for f in FORMATS if not f.ignore_case for a in f.anchors]
_INSENSITIVE = [a.lower() for f in FORMATS if f.ignore_case for a in f.anchors] + list(HINTS)
# Case-insensitive words are listed in their three usual spellings (`token`, `TOKEN`, `Token`, as
# in `dbToken`) instead of with (?i): literals let the scan skip every position whose character
# starts none of them, which makes it three times faster.
_SPELLINGS = [v for w in _INSENSITIVE for v in dict.fromkeys((w, w.upper(), w.title()))]
ANCHOR_WORDS: tuple[str, ...] = tuple(sorted(set(_SENSITIVE + _SPELLINGS)))


def find_anchors(text: str) -> Iterator[tuple[int, str]]:
    """Every anchor in the text, in order: where it starts and which it is (at each place the
    longest, none overlapping another). Through an Aho-Corasick automaton (`ahocorasick_rs`, a
    compiled wheel: about a fifth of the regular expression's time on real artifacts, where
    that scan cost 0.7-1.2x of an encode), else through regex_anchors: the same matches."""
    return _scanner()(text)


def regex_anchors(text: str) -> Iterator[tuple[int, str]]:
    """find_anchors with one regular expression (when the automaton's wheel is not installed)."""
    for match in _pattern().finditer(text):
        yield match.start(), match.group()


@cache
def _pattern() -> re.Pattern[str]:
    # One alternation (named groups around its halves would cost the skipping): what an anchor
    # is comes from the tables below.
    return re.compile(_alternation(list(ANCHOR_WORDS)))


@cache
def _scanner() -> Callable[[str], Iterator[tuple[int, str]]]:
    """The automaton's scan, built once (well under a millisecond), or regex_anchors."""
    found = matcher(ANCHOR_WORDS)
    if found is None:  # (a platform without the automaton's wheel)
        return regex_anchors

    def scan(text: str) -> Iterator[tuple[int, str]]:
        for word, start in found(text):
            yield start, ANCHOR_WORDS[word]

    return scan


BY_ANCHOR: dict[str, tuple[Format, ...]] = {}
for _format in FORMATS:
    for _anchor in _format.anchors:
        _spellings = [_anchor] if not _format.ignore_case else [v for v in _SPELLINGS if v.lower() == _anchor.lower()]
        for _key in _spellings:
            BY_ANCHOR[_key] = (*BY_ANCHOR.get(_key, ()), _format)


def word_at(text: str, pos: int, anchor: str) -> bool:
    """Whether a hint found at pos is a word of a name there, for the short hints that are parts
    of common words (`pat` in `path`, `PATH`, `compat`): it must not run on into more letters of
    its own case (`Pat` in `githubPat` may follow a lower-case letter)."""
    if anchor not in SHORT_SPELLINGS:
        return True
    after = text[pos + len(anchor) : pos + len(anchor) + 1]
    before = text[pos - 1 : pos] if pos else ""
    if anchor.isupper():
        return not (after.isalpha() and after.isupper()) and not (before.isalpha() and before.isupper())
    return not (after.isalpha() and after.islower()) and not (anchor.islower() and before.isalpha())


SHORT_SPELLINGS = frozenset({"pat", "PAT", "Pat"})  # (as _SPELLINGS writes `pat`)
