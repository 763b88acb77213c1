from __future__ import annotations

import base64
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from ctxguard.tokens.base import HeuristicTokenizer
from ctxguard.tokens.load import get_tokenizer
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


@pytest.mark.parametrize("seed", range(3))
def test_long_runs_are_the_patterns_matches_found_near_unspaced_windows(seed: int) -> None:
    """exact.long_runs tries the pattern only near windows without a space, a line feed or a
    tab: it must find every match `finditer` finds, where other white space (a carriage
    return, a vertical tab, an em space) alone breaks a run, and runs of every length about
    the threshold."""
    from ctxguard.tokens import exact

    rng = random.Random(seed)
    breaks = ["", " ", "\n", "\t", "\r", "\x0b", "\u2003", " x ", "\r\r"]
    found = 0
    for _ in range(25):
        runs = [rng.choice("ab1é") * rng.choice([1, 700, 4095, 8191, 8192, 8193, 12289, 30000]) for _ in range(10)]
        text = "".join(run + rng.choice(breaks) for run in runs)
        expected = [m.span() for m in exact._LONG_RUN.finditer(text)]
        assert [m.span() for m in exact.long_runs(text)] == expected
        found += len(expected)
    assert found > 20  # (the texts hold runs)


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


_OFFLINE = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"}  # no network


