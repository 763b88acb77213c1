"""Exact counts under a tiktoken encoding without holding a whole token list: a text is cut
into clean segments (where no token crosses), each encoded once; long runs without white space
are encoded in pieces that add up exactly (see exact_pieces)."""

from __future__ import annotations

import bisect
import functools
import itertools
import operator
import os
import re
import unicodedata
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxguard.tokens.base import Encoded, Spans, ends_of, spans_of
from ctxguard.tokens.table import RankTable
from ctxguard.words import pieces

# Runs without whitespace longer than this are encoded in pieces: BPE is superlinear in the
# length of one pre-token, and older tiktoken releases take minutes on a 1 MB base64 line.
# A run is cut only where a letter is followed by a digit: there tiktoken's pre-tokenizer (the
# regex of o200k_base and cl100k_base) always ends one piece and starts another (no letter
# alternative takes a digit, and a number piece starts at the digit), and BPE never merges
# across pieces, so the pieces' counts add up to the whole run's exactly. A run with no such
# place (letters only) is encoded whole.
_RUN_PIECE = 8192
_SAFE_CUT = re.compile(r"(?<=[^\W\d_])(?=\d)")
# Matched only from the start of a run: tried at every position, a run of n characters would
# cost n x 8192 steps.
_LONG_RUN = re.compile(rf"(?<!\S)\S{{{_RUN_PIECE},}}")


# tiktoken's pre-tokenizer (the regex that splits text into pieces before BPE, for o200k_base
# and cl100k_base) always starts a new piece after a line break that is followed by a line
# holding a non-space character, unless that line starts with "/" (o200k_base joins "/" to a
# punctuation run before the break) or its leading white space holds a "\r". BPE never
# merges across pieces, so text cut at such "clean" line starts counts the same in parts as
# whole: count(a + b) == count(a) + count(b). Python's \s covers every character Rust's
# \s does, so this test errs only towards fewer cuts. Checked against whole encodes by
# tests/tokens/test_tokens.py and, with CTXGUARD_VERIFY_COUNTS=1 (the test suite), on every count.
_CLEAN_BREAK = re.compile(r"(\n)(?=[^\S\r\n]*[^\s/]|[^\S\r\n]+/)")


def clean_segments(text: str) -> list[str]:
    """text cut after every line break that starts a tokenizer piece (see _CLEAN_BREAK)."""
    parts = _CLEAN_BREAK.split(text)
    segments = [a + b for a, b in zip(parts[::2], parts[1::2])]
    if parts[-1]:
        segments.append(parts[-1])
    return segments


# The same rule for UTF-8 bytes, stricter because a multi-byte character may be white space:
# the next line must start with printable ASCII other than "/", after ASCII spaces and tabs
# only (an indented line: JSON written with indents has no other).
_CLEAN_NEXT_BYTE = frozenset(range(0x21, 0x7F)) - {ord("/")}
_INDENT = frozenset(b" \t")


def last_clean_break(data: bytes) -> int:
    """The index of the last "\\n" in data after which no token crosses (-1 if none)."""
    end = len(data)
    while True:
        cut = data.rfind(b"\n", 0, end)
        if cut < 0:
            return cut
        start = cut + 1
        while start < len(data) and data[start] in _INDENT:
            start += 1
        if start < len(data) and data[start] in _CLEAN_NEXT_BYTE:
            return cut
        end = cut


def _verify() -> bool:
    return os.environ.get("CTXGUARD_VERIFY_COUNTS") == "1"


