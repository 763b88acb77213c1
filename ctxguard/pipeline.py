"""collect -> redact -> read and count once -> the digest's facts -> each artifact's request: a
Run, which makes the records at any budgets (ctxguard.bundle.size finds the budgets)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ctxguard import digest, links, reference
from ctxguard import records as make
from ctxguard.budget import Request, capacity
from ctxguard.collect import Artifact, Source, collect, opened
from ctxguard.config.model import Config
from ctxguard.engine import stream
from ctxguard.engine.tiers import min_budget, overhead
from ctxguard.kinds.classify import classify
from ctxguard.kinds.registry import KINDS
from ctxguard.options import KindName
from ctxguard.read import BinaryData
from ctxguard.record import Offload, Record, error_record
from ctxguard.tokens.base import Encoded, Tokenizer


@dataclass(frozen=True)
class Result:
    """The records in config order, the artifacts they came from, the diff's source, the digest."""

    records: list[Record]
    artifacts: list[Artifact]
    source: Source
    capacity: int  # the budget the whole bundle may use
    digest: str = ""
    digest_tokens: int = 0
    offloads: tuple[tuple[Path, str], ...] = ()  # full texts to keep: (where, text)
    links: tuple[dict[str, str | None], ...] = ()  # failures and the changed hunks they reach


@dataclass(frozen=True)
class Prepared:
    """One artifact read, counted and classified once (and, when big, streamed; when a
    reference, described): what its record is made from at any budget."""

    artifact: Artifact
    kind: KindName
    encoded: Encoded | None  # its text's tokens (None: no text, or streamed)
    streamed: tuple[stream.Scan, Any] | None  # a big file's one pass: its scan and its sink
    described: reference.Described | None  # a `reference: true` file's facts
    doc: Any  # its kind's reading of its text, if it has one
    need: int  # the tokens its record takes whole
    request: Request  # what it asks of the budgets
    placeholder: Record  # its widest status line in the digest, before its record exists

    def record(self, budget: int, tokenizer: Tokenizer, listed: int | None) -> Record:
        """Its record at `budget` (`listed`: files a diff record lists, at most)."""
        a, kind = self.artifact, self.kind
        if self.streamed is not None:
            return make.streamed(a, kind, budget, self.streamed, tokenizer)
        if self.described is not None:
            return make.referenced(a, self.described, kind, budget, tokenizer)
        return make.compressed(a, kind, budget, self.encoded, tokenizer, self.doc, listed)


@dataclass
class Run:
    """One run's artifacts, each prepared once (a row each), ready to be cut at any budgets:
    what the sizing of a bundle (ctxguard.bundle.size) tries again and again."""

    config: Config
    tokenizer: Tokenizer
    rows: list[Prepared]
    source: Source
    found: digest.Facts
    floor: int  # the least budget an artifact is given
    offloads: Path | None = None
    relative_to: Path | None = None
    kept: dict[str, tuple[Path, Offload]] = field(default_factory=dict)  # offloads named, by artifact

    @property
    def artifacts(self) -> list[Artifact]:
        return [row.artifact for row in self.rows]

    @property
    def requests(self) -> list[Request]:
        return [row.request for row in self.rows]

    @property
    def needs(self) -> list[int]:
        """The tokens each record takes whole."""
        return [row.need for row in self.rows]

    def reserve(self, rows: int) -> int:
        """The tokens the digest may take, with `rows` rows of each table (its widest form)."""
        placeholders = [row.placeholder for row in self.rows]
        return self.tokenizer.count(digest.render(self.found, placeholders, worst=True, rows=rows))

    def records(self, budgets: list[int], listed: int | None) -> list[Record]:
        """Every artifact's record at its budget (`listed`: files a diff record lists, at most)."""
        records = [row.record(b, self.tokenizer, listed) for row, b in zip(self.rows, budgets)]
        if self.offloads is not None:
            records = [
                make.offloaded(r, row.artifact, self.offloads, self.relative_to, self.kept)
                for r, row in zip(records, self.rows)
            ]
        return records

    def digest(self, records: list[Record], rows: int) -> tuple[str, int]:
        """The digest of these records, and its tokens."""
        text = digest.render(self.found, records, rows=rows)
        return text, self.tokenizer.count(text)

    def result(self, records: list[Record], text: str, used: int, reserved: int) -> Result:
        """The records with the digest, what the whole bundle may use, and the texts to offload."""
        config = self.config
        within = capacity(self.requests, config.total_budget, config.margin, reserved, self.floor)
        artifacts = self.artifacts
        kept = _kept_texts(records, artifacts, self.kept)
        return Result(records, artifacts, self.source, within, text, used, kept, self.found.linked.data())