def _fresh(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def test_counts_are_exact_offline_from_the_shipped_encodings(tmp_path: object) -> None:
    """No TIKTOKEN_CACHE_DIR, no network: the files shipped in the package count exactly. An empty
    cache folder that tiktoken cannot fill falls back to them too."""
    code = (
        "from ctxguard.tokens.load import get_tokenizer\n"
        "for name in ('o200k_base', 'cl100k_base'):\n"
        "    t = get_tokenizer(name); print(t.name, t.exact, t.count('hello world, <|endoftext|>'))\n"
    )
    text = "hello world, <|endoftext|>"
    expected = [
        part for name in ("o200k_base", "cl100k_base") for part in (name, "True", str(independent_count(text, name)))
    ]
    env = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"} | _OFFLINE
    result = _fresh(code, env)
    assert result.stdout.split() == expected and not result.stderr, result.stderr
    result = _fresh(code, env | {"TIKTOKEN_CACHE_DIR": str(tmp_path)})
    assert result.stdout.split() == expected and not result.stderr, result.stderr
    assert (
        "TIKTOKEN_CACHE_DIR"
        not in _fresh(
            "import os, ctxguard.tokens as t; t.get_tokenizer(); print(os.environ.get('TIKTOKEN_CACHE_DIR'))", env
        ).stdout
    )


def test_eval_runs_offline_again_and_again(tmp_path: Path) -> None:
    """`ctxguard eval` counts independently with tiktoken itself: from the shipped files, also
    on a second run, when the tokenizer comes from the ranks cached by the first."""
    sample = tmp_path / "run.log"
    sample.write_text("".join(f"line {i} ok\n" for i in range(300)) + "ERROR: boom\n")
    env = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"} | _OFFLINE
    env["CTXGUARD_CACHE_DIR"] = str(tmp_path / "cache")
    code = f"from ctxguard.main import main; raise SystemExit(main(['eval', {str(sample)!r}, '--ratios', '0.5']))"
    for _ in range(2):
        result = _fresh(code, env)
        assert result.returncode == 0 and "Error" not in result.stderr, result.stderr
    assert list((tmp_path / "cache").iterdir())  # (the second run read the cached ranks)


def test_no_tokenizer_is_loaded_around_the_projects_own_loader() -> None:
    """Every tokenizer load in the package and the tests goes through ctxguard.tokens."""
    from tests.conftest import ROOT

    allowed = {ROOT / "ctxguard/tokens/load.py"}
    sources = [*(ROOT / "ctxguard").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]
    offenders = [
        str(path.relative_to(ROOT))
        for path in sources
        if path not in allowed and path != Path(__file__) and "tiktoken.get_encoding(" in path.read_text()
    ]
    assert offenders == []


def test_the_shipped_files_are_tiktokens_own() -> None:
    import hashlib

    from ctxguard.tokens.load import BUNDLED

    digests = {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in BUNDLED.iterdir()}
    assert digests == {  # tiktoken_ext/openai_public.py's expected_hash values
        "9b5ad71b2ce5302211f9c61530b329a4922fc6a4": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "fb374d419588a4632f3f557e76b4b70aebbca790": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    }


def test_missing_encodings_fall_back_with_one_warning(tmp_path: object) -> None:
    # A fresh interpreter with an empty cache, no network and no shipped files: estimate, once.
    code = (
        "import sys; from pathlib import Path; import ctxguard.tokens.load as tokens\n"
        f"tokens.BUNDLED = Path({str(tmp_path)!r})\n"
        "t = tokens.get_tokenizer(); tokens.get_tokenizer()\n"
        "print(t.name, t.count('abcdefgh'))\n"
    )
    result = _fresh(code, dict(os.environ, TIKTOKEN_CACHE_DIR=str(tmp_path)) | _OFFLINE)
    assert result.stdout.split() == ["heuristic", "2"]
    assert result.stderr.count("warning: cannot load tiktoken encoding") == 1
    assert "TIKTOKEN_CACHE_DIR" in result.stderr


# --- counts made from per-line counts (Encoded.recount) --------------------------------------
# The alphabet holds what decides where tiktoken's pre-tokenizer starts a piece: line breaks of
# both kinds, blank and space-only lines, leading "/", Unicode white space, punctuation runs,
# contractions, digits and letters of several scripts.
_TRICKY = [
    "\n",
    "\n",
    "\r\n",
    "\r",
    " ",
    "  ",
    "\t",
    "/",
    "//",
    "\x0b",
    "\x85",
    "\u2028",
    "\xa0",
    "a",
    "Zeta",
    "'s",
    "'LL",
    "1234",
    ")",
    "});",
    "é",
    "😀",
    "中文",
    "+",
    "-",
    "@@",
    "#",
]


def _tricky_lines(rnd: random.Random, n: int) -> list[str]:
    return ["".join(rnd.choice(_TRICKY) for _ in range(rnd.randint(0, 8))) + "\n" for _ in range(n)]


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
@pytest.mark.parametrize("seed", range(40))
def test_recount_of_texts_made_from_lines_is_exact(encoding: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CTXGUARD_VERIFY_COUNTS")  # compare here, not inside
    if seed % 4 == 3:  # a recount a few lines at a time (a big content's), as exact
        monkeypatch.setattr("ctxguard.tokens.exact._CHUNK", 12)
    rnd = random.Random(seed)
    lines = _tricky_lines(rnd, 60)
    raw = "".join(lines)[: -1 if seed % 2 else None]  # with and without a final line break
    encoded = get_tokenizer(encoding).encode(raw)
    assert encoded.count == independent_count(raw, encoding)
    assert sum(encoded.segment_counts(raw.splitlines(keepends=True))) == encoded.count
    for _ in range(10):
        kept = [
            line if rnd.random() < 0.7 else rnd.choice(["", "... (3 lines omitted)\n", "// ...\n", "\n"])
            for line in lines
        ]
        derived = "".join(kept).rstrip("\n" if rnd.random() < 0.3 else "")
        assert encoded.recount(derived) == independent_count(derived, encoding)


def test_recount_reuses_lines_and_encodes_only_new_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    raw = "".join(f"    value_{i} = compute({i})\n" for i in range(200))
    encoded = get_tokenizer().encode(raw)
    seen: list[str] = []
    real = encoded.count_each  # type: ignore[attr-defined]
    monkeypatch.setattr(encoded, "count_each", lambda segments: seen.extend(segments) or real(segments))
    monkeypatch.delenv("CTXGUARD_VERIFY_COUNTS")
    derived = raw.splitlines(keepends=True)[:50] + ["    # ... (150 lines omitted)\n"]
    assert encoded.recount("".join(derived)) == independent_count("".join(derived))
    assert seen == ["    # ... (150 lines omitted)\n"]
    # New lines are remembered: a second text sharing them encodes only its own new line.
    again = derived[:10] + ["    # ... (150 lines omitted)\n", "    # end\n"]
    assert encoded.recount("".join(again)) == independent_count("".join(again))
    assert seen == ["    # ... (150 lines omitted)\n", "    # end\n"]


def test_segment_counts_give_blank_lines_to_the_line_before() -> None:
    text = "alpha\n\n\n   \nbeta\n"
    counts = get_tokenizer().encode(text).segment_counts(text.splitlines(keepends=True))
    assert counts[1:4] == [0, 0, 0] and sum(counts) == independent_count(text)


def test_verify_mode_catches_a_wrong_recount(monkeypatch: pytest.MonkeyPatch) -> None:
    encoded = get_tokenizer().encode("one\ntwo\n")
    encoded.known = {"one\n": 99}  # type: ignore[attr-defined]  # a deliberately wrong memory
    with pytest.raises(AssertionError, match="recount"):
        encoded.recount("one\nthree\n")


def test_learned_counts_serve_recounts_of_a_rewritten_text(monkeypatch: pytest.MonkeyPatch) -> None:
    tokenizer = get_tokenizer()
    raw = tokenizer.encode("".join(f"  line {i} of the raw text\n" for i in range(300)))
    rewritten = "".join(f"line {i}, written again\n" for i in range(300))
    raw.learn(tokenizer.encode(rewritten))
    counted: list[str] = []
    real = raw.count_each  # type: ignore[attr-defined]
    monkeypatch.setattr(raw, "count_each", lambda segments: counted.extend(segments) or real(segments))
    cut = "".join(rewritten.splitlines(keepends=True)[::3])
    assert raw.recount(cut) == independent_count(cut) and counted == []  # nothing encoded again


def test_segment_counts_of_one_long_line_in_many_parts() -> None:
    line = ",".join(f'"key{i}":"value number {i}"' for i in range(20_000)) + "\n"
    parts = line.split(",")
    parts = [part + "," for part in parts[:-1]] + parts[-1:]
    counts = get_tokenizer().encode(line).segment_counts(parts)
    assert sum(counts) == independent_count(line) and all(n > 0 for n in counts)


def test_the_ranks_cache_gives_tiktokens_own_encoding_and_survives_damage(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import tiktoken

    from ctxguard.tokens import ranks_cache
    from ctxguard.tokens.load import BUNDLED, _tiktoken_bundled
    from ctxguard.tokens.table import RankTable

    monkeypatch.setenv("CTXGUARD_CACHE_DIR", str(tmp_path / "cache"))
    source = BUNDLED / "fb374d419588a4632f3f557e76b4b70aebbca790"
    built = _tiktoken_bundled("o200k_base")
    text = "def f(x):\n    return x + 1  # ünïcode, 数字 12345, <|endoftext|>\n" * 20

    def refuse() -> None:
        raise AssertionError("tiktoken's encoding was built where the ranks were there to read")

    # No cache: the file read here (not tiktoken's encoding built), its ranks kept in the cache.
    first = ranks_cache.load("o200k_base", source, refuse)
    assert first.encode_ordinary(text) == built.encode_ordinary(text) and first._real is None
    assert first._mergeable_ranks == built._mergeable_ranks
    [cached_file] = (tmp_path / "cache").iterdir()
    cached = ranks_cache.load("o200k_base", source, refuse)  # counts small texts in Python first
    assert cached.encode_ordinary(text) == built.encode_ordinary(text) and cached._real is None
    assert isinstance(cached._mergeable_ranks, RankTable)  # (read where it lies, no dict built)
    for made in (first, cached):
        real = made.real  # tiktoken's own, built from those ranks on demand
        assert isinstance(real, tiktoken.Encoding) and real.n_vocab == built.n_vocab
        assert real.encode_ordinary(text) == built.encode_ordinary(text)
        assert real.special_tokens_set == built.special_tokens_set
    cached_file.write_bytes(b"not a rank table")  # damaged: read from the file again, and rewritten
    assert ranks_cache.load("o200k_base", source, refuse).encode_ordinary(text) == built.encode_ordinary(text)
    assert isinstance(ranks_cache.load("o200k_base", source, refuse)._mergeable_ranks, RankTable)
    monkeypatch.setenv("CTXGUARD_CACHE_DIR", "/dev/null/cannot-be-a-folder")  # unwritable: loads anyway
    assert ranks_cache.load("o200k_base", source, refuse).encode_ordinary(text) == built.encode_ordinary(text)
    # A file that is not the one tiktoken names (its sha256): tiktoken's own reading, which says why.
    other = tmp_path / "other.tiktoken"
    other.write_bytes(source.read_bytes().replace(b" 0\n", b" 7\n", 1))
    assert ranks_cache.load("o200k_base", other, lambda: built) is built


def test_a_long_run_of_numerals_and_digits_counts_exactly() -> None:
    """`²` is a word character to Python but a numeral to tiktoken (`\\p{N}`), grouped with the
    digits after it: a long run is never cut between them, so its count is the whole encode's."""
    import random

    tokenizer = get_tokenizer()
    for seed in range(12):
        pick = random.Random(seed)
        text = "".join(pick.choice(["²", "1", "2", "a", "³", "7", "b", "x9", "Ⅷ"]) for _ in range(40000))
        assert tokenizer.count(text) == independent_count(text), seed


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_encode_parts_counts_as_encode_and_segment_counts_do_encoding_each_line_once(encoding: str) -> None:
    """One long line cut into many parts (compact JSON), lines inside one part, empty parts,
    blank lines and non-ASCII text: the same counts as encode + segment_counts, and the long
    line encoded once, not again to spread its tokens."""
    rnd = random.Random(3)
    words = ["alpha", "βeta", "日本語", "x=1", " ", "\t", "\u00e9t\u00e9", "emoji 🎉", ",", '"k":"v"']
    line = "".join(rnd.choice(words) for _ in range(3000)) + "\n"
    parts = [line[a:b] for a, b in zip([0, *range(5, len(line), 7)], [*range(5, len(line), 7), len(line)])]
    parts += ["", "second line\n", "\n", "\n", "third ", "line\n", "", "last"]
    tokenizer = get_tokenizer(encoding)
    text = "".join(parts)
    expected = tokenizer.encode(text).segment_counts(parts)
    encoded = []
    real, compact = tokenizer._encode, tokenizer._tokens  # type: ignore[attr-defined]
    tokenizer_calls = type(tokenizer)(tokenizer.name, tokenizer._encoding)  # type: ignore[attr-defined]
    object.__setattr__(tokenizer_calls, "_encode", lambda t: encoded.append(t) or real(t))
    object.__setattr__(tokenizer_calls, "_tokens", lambda t: encoded.append(t) or compact(t))  # (as an array)
    got, counts = tokenizer_calls.encode_parts(parts)
    assert counts == expected and sum(counts) == got.count == independent_count(text, encoding)
    assert encoded.count(line) == 1 and len(set(encoded)) == len(encoded)  # (each spread segment once)
    assert got.recount(text[: len(line)]) == independent_count(line, encoding)


def test_the_estimate_counts_parts_too() -> None:
    from ctxguard.tokens.base import HeuristicTokenizer

    encoded, counts = HeuristicTokenizer("test").encode_parts(["abcd", "efghij", ""])
    assert counts == [1, 2, 0] and encoded.count == 3


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_a_clean_break_in_bytes_counts_as_the_whole(encoding: str) -> None:
    """A stream cuts its blocks at the last clean break: the text before it and after it count
    what the whole counts, an indented next line included (JSON written with indents has no
    line at the margin but its first and last)."""
    from ctxguard.tokens.exact import last_clean_break

    tokenizer = get_tokenizer(encoding)
    rng = random.Random(5)
    pieces = ["  ", "\t", "    ", "\n", "\n", " ", "/", "x", "1", '"a": 1,', "{", "}", "é", "\u3000", "\r", "word", ":"]
    cuts = 0
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(2, 30)))
        data = text.encode()
        cut = last_clean_break(data)
        if cut >= 0:
            cuts += 1
            head, tail = data[: cut + 1].decode(), data[cut + 1 :].decode()
            assert tokenizer.count(head) + tokenizer.count(tail) == tokenizer.count(text), repr(text)
    assert cuts > 300
    indented = b'{\n  "a": [\n    1,\n    2\n  ]\n}\n'
    assert indented[: last_clean_break(indented) + 1].endswith(b"  ]\n")  # (before "}": indented lines count)
    assert last_clean_break(b"a\n    /x") == -1 and last_clean_break(b"a\n \xc2\xa0x") == -1


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_a_segments_tokens_held_compactly_are_its_tokens(encoding: str) -> None:
    # The token ends a cut or a spread needs of a long segment come from tiktoken's buffer (4
    # bytes a token) where the list of int objects would be 9 times the size: the same tokens,
    # through long runs cut into pieces, special-token text and lone surrogates.
    from array import array

    tokenizer = get_tokenizer(encoding)
    getattr(tokenizer._encoding, "real", None)  # type: ignore[attr-defined]  # (tiktoken's own: its buffer)
    rnd = random.Random(7)
    words = ["alpha", "βeta", "日本語", " ", "\n", "<|endoftext|>", "\ud800", "x1", "🎉", '"k":"v",', "abc" * 4000]
    for _ in range(40):
        text = "".join(rnd.choice(words) for _ in range(rnd.randint(0, 60)))
        compact = tokenizer._tokens(text)  # type: ignore[attr-defined]
        assert isinstance(compact, array) and list(compact) == tokenizer._encode(text)  # type: ignore[attr-defined]


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_the_token_lengths_are_each_tokens_bytes_whatever_order_the_ranks_come_in(encoding: str) -> None:
    from ctxguard.tokens.exact import _token_lengths

    ranks = get_tokenizer(encoding)._encoding._mergeable_ranks  # type: ignore[attr-defined]
    lengths = _token_lengths(get_tokenizer(encoding)._encoding)  # type: ignore[attr-defined]
    assert lengths is not None and len(lengths) == len(ranks)
    assert all(lengths[rank] == len(piece) for piece, rank in ranks.items())

    class Shuffled:  # the same vocabulary listed out of rank order: each length at its rank still
        _mergeable_ranks = dict(sorted(ranks.items(), key=lambda item: -item[1]))

    assert _token_lengths(Shuffled()) == lengths


def test_a_tiktoken_cache_dir_is_read_through_the_ranks_cache_too(tmp_path: Path) -> None:
    """TIKTOKEN_CACHE_DIR set (as CI sets it): the encoding file there is read once, and a second
    process loads its cached ranks instead; the counts are tiktoken's."""
    import shutil
    import subprocess
    import sys

    from ctxguard.tokens.load import BUNDLED

    folder = tmp_path / "tiktoken"
    folder.mkdir()
    shutil.copy(BUNDLED / "fb374d419588a4632f3f557e76b4b70aebbca790", folder)
    cache = tmp_path / "cache"
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(folder), "CTXGUARD_CACHE_DIR": str(cache)}
    text = "def f(x):\n    return x + 1  # ünïcode, 数字 12345\n" * 50
    (tmp_path / "a.py").write_text(text)
    command = [sys.executable, "-m", "ctxguard", "count", str(tmp_path / "a.py")]
    first = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    assert [p.name.split("-")[0] for p in cache.iterdir()] == ["o200k_base"]  # (the ranks kept)
    second = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    assert first.stdout == second.stdout and json.loads(second.stdout)["input_tokens"] == independent_count(text)


