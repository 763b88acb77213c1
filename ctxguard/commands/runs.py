"""The bundles `ctxguard bundle` and `check` make: one, or with `split: chunks` one per chunk of
the change (ctxguard.chunks), each measured as it is written in its form."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxguard.commands.setup import diff_range, since_ref
from ctxguard.options import Format


@dataclass(frozen=True)
class Made:
    """The bundles to write (pipeline result, written bundle), and the same bundles made again
    under another total_budget from what was collected and prepared (git is not read again)."""

    parts: list[tuple[Any, Any]]
    again: Callable[[int], list[tuple[Any, Any]]]

    def fits(self, total: int) -> bool:
        """Whether the bundles made under this total_budget keep to it."""
        return all(out.tokens <= total for _, out in self.again(total))


def bundles(
    args: argparse.Namespace, repo: Any, config: Any, tokenizer: Any, fmt: Format, output: Path, stdout: bool = False
) -> Made:
    """(pipeline result, written bundle) for each bundle to write, in order: total_budget bounds
    each as written in fmt. Cut records name their full text in the offload folder beside
    output: relative to output's folder, or with stdout (no file to be beside) to the current
    directory."""
    from dataclasses import replace

    from ctxguard import pipeline
    from ctxguard.bundle import chunks, size, write
    from ctxguard.bundle import model as bundle
    from ctxguard.collect import collect

    chosen = diff_range(args, repo)
    mode, why = (chosen.mode, chosen.why) if chosen else (None, None)
    since = since_ref(args)
    task = config.review_task()

    def prepared(collected: Any) -> pipeline.Run:
        return pipeline.prepare(
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

    def sized(run: pipeline.Run, total: int | None, chunk: Any = None) -> tuple[Any, Any]:
        at = run if total == config.total_budget else replace(run, config=replace(run.config, total_budget=total))
        return size.sized(at, fmt=fmt, task=task, chunk=chunk)

    if chunks.chunked_entry(config) is None:
        run = prepared(None)
        return Made([sized(run, config.total_budget)], lambda total: [sized(run, total)])
    if stdout:
        from ctxguard.errors import UsageError

        raise UsageError("split: chunks writes one file per chunk; --stdout prints one bundle (use --output)")
    collected = collect(config, repo, mode, why, args.missed, since)
    widest = bundle.Chunk(99, 99)  # (measured with the widest numbers it will have, or wider)

    def split(total: int | None) -> list[tuple[Any, Any]]:
        def measured(artifacts: list[Any]) -> tuple[Any, int]:
            result, written = sized(prepared((artifacts, collected[1])), total, widest)
            return result, written.tokens

        parts = chunks.split(replace(config, total_budget=total), collected, tokenizer, measured)
        if len(parts) == 1:
            return [sized(prepared((parts[0][1], collected[1])), total)]
        assemble = functools.partial(
            write.assemble, fmt=fmt, total_budget=total, tokenizer=tokenizer, window=config.context_window, task=task
        )
        return [(result, assemble(result, chunk=bundle.Chunk(k, len(parts)))) for k, (result, _) in enumerate(parts, 1)]

    return Made(split(config.total_budget), split)


def part_path(path: Path, index: int, parts: int) -> Path:
    """Where part `index` of `parts` bundles goes: path itself for one, else bundle.json ->
    bundle-2.json (bundle.prompt.md -> bundle-2.prompt.md)."""
    if parts == 1:
        return path
    stem, dot, rest = path.name.partition(".")
    return path.with_name(f"{stem}-{index}{dot}{rest}")