def prepare(
    config: Config,
    repo: Any,
    tokenizer: Tokenizer,
    diff_override: str | None = None,
    missed: bool = False,
    reason: str | None = None,
    offloads: Path | None = None,
    relative_to: Path | None = None,
    collected: tuple[list[Artifact], Source] | None = None,
    since: str | None = None,
) -> Run:
    """Collect every artifact, redact it, read, count and classify it once, stream the big ones,
    and gather the digest's facts and what each artifact asks for: a Run to cut at any budgets.

    With `offloads` (a folder), every record that leaves something out names where its full text
    will be kept there (a path relative to `relative_to`, and its sha256); the result lists the
    texts to write. A streamed record's full text is its file. `collected`: the artifacts (and
    source) to use instead of collecting them (one chunk of a split change, ctxguard.chunks).
    """
    artifacts, source = (
        collected if collected is not None else collect(config, repo, diff_override, reason, missed, since)
    )
    # A big file is read in one pass when its kind can (a log, a diff, JSON, text), else whole.
    artifacts = [opened(a, stream.streamable(a.stream, a.name, a.type)) if a.stream else a for a in artifacts]
    if config.redact:  # before anything is counted, compressed, summarised or offloaded
        artifacts = [make.redacted(a) for a in artifacts]
    described = _described(artifacts, tokenizer, config.redact)
    refs = {i: d for i, d in described.items() if isinstance(d, reference.Described)}
    artifacts = [replace(a, error=d) if isinstance(d := described.get(i), str) else a for i, a in enumerate(artifacts)]
    # Encoded once: the counts drive allocation and the same token arrays drive the cuts.
    encoded = [tokenizer.encode(a.text) if a.text is not None else None for a in artifacts]
    kinds = [
        classify(a.name, "".join(refs[i].preview) if i in refs else a.text or "", a.type)
        for i, a in enumerate(artifacts)
    ]
    # Big files: one streaming pass each, which counts them and keeps what their cut may show.
    streams = {}
    for i, a in enumerate(artifacts):
        if a.stream is None:
            continue
        try:
            streams[i] = stream.prepare(a.stream, tokenizer, kinds[i], a.options, config.redact, budget=a.budget)
        except BinaryData as exc:  # a NUL byte past the first block: not text after all
            artifacts[i] = replace(a, stream=None, text=None, error=str(exc))
    # Each artifact read once by its kind: the digest, every try of the budgets and the
    # coverage of a cut diff all ask that one reading.
    docs = {
        i: KINDS[kind].read(a.text, a.name)
        for i, (a, kind) in enumerate(zip(artifacts, kinds))
        if a.text is not None and i not in streams
    }
    told = {i: KINDS[kinds[i]].facts(doc) for i, doc in docs.items()}
    found = digest.facts([(artifacts[i].name, told[i]) for i in told])
    # The failures linked to the changed hunks they reach: each diff's cut takes those first.
    linked = links.link(
        [(i, artifacts[i].name, failure) for i in told for failure in told[i].failures],
        [(i, artifacts[i].name, change) for i in told for change in told[i].changes],
        lambda i: (artifacts[i].text or "").splitlines(),
    )
    for i, lines in linked.focus:
        artifacts[i] = replace(artifacts[i], options=replace(artifacts[i].options, focus=lines))
    found = replace(found, linked=linked)
    found = digest.merge(found, [(artifacts[i].name, sink) for i, (_, sink) in streams.items()])
    needs = _needs(
        artifacts, encoded, {i: state.tokens for i, (state, _) in streams.items()}, refs, docs, kinds, tokenizer
    )
    requests = [Request(a.budget, need, a.priority, a.entry, a.shares) for a, need in zip(artifacts, needs)]
    # The digest's widest possible status lines, to reserve its room before the budgets exist.
    placeholders = [
        replace(
            error_record(a.name, a.error or "", artifact_type="text", budget=0, encoding=""),
            retention={"probes": 999_999, "kept": 999_999},
        )
        for a in artifacts
    ]
    rows = [
        Prepared(a, kind, e, streams.get(i), refs.get(i), docs.get(i), need, request, placeholder)
        for i, (a, kind, e, need, request, placeholder) in enumerate(
            zip(artifacts, kinds, encoded, needs, requests, placeholders)
        )
    ]
    return Run(config, tokenizer, rows, source, found, min_budget(tokenizer), offloads, relative_to)


def _needs(
    artifacts: list[Artifact],
    encoded: list[Encoded | None],
    streamed: dict[int, int],
    refs: dict[int, reference.Described],
    docs: dict[int, Any],
    kinds: Sequence[KindName],
    tokenizer: Tokenizer,
) -> list[int]:
    """The tokens each artifact's record takes whole: its text (a streamed file's count), a
    reference's content with its whole preview, a numbered one (a diff) with its numbers."""
    extra = overhead(tokenizer)
    needs = [e.count + extra if e is not None else 0 for e in encoded]
    for i, tokens in streamed.items():
        needs[i] = tokens + extra
    for i, ref in refs.items():
        needs[i] = reference.need(ref, tokenizer)
    for i, a in enumerate(artifacts):
        number = KINDS[kinds[i]].numbered
        if a.line_numbers and a.text is not None and i in docs and number is not None:
            needs[i] = tokenizer.count(number(a.text, a.text)) + extra
    return needs


def _kept_texts(
    records: list[Record], artifacts: list[Artifact], kept: dict[str, tuple[Path, Offload]]
) -> tuple[tuple[Path, str], ...]:
    """The full texts the records name offloads for: (where, text)."""
    return tuple(
        (kept[r.artifact_name][0], a.text)
        for r, a in zip(records, artifacts)
        if r.offload is not None and a.text is not None
    )


def _described(artifacts: list[Artifact], tokenizer: Tokenizer, secrets: bool) -> dict[int, reference.Described | str]:
    """The files of `reference: true` entries, by index: their facts or why they cannot be read."""
    return {
        i: reference.describe(a.reference, a.name, tokenizer, secrets)
        for i, a in enumerate(artifacts)
        if a.reference is not None
    }