def test_token_ends_are_held_in_four_bytes_a_token_or_eight_past_two_gigabytes() -> None:
    from ctxguard.tokens.exact import _byte_ends

    small = _byte_ends([0, 1, 0], [3, 5], lambda tokens: [])
    assert small.typecode == "i" and list(small) == [3, 8, 11]
    big = _byte_ends([0, 0, 0], [1 << 30], lambda tokens: [])
    assert big.typecode == "q" and list(big) == [1 << 30, 1 << 31, 3 << 30]
    untabled = _byte_ends([7, 8], None, lambda tokens: [b"ab", b"cde"])
    assert list(untabled) == [2, 5]


@pytest.mark.parametrize("seed", range(20))
def test_a_text_recounted_in_pieces_is_cut_into_the_segments_of_the_whole(seed: int) -> None:
    from ctxguard.tokens import exact

    rnd = random.Random(seed)
    text = "".join(_tricky_lines(rnd, 80))
    pieces = list(exact._chunks(text))
    assert "".join(pieces) == text and len(pieces) == 1
    old, exact._CHUNK = exact._CHUNK, rnd.randint(1, 30)
    try:
        pieces = list(exact._chunks(text))
    finally:
        exact._CHUNK = old
    assert "".join(pieces) == text and len(pieces) > 1
    assert [segment for piece in pieces for segment in exact.clean_segments(piece)] == exact.clean_segments(text)


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_lines_alike_but_for_their_digits_are_encoded_once_and_count_exactly(encoding: str) -> None:
    """A log's lines that differ only in their numbers (timestamps, ids, a cut's gap lines) are
    encoded once for all, and each still counts as its own encode: digits next to letters,
    runs of one to twelve digits, decimals, hex; lines that are not ASCII (other numerals:
    `²`, `٣`) are each encoded themselves."""
    rnd = random.Random(7)

    def digits() -> str:
        return "".join(rnd.choice("0123456789") for _ in range(rnd.randint(1, 12)))

    templates = [
        "2024-{}-{}T{}:{}:{}.{}Z INFO worker{} started pid={}\n",
        "... (lines {}-{} omitted)\n",
        "    at frame{}x{} (file_{}.py:{}) 0x{}ff{}\n",
        "value {}² and ٣{} are {} apart\n",
        "{}{}{}\n",
    ]
    lines = [t.format(*(digits() for _ in range(t.count("{}")))) for t in templates for _ in range(30)]
    rnd.shuffle(lines)
    tokenizer = get_tokenizer(encoding)
    real = tokenizer._encoding  # type: ignore[attr-defined]
    asked: list[str] = []

    class Recording:  # (the encoding, each encode of a segment recorded)
        _pat_str = real._pat_str
        _mergeable_ranks = real._mergeable_ranks

        def encode_ordinary(self, text: str) -> list[int]:
            asked.append(text)
            return real.encode_ordinary(text)

    recording = type(tokenizer)(tokenizer.name, Recording())  # type: ignore[call-arg]
    counts = recording._count_each(lines)  # type: ignore[attr-defined]
    assert all(counts[line] == independent_count(line, encoding) for line in lines)
    ascii_shapes = {line.translate(str.maketrans("123456789", "000000000")) for line in lines if line.isascii()}
    assert len(asked) == len(ascii_shapes) + sum(1 for line in set(lines) if not line.isascii())
    text = "".join(lines)
    assert tokenizer.encode(text).count == independent_count(text, encoding)


