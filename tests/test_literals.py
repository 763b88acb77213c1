"""ctxguard.literals: the lines holding a word, by the automaton and by the regular expression
it falls back to, are the same lines, and the lines a reader would point at."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxguard import literals
from ctxguard.kinds.definitions import hint_words
from ctxguard.kinds.diff.lines import MAY_ERR_WORDS

SAMPLES = Path(__file__).parent / "samples"
WORDS = [hint_words(None), hint_words("python"), hint_words("rust"), MAY_ERR_WORDS, ("ab", "abc", "b", "ç")]


def _lines() -> list[list[str]]:
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(SAMPLES.rglob("*")) if p.is_file()]
    texts.append("naïve café — fn(ключ) => abc\nxabcx\n\nab\nç\nraise ValueError\n" * 3)
    texts.append("a\ud800b x\udfffabc\n\ud800\nç\ud7ffb\nplain ab\n")  # (lone surrogates: read as UTF-8 bytes)
    texts.append("a\0b\nx\0\0raise ValueError\n\0\nab\0ç\ndef \0f\n")  # (NULs inside lines: not the joins')
    return [text.splitlines() for text in texts]


def _naive(lines: list[str], words: tuple[str, ...]) -> list[int]:
    return [i for i, line in enumerate(lines) if any(word in line for word in words)]


@pytest.mark.parametrize("words", WORDS)
def test_the_lines_holding_a_word_are_those_a_reader_would_point_at(words: tuple[str, ...]) -> None:
    found = 0
    for lines in _lines():
        assert literals.lines_holding(lines, words) == _naive(lines, words)
        found += len(literals.lines_holding(lines, words))
    assert found > 20  # (the samples hold such lines)


@pytest.mark.parametrize("words", WORDS)
def test_the_automaton_and_the_regular_expression_find_the_same_matches(words: tuple[str, ...]) -> None:
    assert literals.finder(words) is not literals.regex_finder(words)  # (ahocorasick-rs is installed)
    for lines in _lines():
        text = "\0".join(lines)
        assert literals.finder(words)(text) == literals.regex_finder(words)(text)


def test_words_with_a_lone_surrogate_are_not_read_as_utf8() -> None:
    """(UTF-8 cannot hold one: such words are searched for by the regular expression.)"""
    assert literals.matcher(("ab", "\ud800")) is None
    assert literals.matcher(("ab", "é")) is not None


def test_without_the_automaton_the_regular_expression_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_wheel(name: str, *args: object, **kwargs: object) -> object:
        if name == "ahocorasick_rs":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    words = ("never", "seen", "before")
    monkeypatch.setattr(builtins, "__import__", no_wheel)
    literals.finder.cache_clear()
    try:
        assert literals.finder(words) is literals.regex_finder(words)
        assert literals.matcher(words) is None
        assert literals.lines_holding(["a", "seen it", "before", "x"], words) == [1, 2]
        assert literals.lines_holding(["é", "seen it", "before", "x"], words) == [1, 2]
        assert literals.lines_holding(["a\0b", "seen\0it", "\0", "before"], words) == [1, 3]
    finally:
        monkeypatch.undo()
        literals.finder.cache_clear()


def test_a_lone_surrogate_is_scanned_in_place_as_the_regular_expression_scans_it() -> None:
    """The automaton reads UTF-8, which a lone surrogate cannot be: written as `surrogatepass`
    writes it (three bytes no word's UTF-8 holds), every match is where the regular expression
    finds it, in characters."""
    words = ("token", "key", "ab")
    text = "a\ud800token x\udfffkey ab\ud800ab"
    assert literals.finder(words)(text) == literals.regex_finder(words)(text) == [2, 10, 14, 17]
    assert literals.present(["key", "b\ud800a"], text) is None  # (a word with one: searched one by one)
    assert literals.held(["key", "b\ud800a", "zz"], text) == [True, True, False]
