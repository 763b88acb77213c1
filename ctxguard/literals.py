"""Where a text holds any of a few literal words, in one scan: by an Aho-Corasick automaton
(`ahocorasick_rs`, a compiled wheel) where it is installed, else by a regular expression of
the words. Both find the same non-overlapping matches, leftmost first, so a caller that asks
which lines hold a word gets the same lines either way. And which of many literals a text
holds anywhere (`present`: every match, overlapping ones too)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from functools import cache
from itertools import accumulate
from typing import Any

SURROGATE = re.compile("[\ud800-\udfff]")  # a lone surrogate: no UTF-8 text holds one


def scannable(text: str) -> str:
    """text as the automaton can be given it: each lone surrogate (a JSON string's `\\ud800`,
    which UTF-8 cannot hold) as U+FFFD, one character for one, so every place stays where it
    was. (No word the scans look for holds either.)"""
    if text.isascii() or SURROGATE.search(text) is None:
        return text
    return SURROGATE.sub("\ufffd", text)


def matcher(words: tuple[str, ...]) -> Callable[[str], list[tuple[int, int]]] | None:
    """Each match of the words in a text, in order, as (which word, where it starts): at each
    place the longest, none overlapping another. None where the
    `ahocorasick_rs` wheel is not installed, or for a word holding a lone surrogate. The
    automaton reads the text's UTF-8 (given a str, it maps every match back to its character
    itself, which costs as much as the scan): a word's UTF-8 is found exactly where the word is,
    and a lone surrogate (a JSON string's `\\ud800`), written as `surrogatepass` writes it,
    holds no byte of a word's. Places are counted back in characters from match to match.
    (Built anew: callers remember theirs.)"""
    found = _utf8_automaton(words)
    if found is None:
        return None

    def scan(text: str) -> list[tuple[int, int]]:
        if text.isascii():
            return [(k, start) for k, start, _ in found.find_matches_as_indexes(text.encode("ascii"))]
        data = text.encode("utf-8", "surrogatepass")
        out: list[tuple[int, int]] = []
        char = byte = 0
        for k, start, _ in found.find_matches_as_indexes(data):
            char += len(data[byte:start].decode("utf-8", "surrogatepass"))
            byte = start
            out.append((k, char))
        return out

    return scan


def _utf8_automaton(words: tuple[str, ...]) -> Any | None:
    """An automaton finding the words' UTF-8 in bytes (see matcher), or None."""
    try:
        import ahocorasick_rs

        encoded = [word.encode("utf-8") for word in words]
    except (ImportError, UnicodeEncodeError):  # (a platform without its wheel; a word UTF-8 cannot hold)
        return None
    return ahocorasick_rs.BytesAhoCorasick(encoded, matchkind=ahocorasick_rs.MatchKind.LeftmostLongest)


# A search for each of many words is quadratic when most are missed or found out of order
# (each such search reads much of the text); one scan for all costs about as much as this many
# readings of the whole text. So: one by one, each search starting where the last word was
# found, and once the searches read this many texts' worth with at least TOGETHER words to go,
# the rest in one scan.
SCANS_FIRST = 64
TOGETHER = 256


def one_scan_pays(spent: int, size: int, left: int) -> bool:
    """Whether the words left (`left` of them) are better found in one scan of a text of `size`
    characters, the searches one by one having read `spent` characters (see SCANS_FIRST)."""
    return spent > SCANS_FIRST * (size + 1) and left >= TOGETHER


def held(words: Sequence[str], text: str) -> list[bool]:
    """Whether the text holds each word (see SCANS_FIRST): what `word in text` says of each."""
    out: list[bool] = []
    spent = cursor = 0  # characters read so far; where the last word was found
    alone = False  # (without the automaton's wheel: one by one to the end)
    for k, word in enumerate(words):
        if not alone and one_scan_pays(spent, len(text), len(words) - k):
            rest = words[k:]
            found = present([w for w in dict.fromkeys(rest) if w], text)
            if found is not None:
                return out + [not w or w in found for w in rest]
            alone = True
        at, read = find_from(text, word, cursor)
        spent += read
        out.append(at >= 0)
        cursor = at if at >= 0 else cursor
    return out


def find_from(
    text: str, word: str, cursor: int, find: Callable[[str, str, int, int], int] = str.find
) -> tuple[int, int]:
    """Where word is in text, searched from cursor on, then before it; and about how many
    characters the search read. (`find`: str.find's arguments, such as a whole-word search.)"""
    at = find(text, word, cursor, len(text))
    if at >= 0:
        return at, at - cursor + len(word)
    read = len(text) - cursor
    if cursor:
        at = find(text, word, 0, cursor + len(word) - 1)
        read += cursor if at < 0 else at + len(word)
    return at, read


def present(words: Sequence[str], text: str) -> set[str] | None:
    """Which of the words (none empty) the text holds, each anywhere (inside another's match
    too), found in one scan; None where the `ahocorasick_rs` wheel is not installed. (Every
    place a word is found is listed on the way: for words a text holds rarely, not letters.)"""
    found = present_at(words, text)
    return None if found is None else {words[k] for k, _ in found}


def holders(words: Sequence[str], lines: Sequence[str]) -> dict[str, set[int]]:
    """For each word, the lines (their indices) that hold it anywhere, inside another word's
    match too: one scan of the lines for all of them (a word with a NUL, or without the
    automaton's wheel: a search of each line)."""
    out: dict[str, set[int]] = {word: set() for word in words}
    joined = "\0".join(lines)
    scanned = [word for word in out if word and "\0" not in word]
    found = present_at(scanned, joined)
    if found is None:
        scanned = []
    else:
        starts = list(accumulate((len(line) + 1 for line in lines), initial=0))
        for k, start in found:
            out[scanned[k]].add(bisect.bisect_right(starts, start) - 1)
    for word in set(out) - set(scanned):
        out[word] = {i for i, line in enumerate(lines) if word in line}
    return out


def present_at(words: Sequence[str], text: str) -> list[tuple[int, int]] | None:
    """Every match of the words (none empty) in the text, overlapping ones too, as (which word,
    where it starts); None where the `ahocorasick_rs` wheel is not installed."""
    if not words:
        return []
    joined = "".join(words)
    if "\ufffd" in joined or SURROGATE.search(joined) is not None:
        return None  # (a word the automaton cannot be given, or one scannable() could fake: one by one)
    try:
        import ahocorasick_rs
    except ImportError:  # (a platform without its wheel)
        return None
    found = ahocorasick_rs.AhoCorasick(list(words), matchkind=ahocorasick_rs.MatchKind.Standard)
    return [(k, start) for k, start, _ in found.find_matches_as_indexes(scannable(text), overlapping=True)]


@cache
def finder(words: tuple[str, ...]) -> Callable[[str], list[int]]:
    """Where each match of the words in a text starts, in order (built once per set of words)."""
    found = matcher(words)
    if found is None:
        return regex_finder(words)
    return lambda text: [start for _, start in found(text)]


@cache
def regex_finder(words: tuple[str, ...]) -> Callable[[str], list[int]]:
    """finder with one regular expression (the longest word first at a place, as the automaton)."""
    pattern = re.compile("|".join(re.escape(word) for word in sorted(words, key=len, reverse=True)))
    return lambda text: [match.start() for match in pattern.finditer(text)]


def lines_holding(lines: Sequence[str], words: tuple[str, ...]) -> list[int]:
    """The indices, in order, of the lines that hold one of the words (none of which holds a
    line break or a NUL), found in one scan of the lines joined (as UTF-8 bytes where the
    automaton reads them: see matcher; a line is told by the NULs before a match, in bytes too).
    Lines that hold a NUL themselves are searched one by one."""
    text = "\0".join(lines)
    if text.count("\0") >= len(lines):  # (a NUL inside a line: the NULs would not tell the lines apart)
        search = finder(words)
        return [i for i, line in enumerate(lines) if search(line)]
    found = _utf8_automaton(words) if text else None
    if found is not None:
        joined: str | bytes = text.encode("utf-8", "surrogatepass")
        del text
        starts = [start for _, start, _ in found.find_matches_as_indexes(joined)]
        nul: str | bytes = b"\0"
    else:
        joined, starts, nul = text, finder(words)(text), "\0"
    out: list[int] = []
    i = at = 0  # the line of the last match, and where it starts
    for start in starts:
        i += joined.count(nul, at, start)  # type: ignore[arg-type]
        at = start
        if not out or out[-1] != i:
            out.append(i)
    return out