def test_only_the_shipped_encodings_count_lines_by_their_shape() -> None:
    import tiktoken

    from ctxguard.tokens.exact import _DIGITS_IN_THREES, _digits_alike

    # The patterns reasoned about are tiktoken's own, and its encodings and ours (the ranks
    # cache's, which counts small texts in Python first) are taken for them.
    assert _DIGITS_IN_THREES == {tiktoken.get_encoding(name)._pat_str for name in ("o200k_base", "cl100k_base")}
    for name in ("o200k_base", "cl100k_base"):
        assert _digits_alike(get_tokenizer(name)._encoding)  # type: ignore[attr-defined]
        assert _digits_alike(tiktoken.get_encoding(name))
    real = tiktoken.get_encoding("o200k_base")

    class Other:  # another pattern (p50k_base groups digit runs of any length): counted line by line
        _pat_str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
        _mergeable_ranks = real._mergeable_ranks

    class Hidden:  # ranks not to be read
        _pat_str = real._pat_str

    class Short:  # a vocabulary without every number of three digits
        _pat_str = real._pat_str
        _mergeable_ranks = {k: v for k, v in real._mergeable_ranks.items() if k != b"042"}

    assert not _digits_alike(Other()) and not _digits_alike(Hidden()) and not _digits_alike(Short())


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_spans_count_as_the_parts_they_stand_for(encoding: str) -> None:
    """A text given with its parts' ends (Spans: a plan's units held as columns) is encoded
    and spread over its parts as the parts themselves are, by either tokenizer."""
    from itertools import accumulate

    from ctxguard.tokens.base import Spans

    rnd = random.Random(11)
    words = ["alpha ", "β", "日本", "x=1", "\n", "  ", '"k":"v",', "{", "}\n", "42"]
    parts = ["".join(rnd.choice(words) for _ in range(rnd.randint(0, 6))) for _ in range(400)]
    spans = Spans("".join(parts), list(accumulate(map(len, parts))))
    for tokenizer in (get_tokenizer(encoding), HeuristicTokenizer("no encoding")):
        encoded, counts = tokenizer.encode_parts(parts)
        by_spans, counted = tokenizer.encode_parts(spans)
        assert counted == counts and by_spans.count == encoded.count
        assert encoded.segment_counts(spans) == encoded.segment_counts(parts) == counts


