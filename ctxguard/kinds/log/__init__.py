"""Logs (CI, test runners, compilers, services): failures and errors first, every error line
kept by tier 2, passing tests and progress last."""

from __future__ import annotations

from ctxguard.kinds.base import KindOf
from ctxguard.kinds.log.model import LogDoc, scan
from ctxguard.kinds.log.plan import plan
from ctxguard.kinds.log.probes import probes
from ctxguard.kinds.log.sink import LogSink
from ctxguard.tokens.base import Tokenizer


def read(text: str, name: str = "") -> LogDoc:
    """The log read once (ANSI codes removed, the kind of every line that has one)."""
    return scan(text)


def sink(tokenizer: Tokenizer, head_budget: int) -> LogSink:
    """A big log's streaming sink (its first and last lines are lines that say something)."""
    return LogSink(tokenizer, head_budget, log=True)


KIND = KindOf("log", read, plan, probes, sink=sink)

__all__ = ["KIND", "LogDoc"]
