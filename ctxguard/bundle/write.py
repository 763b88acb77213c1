"""A bundle as it is written: its text in the chosen form, counted with its own size in it
(the size is part of what it counts), and the records and offloads it was made from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ctxguard.bundle import render
from ctxguard.bundle.model import Bundle, Chunk, Usage, build, dumps, knob
from ctxguard.config.model import CONTEXT_WINDOW
from ctxguard.options import Format
from ctxguard.pipeline import Result
from ctxguard.record import Record
from ctxguard.tokens.base import Tokenizer


def written(bundle: Bundle, fmt: Format, tokenizer: Tokenizer, knob: str | None = None) -> tuple[Bundle, str]:
    """The bundle with its written size and usage (whose action names `knob`, what cut the
    records that were cut), and its text in fmt (json, markdown or prompt). The size is part of
    what it counts: settled in two passes, at most a few. When the count of N is N + 1 and that
    of N + 1 is N (the digits merge differently), a few spaces at the end of the text settle it:
    the size said is always the size written."""

    def sized(tokens: int) -> Bundle:
        totals = replace(bundle.totals, bundle_tokens=tokens)
        return replace(bundle, totals=totals, usage=Usage.of(tokens, bundle.usage.window, knob))

    def text_of(sized_bundle: Bundle) -> str:
        return dumps(sized_bundle) if fmt == "json" else render.render(sized_bundle, fmt)

    text = ""
    for _ in range(4):
        text = text_of(bundle)
        count = tokenizer.count(text)
        if count == bundle.totals.bundle_tokens:
            return bundle, text
        bundle = sized(count)
    for pad in range(1, 8):  # (no fixed point: the count oscillates)
        for tokens in (count, count + 1, count + 2):
            candidate = sized(tokens)
            padded = text_of(candidate).removesuffix("\n") + " " * pad + "\n"
            if tokenizer.count(padded) == tokens:
                return candidate, padded
    return bundle, text_of(bundle)


@dataclass(frozen=True)
class Written:
    """A bundle as it is written: its text in the chosen format and that text's token count,
    the full texts to offload (path, text), and the records it was assembled from."""

    bundle: Bundle
    text: str
    offloads: list[tuple[Path, str]]
    source_records: Sequence[Record]

    @property
    def tokens(self) -> int:
        return self.bundle.totals.bundle_tokens


def assemble(
    result: Result,
    *,
    fmt: Format,
    total_budget: int | None,
    tokenizer: Tokenizer,
    window: int = CONTEXT_WINDOW,
    task: str | None = None,
    chunk: Chunk | None = None,
) -> Written:
    """A pipeline result as the bundle file: built, rendered in fmt and counted (the offloads
    the records name are written by the caller)."""
    bundle = build(
        result.records,
        source=result.source,
        encoding=tokenizer.name,
        total_budget=total_budget,
        digest=result.digest,
        digest_tokens=result.digest_tokens,
        window=window,
        task=task,
        chunk=chunk,
        links=result.links,
    )
    bundle, text = written(bundle, fmt, tokenizer, knob(result.records, [a.budget for a in result.artifacts]))
    return Written(bundle, text, list(result.offloads), result.records)
