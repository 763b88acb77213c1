"""The stable Python API: compress a file or a text, count tokens."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ctxguard.engine import stream
from ctxguard.engine.tiers import compress, min_budget
from ctxguard.kinds.classify import classify
from ctxguard.options import Options, Tier3Mode
from ctxguard.read import BinaryData, Loaded, read_artifact
from ctxguard.record import Record, error_record
from ctxguard.secrets.redact import notes
from ctxguard.secrets.redact import redact as redact_secrets
from ctxguard.tokens.load import get_tokenizer
from ctxguard.tuning import collecting_less


def compress_file_record(
    path: str | Path,
    budget: int,
    *,
    artifact_type: str | None = None,
    encoding: str | None = None,
    name: str | None = None,
    options: Options = Options(),
    redact: bool = True,
) -> Record:
    """Read and compress one file; an unreadable file gives an [ERROR: …] record.

    A log, text, diff or JSON file over read.STREAM_BYTES is not read whole but streamed
    (bounded memory).
    """
    label = name if name is not None else str(path)
    try:
        streamed = _stream(Path(path), label, budget, artifact_type, encoding, options, redact)
    except BinaryData as exc:
        return compress_loaded(
            Loaded(None, error=str(exc)), label, budget, artifact_type=artifact_type, encoding=encoding
        )
    if streamed is not None:
        return streamed
    return compress_loaded(
        lambda: read_artifact(path),  # (read there, so that only it holds the text as read)
        label,
        budget,
        artifact_type=artifact_type,
        encoding=encoding,
        options=options,
        redact=redact,
    )


def _stream(
    path: Path, label: str, budget: int, artifact_type: str | None, encoding: str | None, options: Options, redact: bool
) -> Record | None:

    kind = stream.streamable(path, label, artifact_type)
    if kind is None:
        return None
    tokenizer = get_tokenizer(encoding)
    if budget < min_budget(tokenizer):
        raise ValueError(f"budget must be at least {min_budget(tokenizer)} tokens (got {budget})")
    return stream.compress_stream(path, label, budget, tokenizer, kind, options, secrets=redact)


def compress_loaded(
    loaded: Loaded | Callable[[], Loaded],
    label: str,
    budget: int,
    *,
    artifact_type: str | None = None,
    encoding: str | None = None,
    options: Options = Options(),
    redact: bool = True,
) -> Record:
    """Compress text already read (from a file or stdin), or record why there is none. Given
    the function that reads it, the text as read is let go of once its secrets are redacted
    (only this holds it: a file of megabytes is not held twice while it is cut)."""
    tokenizer = get_tokenizer(encoding)
    read = loaded() if callable(loaded) else loaded
    del loaded
    if read.text is None:
        kind = classify(label, "", artifact_type)
        return error_record(
            label,
            read.error or "unreadable",
            artifact_type=kind,
            budget=budget,
            encoding=tokenizer.name,
        )
    text, said, counts, allowed = read.text, read.notes, {}, 0
    del read
    if redact:
        found = redact_secrets(text)
        text, counts, allowed = found.text, found.counts, found.allowed
        del found
    record = compress(text, budget, tokenizer=tokenizer, name=label, artifact_type=artifact_type, options=options)
    if counts or allowed:
        record = replace(record, redacted=tuple(counts.items()), notes=(*record.notes, *notes(counts, allowed)))
    return replace(record, notes=said + record.notes) if said else record


def compress_file(
    path: str | Path,
    budget: int,
    *,
    artifact_type: str | None = None,
    task: str | None = None,
    encoding: str | None = None,
    tier3: Tier3Mode = "salient",
    missed: bool = False,
    redact: bool = True,
) -> dict[str, Any]:
    """Compress one file to at most budget tokens; returns the artifact record as a dict."""
    with collecting_less():
        return compress_file_record(
            path,
            budget,
            artifact_type=artifact_type,
            encoding=encoding,
            options=Options(task=task, tier3=tier3, missed=missed),
            redact=redact,
        ).to_dict()


def compress_text(
    text: str,
    budget: int,
    *,
    name: str = "<text>",
    artifact_type: str | None = None,
    task: str | None = None,
    encoding: str | None = None,
    tier3: Tier3Mode = "salient",
    missed: bool = False,
    redact: bool = True,
) -> dict[str, Any]:
    """Compress a text to at most budget tokens; returns the artifact record as a dict."""
    with collecting_less():
        return compress_loaded(
            Loaded(text),
            name,
            budget,
            artifact_type=artifact_type,
            encoding=encoding,
            options=Options(task=task, tier3=tier3, missed=missed),
            redact=redact,
        ).to_dict()


def count_tokens(text: str, encoding: str | None = None) -> int:
    """Exact token count under the encoding (default o200k_base); special-token text is text."""
    return get_tokenizer(encoding).count(text)