def test_a_long_text_is_counted_a_piece_at_a_time_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """A text of megabytes (a cut's one line of compact JSON) is encoded a piece at a time,
    cut only where a letter meets a digit: the pieces add up to the whole's count, and no
    token list of the whole is held. A lone surrogate past the first piece is still found."""
    import ctxguard.tokens.exact as exact

    monkeypatch.setattr(exact, "_COUNT_PIECE", 64)
    monkeypatch.delenv("CTXGUARD_VERIFY_COUNTS")
    rnd = random.Random(5)
    words = ['"id":', "v2", "x86_64", "sha256", " ", "é", "²3", "Ⅷ9", "abc", "123", ",", "{}", "\n"]
    tokenizer = get_tokenizer()
    for _ in range(20):
        text = "".join(rnd.choice(words) for _ in range(rnd.randint(3000, 6000)))
        pieces = list(exact._count_pieces(text))
        assert "".join(pieces) == text and len(pieces) > 5
        assert tokenizer.count(text) == independent_count(text)
    surrogate = "a1" * 500 + "\ud800" + "b2" * 100
    assert exact._scrub_surrogates(surrogate) == "a1" * 500 + "?" + "b2" * 100
    assert tokenizer.count(surrogate) == independent_count(surrogate.replace("\ud800", "\ufffd"))


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_a_segment_spread_over_many_parts_counts_alike_marked_or_searched(
    encoding: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A segment spread over many parts (compact JSON's one line over its units) has its
    tokens' starts marked in a byte string and counted between the cuts; over fewer, searched:
    each part gets the same count either way, whatever the characters' widths (a token may end
    inside one) and however the parts fall (empty ones, one at the very start)."""
    from ctxguard.tokens import exact

    tokenizer = get_tokenizer(encoding)
    words = ["alpha", "βeta", "日本語", "x=1", " ", "\u00e9t\u00e9", "emoji 🎉", ",", '"k":"v"', "12345", "\n"]
    for seed in range(8):
        rnd = random.Random(seed)
        text = "".join(rnd.choice(words) for _ in range(rnd.randint(1, 800)))
        cuts = sorted(rnd.sample(range(len(text) + 1), rnd.randint(0, min(len(text) + 1, 300))))
        parts = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
        monkeypatch.setattr(exact, "_MARKED", 1 << 30)
        searched = tokenizer.encode_parts(parts)[1]
        monkeypatch.setattr(exact, "_MARKED", 0)
        monkeypatch.setattr(exact, "_MARKS_AT_ONCE", rnd.choice([1, 7, 1 << 14]))  # (marked a few tokens at a time)
        marked = tokenizer.encode_parts(parts)[1]
        assert marked == searched and sum(marked) == independent_count(text, encoding), seed
