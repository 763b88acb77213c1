"""Logs (CI, test runners, compilers, services): failures and errors first, every error line
kept by tier 2, passing tests and progress last."""
from __future__ import annotations

from ctxguard.kinds.base import KindOf
from ctxguard.kinds.log.model import LogDoc, scan
from ctxguard.kinds.log.plan import plan
from ctxguard.kinds.log.probes import probes


def read(text: str, name: str = "") -> LogDoc:
    """The log read once (ANSI codes removed, the kind of every line that has one)."""
    return scan(text)


KIND = KindOf("log", read, plan, probes)

__all__ = ["KIND", "LogDoc"]
