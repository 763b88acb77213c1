"""Logs (CI, test runners, compilers, services): failures and errors first, every error line
kept by tier 2, passing tests and progress last."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ctxguard.kinds.log.model import LogDoc, scan
from ctxguard.kinds.log.plan import plan
from ctxguard.kinds.log.probes import probes


def read(text: str, name: str = "") -> LogDoc:
    """The log read once (ANSI codes removed, the kind of every line that has one)."""
    return scan(text)


@dataclass(frozen=True)
class _Log:
    name: Literal["log"] = "log"
    read = staticmethod(read)
    plan = staticmethod(plan)
    probes = staticmethod(probes)


KIND = _Log()

__all__ = ["KIND", "LogDoc"]
