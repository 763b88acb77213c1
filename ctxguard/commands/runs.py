"""The bundles `ctxguard bundle` and `check` make: one, or with `split: chunks` one per chunk of
the change (ctxguard.chunks), each measured as it is written in its form."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ctxguard.commands.setup import diff_range, since_ref
from ctxguard.options import Format


def bundles(
    args: argparse.Namespace, repo: Any, config: Any, tokenizer: Any, fmt: Format, output: Path, stdout: bool = False
) -> list[tuple[Any, Any]]:
    """(pipeline result, written bundle) for each bundle to write, in order: total_budget bounds
    each as written in fmt. Cut records name their full text in the offload folder beside
    output: relative to output's folder, or with stdout (no file to be beside) to the current
    directory."""
    from ctxguard import pipeline
    from ctxguard.bundle import chunks, size, write
    from ctxguard.bundle import model as bundle
    from ctxguard.collect import collect

    chosen = diff_range(args, repo)
    mode, why = (chosen.mode, chosen.why) if chosen else (None, None)
    since = since_ref(args)
    task = config.review_task()

    def assemble(result: pipeline.Result, chunk: Any) -> write.Written:
        return write.assemble(
            result,
            fmt=fmt,
            total_budget=config.total_budget,
            tokenizer=tokenizer,
            window=config.context_window,
            task=task,
            chunk=chunk,
        )

    def build(collected: Any = None, chunk: Any = None) -> tuple[Any, Any]:
        run = pipeline.prepare(
            config,
            repo,
            tokenizer,
            mode,
            missed=args.missed,
            reason=why,
            offloads=output.parent / "offload",
            relative_to=Path.cwd() if stdout else output.parent,
            collected=collected,
            since=since,
        )
        return size.sized(run, fmt=fmt, task=task, chunk=chunk)

    if chunks.chunked_entry(config) is None:
        return [build()]
    if stdout:
        from ctxguard.errors import UsageError

        raise UsageError("split: chunks writes one file per chunk; --stdout prints one bundle (use --output)")
    collected = collect(config, repo, mode, why, args.missed, since)
    widest = bundle.Chunk(99, 99)  # (measured with the widest numbers it will have, or wider)

    def measured(artifacts: list[Any]) -> tuple[Any, int]:
        result, written = build((artifacts, collected[1]), widest)
        return result, written.tokens

    parts = chunks.split(config, collected, tokenizer, measured)
    if len(parts) == 1:
        return [build((parts[0][1], collected[1]))]
    return [(result, assemble(result, bundle.Chunk(k, len(parts)))) for k, (result, _) in enumerate(parts, 1)]


def part_path(path: Path, index: int, parts: int) -> Path:
    """Where part `index` of `parts` bundles goes: path itself for one, else bundle.json ->
    bundle-2.json (bundle.prompt.md -> bundle-2.prompt.md)."""
    if parts == 1:
        return path
    stem, dot, rest = path.name.partition(".")
    return path.with_name(f"{stem}-{index}{dot}{rest}")
