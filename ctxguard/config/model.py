"""Load and validate .ctxguard.yaml into a frozen, typed Config; report every error at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ctxguard.options import TIER2_RATIO, Tier3Mode
from ctxguard.tokens.base import DEFAULT_ENCODING

CONFIG_NAME = ".ctxguard.yaml"
PRIORITIES = ("low", "normal", "high")
FAIL_ON = ("truncated", "over_budget", "missing", "never")
SPLITS = ("none", "file", "chunks")
SOURCES = ("git", "files", "github-run")
RUN_JOBS = ("failed", "all")
CONTEXT_WINDOW = 128_000  # the reader's context window when none is configured (GPT-4o's)
SCHEMA_URL = "https://raw.githubusercontent.com/ctxguard/ctxguard/main/ctxguard/schemas/config.schema.json"


@dataclass(frozen=True)
class ArtifactSpec:
    """One entry of `artifacts:`: a git diff, a set of files or a workflow run's jobs, with its budget."""

    name: str
    budget: int
    source: str  # "git", "files" or "github-run"
    diff: str | None = None
    paths: tuple[str, ...] = ()
    type: str | None = None
    task: str | None = None
    exclude: tuple[str, ...] = ()
    include_generated: bool = False
    split: str = "none"
    priority: str = "normal"
    max_raw_tokens: int | None = None
    tier3: Tier3Mode | None = None  # None: the config's
    min_retention: float | None = None  # None: the config's
    share_surplus: bool = False  # may take other entries' unused budget beyond its own
    reference: bool = False  # list each file (path, size, tokens, sha256, preview), not its content
    required: bool = False  # a missing file fails `check` (else it is reported only)
    line_numbers: bool = False  # a diff's hunk lines show their new-file line numbers
    run: str | None = None  # github-run: a run id, or auto (None)
    jobs: str = "failed"  # github-run: failed or all


@dataclass(frozen=True)
class Config:
    """The whole budget config."""

    artifacts: tuple[ArtifactSpec, ...]
    version: int = 1
    encoding: str = DEFAULT_ENCODING
    total_budget: int | None = None
    context_window: int = CONTEXT_WINDOW  # the reader's: usage levels are its share (ctxguard.bundle)
    output: str | None = None
    margin: float = 1.0
    fail_on: tuple[str, ...] = ("truncated",)
    tier2_ratio: float = TIER2_RATIO
    tier3: Tier3Mode = "salient"
    min_retention: float | None = None
    redact: bool = True
    path: str | None = None
    task: str | None = None  # the review's, from the command line (--task, --task-from-pr)

    def spec(self, name: str) -> ArtifactSpec | None:
        """The entry called name."""
        return next((s for s in self.artifacts if s.name == name), None)

    def review_task(self) -> str | None:
        """The bundle's task: the command line's, else the one every entry has, if they share one."""
        if self.task:
            return self.task
        tasks = {spec.task for spec in self.artifacts}
        return tasks.pop() if len(tasks) == 1 else None


TOP_KEYS = {
    "version",
    "encoding",
    "total_budget",
    "context_window",
    "output",
    "margin",
    "fail_on",
    "tier2_ratio",
    "tier3",
    "min_retention",
    "redact",
    "artifacts",
}
ENTRY_KEYS = {
    "name",
    "source",
    "diff",
    "paths",
    "type",
    "budget",
    "task",
    "exclude",
    "include_generated",
    "split",
    "priority",
    "max_raw_tokens",
    "tier3",
    "min_retention",
    "share_surplus",
    "reference",
    "required",
    "line_numbers",
    "run",
    "jobs",
}


def parse_fail_on(value: Any) -> tuple[str, ...]:
    """`truncated`, `[truncated, missing]` or `truncated,missing` as a tuple of policies;
    ValueError says what is wrong."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not items or not all(isinstance(i, str) for i in items):
        raise ValueError(f"must be one of {', '.join(FAIL_ON)}, or a list of them (got {value!r})")
    policies = tuple(dict.fromkeys(i.strip() for i in items))
    unknown = [p for p in policies if p not in FAIL_ON]
    if unknown:
        raise ValueError(f"must be one of {', '.join(FAIL_ON)}, or a list of them (got {unknown[0]!r})")
    if "never" in policies and len(policies) > 1:
        raise ValueError("`never` cannot be combined with other policies")
    return policies
