from __future__ import annotations

import base64
import os
import random
import subprocess
import sys

import pytest

from ctxguard.tokens import HeuristicTokenizer, get_tokenizer
from tests.helpers import independent_count


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_count_matches_tiktoken(encoding: str) -> None:
    text = "def charge(invoice):\n    return gateway.charge(invoice.total)  # ünïcödé ✓\n" * 20
    assert get_tokenizer(encoding).count(text) == independent_count(text, encoding)


def test_special_token_text_counts_as_text() -> None:
    text = "before <|endoftext|> after <|fim_prefix|>"
    assert get_tokenizer().count(text) == independent_count(text) > 5


def test_encoding_is_loaded_once_per_process() -> None:
    assert get_tokenizer("o200k_base") is get_tokenizer("o200k_base")
    assert get_tokenizer() is get_tokenizer("o200k_base")


def test_unknown_encoding_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown encoding"):
        get_tokenizer("p99k_base")


def test_lone_surrogates_do_not_crash() -> None:
    assert get_tokenizer().count("a\ud800b") == independent_count("a\ufffdb")


def test_long_run_is_split_and_still_counted_close_to_exact() -> None:
    random.seed(7)
    run = base64.b64encode(random.randbytes(300_000)).decode()
    counted = get_tokenizer().count(run)
    exact = independent_count(run)
    assert abs(counted - exact) <= len(run) // 8192 + 1


def test_head_and_tokens_within_agree() -> None:
    text = "alpha beta\n\ngamma delta épsilon\n" * 50
    encoded = get_tokenizer().encode(text)
    head = encoded.head(40)
    assert text.startswith(head)
    assert encoded.tokens_within(len(head)) == 40 or independent_count(head) <= 40


def test_heuristic_is_ceil_of_chars_over_four() -> None:
    tokenizer = HeuristicTokenizer(reason="test")
    assert tokenizer.count("abcde") == 2
    assert tokenizer.encode("a" * 9).head(2) == "a" * 8
    assert tokenizer.name == "heuristic" and not tokenizer.exact


def test_missing_cache_falls_back_with_one_warning(tmp_path: object) -> None:
    # A fresh interpreter with an empty cache and no network: estimate, say so once.
    code = (
        "from ctxguard.tokens import get_tokenizer\n"
        "t = get_tokenizer(); get_tokenizer()\n"
        "print(t.name, t.count('abcdefgh'))\n"
    )
    env = dict(os.environ, TIKTOKEN_CACHE_DIR=str(tmp_path), HTTPS_PROXY="http://127.0.0.1:9",
               HTTP_PROXY="http://127.0.0.1:9")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert result.stdout.split() == ["heuristic", "2"]
    assert result.stderr.count("warning: cannot load tiktoken encoding") == 1
    assert "TIKTOKEN_CACHE_DIR" in result.stderr
