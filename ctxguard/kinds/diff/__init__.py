"""Unified diffs: read once into a DiffDoc (unidiff's PatchSet), which serves the plan, the
probes, the digest's file list and a cut's per-file coverage."""

from __future__ import annotations

from ctxguard.kinds.base import KindOf
from ctxguard.kinds.diff.coverage import file_coverage
from ctxguard.kinds.diff.model import DiffDoc, FileStat, read
from ctxguard.kinds.diff.plan import file_listing, plan
from ctxguard.kinds.diff.probes import probes
from ctxguard.kinds.diff.sink import DiffSink

KIND = KindOf("diff", read, plan, probes, sink=lambda tokenizer, head_budget: DiffSink())

__all__ = ["KIND", "DiffDoc", "FileStat", "file_coverage", "file_listing", "read"]