@dataclass
class _TiktokenEncoded:
    """A text as clean segments with their token counts; tokens are kept only per segment,
    encoded again where a question needs them (a cut point), so no whole token list is held."""

    text: str
    _segments: list[str] | None  # (None once forgotten: made again when asked, see segments)
    known: dict[str, int] = field(repr=False)  # the count of every segment met: raw or recounted
    encode: Callable[[str], list[int]] = field(repr=False)
    tokens: Callable[[str], Sequence[int]] = field(repr=False)  # (the same, held compactly)
    decode_bytes: Callable[[Sequence[int]], bytes] = field(repr=False)
    lengths: Callable[[], Sequence[int] | None] = field(repr=False)  # bytes of each token id
    marks: Callable[[], Sequence[bytes] | None] = field(repr=False)  # each token id's start marks (_start_marks)
    token_bytes: Callable[[Sequence[int]], list[bytes]] = field(repr=False)
    count_each: Callable[[Iterable[str]], dict[str, int]] = field(repr=False)
    counts: list[int] = field(init=False, repr=False)  # per segment of the text
    count: int = field(init=False, default=0)
    _starts: list[int] | None = field(default=None, repr=False)  # char offset of each segment
    _before: list[int] | None = field(default=None, repr=False)  # tokens before each segment
    _last: tuple[str, int] | None = field(default=None, repr=False)
    # The tokens of segments encoded whole already (by encode_parts), by index: segment_counts
    # takes them instead of encoding those segments again.
    held: dict[int, Sequence[int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.counts = list(map(self.known.__getitem__, self.segments))
        self.count = sum(self.counts)

    @property
    def segments(self) -> list[str]:
        """The text's clean segments (as encode cut them: the counts are theirs)."""
        if self._segments is None:
            self._segments = clean_segments(_scrub_surrogates(self.text))
        return self._segments

    def forget_lines(self) -> None:
        self._segments, self._starts = None, None
        self.known = {}
        self.held = {}

    def _index(self) -> tuple[list[int], list[int]]:
        if self._starts is None or self._before is None:
            self._starts = list(itertools.accumulate(map(len, self.segments), initial=0))
            self._before = list(itertools.accumulate(self.counts, initial=0))
        return self._starts, self._before

    def _byte_ends(self, segment: str) -> Sequence[int]:
        return _byte_ends(self.tokens(segment), self.lengths(), self.token_bytes)

    def head(self, n: int) -> str:
        if n >= self.count:
            return self.text
        starts, before = self._index()
        i = bisect.bisect_right(before, max(n, 0)) - 1  # the segment holding token n
        tokens = self.encode(self.segments[i])[: max(n, 0) - before[i]]
        return self.text[: starts[i]] + self.decode_bytes(tokens).decode("utf-8", "ignore")

    def tokens_within(self, nchars: int) -> int:
        if nchars >= len(self.text):
            return self.count
        starts, before = self._index()
        i = bisect.bisect_right(starts, max(nchars, 0)) - 1
        inside = self.segments[i][: nchars - starts[i]]
        if not inside:
            return before[i]
        nbytes = len(inside.encode("utf-8", "surrogatepass"))
        return before[i] + bisect.bisect_right(self._byte_ends(self.segments[i]), nbytes)

    def segment_counts(self, segments: Sequence[str] | Spans) -> list[int]:
        return self._counts_of(_placed(self.text, self.segments, ends_of(segments)))

    def _counts_of(self, placed: tuple[Sequence[int], Sequence[int], list[tuple[int, int]]]) -> list[int]:
        """segment_counts, given where the clean segments fall among them (_placed)."""
        ends, part, spread = placed
        out = [0] * len(ends)
        for j, count in zip(part, self.counts):
            out[j] += count
        for k, pos in spread:  # (counted in the part they start in above: spread instead)
            out[part[k]] -= self.counts[k]
            self._spread(k, pos, ends, part[k], out)
        return out

    def _spread(self, k: int, pos: int, ends: Sequence[int], j: int, out: list[int]) -> None:
        """Count segment k's tokens in the parts where they start. (Streamed, no list a part:
        compact JSON is one segment spread over every unit, and such lists were a cut's peak.)"""
        segment = self.segments[k]
        last = bisect.bisect_left(ends, pos + len(segment), j, len(ends) - 1)
        inner = ends[j:last]  # the part ends inside it … (a slice: islice would walk the j before)
        cuts: Iterable[int]
        if segment.isascii():  # … as byte offsets within the segment
            cuts = map(pos.__rsub__, inner)
        else:
            cuts = itertools.accumulate(
                len(segment[a - pos : b - pos].encode("utf-8", "surrogatepass"))
                for a, b in itertools.pairwise(itertools.chain((pos,), inner))
            )
        tokens = self.held.pop(k) if k in self.held else self.tokens(segment)  # (held: asked once)
        if not tokens:
            return
        m = last - j + 1  # the parts it spreads over
        table = self.marks() if m > _MARKED else None
        counts = (
            _marked_between(tokens, table, cuts)
            if table is not None
            else _searched_between(_byte_ends(tokens, self.lengths(), self.token_bytes), cuts)
        )
        del tokens  # (what counts them is made: let go before they are counted)
        out[j : j + m] = map(operator.add, out[j : j + m], counts)

    def recount(self, text: str) -> int:
        if text == self.text:
            return self.count
        if self._last is not None and self._last[0] is text:
            return self._last[1]  # a chosen candidate is asked about again as the content
        total = 0
        for chunk in _chunks(_scrub_surrogates(text)):  # (segments as the raw text's were)
            total += self._counted(clean_segments(chunk))
        if _verify():
            exact = len(self.encode(text))
            assert total == exact, f"recount {total} != encode {exact} for {text[:200]!r}"
        self._last = (text, total)
        return total

    def learn(self, other: Encoded) -> None:
        if isinstance(other, _TiktokenEncoded):
            self.known.update(other.known)

    def remember(self, text: str, count: int) -> None:
        self._last = (text, count)  # (asked again: the text a cut writes whole, before it is shown)

    def _counted(self, segments: list[str]) -> int:
        """The tokens of segments: those met before from their counts, the others encoded and
        remembered (the next candidate or the cut with its marker shares them)."""
        known = self.known
        new = [segment for segment in segments if segment not in known]
        if new:
            known.update(self.count_each(new))
        return sum(map(known.__getitem__, segments))


_CHUNK = 1 << 20  # characters of a text recounted at a time: its segments are held a chunk at a time


def _chunks(text: str) -> Iterator[str]:
    """text in pieces of about _CHUNK characters, each ending at a clean break (or the end):
    cut into clean segments, the pieces give the whole text's segments (the test of a break
    reads no further than the next line break)."""
    return pieces(text, _CHUNK, _CLEAN_BREAK)


def _placed(
    text: str, segments: Sequence[str], ends: Sequence[int]
) -> tuple[Sequence[int], Sequence[int], list[tuple[int, int]]]:
    """Where text's clean segments fall among parts of it (given by their ends): the parts'
    ends; per segment the part it starts in; and the segments whose tokens are spread over
    several parts, with where each starts (the others lie inside one part, or what runs past
    that part's end is blank lines, which count with the line they follow)."""
    last = len(ends) - 1
    part: list[int] = []
    spread: list[tuple[int, int]] = []
    j = pos = 0
    bound = ends[0] if len(ends) else 0  # ends[j], read once a part (an array makes an int at each read)
    for k, segment in enumerate(segments):  # (a step per line of a text: a loop, not a generator)
        end = pos + len(segment)
        while j < last and bound <= pos:
            j += 1
            bound = ends[j]
        part.append(j)
        if end > bound and not text[bound:end].isspace():
            spread.append((k, pos))
        pos = end
    return ends, part, spread


def _byte_ends(
    tokens: Sequence[int], table: Sequence[int] | None, token_bytes: Callable[[Sequence[int]], list[bytes]]
) -> Sequence[int]:
    """Where each token ends, in bytes from the start of the text they encode (an array: a
    segment of megabytes has millions of tokens)."""

    def sizes() -> Iterator[int]:
        return map(table.__getitem__, tokens) if table is not None else map(len, token_bytes(list(tokens)))

    try:  # (4 bytes a token: a segment under 2 GB)
        return array("i", itertools.accumulate(sizes()))
    except OverflowError:
        return array("q", itertools.accumulate(sizes()))


_ZEROS = bytes.maketrans(b"123456789", b"000000000")


def _as_text(shape: bytes | str) -> str:
    return shape.decode() if isinstance(shape, bytes) else shape


# The pre-tokenizer patterns of o200k_base and cl100k_base (tiktoken's, as tests check): in
# each, a digit is only ever in a piece of one to three digits (`\p{N}{1,3}`; every other
# alternative leaves digits out, and a digit is not white space for a lookahead).
_DIGITS_IN_THREES = frozenset(
    {
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
        r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
        r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
        r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]"
        r"|\s+(?!\S)|\s",
    }
)


@functools.lru_cache(maxsize=4)
def _digits_alike(enc: Any) -> bool:
    """Whether ASCII texts that differ only in their digits count alike under the encoding: its
    pre-tokenizer puts digits only in pieces of one to three (see _DIGITS_IN_THREES), and
    every such piece of ASCII digits is one token of its vocabulary, so replacing digits with
    other digits keeps every piece and every piece's count. (An encoding with another pattern,
    or whose ranks are hidden, counts every segment itself.)"""
    ranks = getattr(enc, "_mergeable_ranks", None)
    if getattr(enc, "_pat_str", None) not in _DIGITS_IN_THREES or not isinstance(ranks, (dict, RankTable)):
        return False
    return all(str(n).zfill(width).encode() in ranks for width in (1, 2, 3) for n in range(10**width))


@functools.lru_cache(maxsize=4)
def _token_lengths(enc: Any) -> list[int] | None:
    """Byte length of every token id of an encoding (None if tiktoken hides its ranks)."""
    ranks = getattr(enc, "_mergeable_ranks", None)
    if isinstance(ranks, RankTable):
        return ranks.lengths()
    if not isinstance(ranks, dict):
        return None
    if all(map(operator.eq, ranks.values(), itertools.count())):  # (tiktoken's files list them by rank)
        return list(map(len, ranks))
    table = [0] * (max(ranks.values()) + 1)
    for piece, rank in ranks.items():
        table[rank] = len(piece)
    return table


def _searched_between(ends_at: Sequence[int], cuts: Iterable[int]) -> Iterator[int]:
    """The tokens starting before the first cut, between each two, and after the last (cuts:
    byte offsets in order), from where each token ends: a search per cut."""
    n = len(ends_at)
    # Tokens starting before each cut: the first, and each whose previous token ends before it
    # (a search of all but the last end) …
    before = map(bisect.bisect_left, itertools.repeat(ends_at), cuts, itertools.repeat(0), itertools.repeat(n - 1))
    upto, behind = itertools.tee(itertools.chain(map((1).__add__, before), (n,)))
    # … so each stretch holds those between its two cuts.
    return map(operator.sub, upto, itertools.chain((0,), behind))


_MARKED = 1 << 14  # parts a segment spreads over from which its tokens' starts are marked (see _spread)
_MARKS_AT_ONCE = 1 << 14  # tokens marked at a time


def _marked_between(tokens: Sequence[int], table: Sequence[bytes], cuts: Iterable[int]) -> Iterator[int]:
    """_searched_between's counts from marks of where each token starts: a byte per byte of
    the tokens' text, 1 at each token's first (table: each token id's marks), the 1s between
    two cuts counted. (A search per cut makes an int of every token end it reads.)"""
    starts = bytearray()
    for at in range(0, len(tokens), _MARKS_AT_ONCE):  # (a join holds a buffer of 80 bytes an item)
        starts += b"".join(map(table.__getitem__, tokens[at : at + _MARKS_AT_ONCE]))
    lows, highs = itertools.tee(cuts)  # (read in step)
    return map(starts.count, itertools.repeat(1), itertools.chain((0,), lows), itertools.chain(highs, (len(starts),)))


@functools.lru_cache(maxsize=4)
def _start_marks(enc: Any) -> list[bytes] | None:
    """Per token id, a byte per byte of the token: 1 for its first, 0 after (None where
    _token_lengths is). One object per length, shared; built in a few milliseconds, once."""
    lengths = _token_lengths(enc)
    if lengths is None:
        return None
    by_length: dict[int, bytes] = {}
    return [by_length[n] if n in by_length else by_length.setdefault(n, b"\1" + b"\0" * (n - 1)) for n in lengths]


@dataclass(frozen=True)
class TiktokenTokenizer:
    """Exact counts under one tiktoken encoding; special-token text counts as plain text."""

    name: str
    _encoding: object = field(repr=False, compare=False)

    exact = True

    def _encode(self, text: str) -> list[int]:
        encode: Callable[[str], list[int]] = self._encoding.encode_ordinary  # type: ignore[attr-defined]
        pieces = _pieces(text)
        if len(pieces) == 1:
            return encode(pieces[0])
        tokens: list[int] = []
        for piece in pieces:
            tokens += encode(piece)
        return tokens

    def count(self, text: str) -> int:
        """(A text long enough to hold a long run is counted from its compact tokens, a piece
        at a time: a list would hold an object per token, and a cut's one line of compact JSON
        holds millions.)"""
        if len(text) < _RUN_PIECE:
            return len(self._encode(text))
        return sum(len(self._tokens(piece)) for piece in _count_pieces(text))

    def _tokens(self, text: str) -> Sequence[int]:
        """text's tokens (as _encode gives them) in an array of 4 bytes a token, from tiktoken's
        own buffer where it has one: a list of a long segment's tokens holds an object per token."""
        core = getattr(self._encoding, "_core_bpe", None)
        buffered = getattr(core, "encode_to_tiktoken_buffer", None)
        if buffered is None:
            return self._encode(text)
        out = array("I")
        for piece in _pieces(text):
            out.frombytes(memoryview(buffered(piece, set())).cast("B"))  # (encode_ordinary: no special tokens)
        return out

    def _count_each(self, segments: Iterable[str]) -> dict[str, int]:
        """The count of each distinct segment, each encoded once: artifacts repeat lines (JSON's
        brackets and common fields, a log's repeated messages), and equal text counts equally;
        so do ASCII lines alike but for their digits (see _digits_alike): a log's lines that
        differ only in their timestamps, a cut's gap lines, encoded once for all."""
        fast: Callable[[str], list[int]] = getattr(self._encoding, "_core_bpe", self._encoding).encode_ordinary  # type: ignore[attr-defined]
        unique = list(dict.fromkeys(segments))
        # Segments long enough to hold a long run are counted as count() does, the rest straight.
        short = [segment for segment in unique if len(segment) < _RUN_PIECE]
        if _digits_alike(self._encoding):
            # (bytes: translated ten times as fast as a str; a segment that is not ASCII is its own shape)
            shapes = [segment.encode().translate(_ZEROS) if segment.isascii() else segment for segment in short]
            distinct = list(dict.fromkeys(shapes))
            of_shape = dict(zip(distinct, map(len, map(fast, map(_as_text, distinct)))))
            counts = dict(zip(short, map(of_shape.__getitem__, shapes)))
        else:
            counts = dict(zip(short, map(len, map(fast, short))))
        if len(short) < len(unique):
            counts.update((segment, self.count(segment)) for segment in unique if len(segment) >= _RUN_PIECE)
        return counts

    def encode(self, text: str) -> Encoded:
        return self._encoded(text, clean_segments(_scrub_surrogates(text)), {})

    def encode_parts(self, parts: Sequence[str] | Spans) -> tuple[Encoded, list[int]]:
        text, ends = spans_of(parts)
        segments = clean_segments(_scrub_surrogates(text))
        # The segments whose tokens fall in several parts are encoded once, whole: their count
        # and the token ends that spread it over the parts come from that one encode.
        placed = _placed(text, segments, ends)
        held = {k: self._tokens(segments[k]) for k, _ in placed[2]}
        encoded = self._encoded(text, segments, held)
        return encoded, encoded._counts_of(placed)  # (placed once for both)

    def _encoded(self, text: str, segments: list[str], held: dict[int, Sequence[int]]) -> _TiktokenEncoded:
        """text as its clean segments (same length: one "?" per surrogate), every distinct
        segment counted once (later counts of texts made from these lines reuse them), those in
        held from their tokens."""
        whole = {segments[k]: len(tokens) for k, tokens in held.items()}
        known = self._count_each(segment for segment in segments if segment not in whole)
        known.update(whole)
        enc = self._encoding
        encoded = _TiktokenEncoded(
            text=text,
            _segments=segments,
            known=known,
            encode=self._encode,
            tokens=self._tokens,
            decode_bytes=enc.decode_bytes,  # type: ignore[attr-defined]
            lengths=functools.partial(_token_lengths, enc),
            marks=functools.partial(_start_marks, enc),
            token_bytes=enc.decode_tokens_bytes,  # type: ignore[attr-defined]
            count_each=self._count_each,
            held=held,
        )
        if _verify():
            exact = len(self._encode(text))
            assert encoded.count == exact, f"segment counts {encoded.count} != encode {exact}"
        return encoded


def exact_pieces(text: str) -> Iterator[str]:
    """text cut into pieces inside its long runs, every piece at least _RUN_PIECE characters of
    the run, only where a letter meets a digit (see _SAFE_CUT): the pieces encode to exactly the
    text's tokens. (Not at a run's edges: a space before a word is part of the word's piece.)"""
    pos = 0
    for run in long_runs(text):
        at = run.start()
        while run.end() - at > 2 * _RUN_PIECE:
            cut = _safe_cut(text, at + _RUN_PIECE, run.end())
            if cut is None:
                break
            yield text[pos:cut]
            pos = at = cut
    yield text[pos:]


_COUNT_PIECE = 1 << 20  # characters of a long text encoded at a time to count it


def _count_pieces(text: str) -> Iterator[str]:
    """text in pieces of about _COUNT_PIECE characters or more, cut where a letter meets a
    digit (see _safe_cut): they count exactly as the whole."""
    start = 0
    while len(text) - start > 2 * _COUNT_PIECE:
        cut = _safe_cut(text, start + _COUNT_PIECE, len(text))
        if cut is None:
            break
        yield text[start:cut]
        start = cut
    yield text[start:] if start else text


def _safe_cut(text: str, start: int, end: int) -> int | None:
    r"""The first place in text[start:end] where a letter meets a digit: `\w` that is not `\d`
    also holds numerals such as `²` and `Ⅷ`, which tiktoken groups with the digits after them
    (`\p{N}`), so the character before must be a letter or a mark."""
    while (cut := _SAFE_CUT.search(text, start, end)) is not None:
        if unicodedata.category(text[cut.start() - 1])[0] in "LM":
            return cut.start()
        start = cut.start() + 1
    return None


def long_runs(text: str) -> Iterator[re.Match[str]]:
    """_LONG_RUN's matches in text, in order (what `finditer` gives), the pattern tried only
    near a window of _RUN_PIECE // 2 characters holding no space, line feed or tab: every run
    covers such a window, and ordinary text has none. (`finditer` tried the pattern after each
    space: compact JSON, whose spaces sit inside its strings, paid about a fifth of an encode.)
    Near such a window, every word starting from the last window before it that holds one of
    those three (or the end of the last run) is tried as a run's start."""
    step = _RUN_PIECE // 2
    read = 0  # no run starts before this but those given
    for start in range(0, len(text), step):
        if start + step <= read or _spaced(text[start : start + step]):
            continue
        begin = start
        while begin - step >= read and not _spaced(text[begin - step : begin]):
            begin -= step
        for word in _WORD_START.finditer(text, max(read, begin - step), start + step):
            run = _LONG_RUN.match(text, word.start())
            if run is not None:
                yield run
                read = run.end()
                break
        else:
            read = start + step


def _spaced(window: str) -> bool:
    return " " in window or "\n" in window or "\t" in window


_WORD_START = re.compile(r"(?<!\S)\S")


def _has_long_run(text: str) -> bool:
    return len(text) >= _RUN_PIECE and next(long_runs(text), None) is not None


def _pieces(text: str) -> list[str] | tuple[str]:
    """text as tiktoken is given it: lone surrogates scrubbed, long runs cut into exact pieces."""
    text = _scrub_surrogates(text)
    return list(exact_pieces(text)) if _has_long_run(text) else (text,)


def _scrub_surrogates(text: str) -> str:
    # Lone surrogates (from JSON "\ud800" escapes) cannot be UTF-8 encoded; count them as U+FFFD.
    if text.isascii():
        return text
    try:  # (an encode is four times as fast as a search for one; a megabyte at a time)
        for start in range(0, len(text), _COUNT_PIECE):
            text[start : start + _COUNT_PIECE].encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text
