"""Load and validate .ctxguard.yaml into a frozen, typed Config; report every error at once."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxguard.classify import TYPES
from ctxguard.config_yaml import MAX_CONFIG_BYTES, Errors, parse_yaml
from ctxguard.errors import ConfigError
from ctxguard.options import TIER2_RATIO, TIER3_MODES, Tier3Mode
from ctxguard.tiers import MIN_BUDGET
from ctxguard.tokens import DEFAULT_ENCODING, ENCODINGS

CONFIG_NAME = ".ctxguard.yaml"
PRIORITIES = ("low", "normal", "high")
FAIL_ON = ("truncated", "over_budget", "missing", "never")
SPLITS = ("none", "file")
SCHEMA_URL = "https://raw.githubusercontent.com/ctxguard/ctxguard/main/ctxguard/schemas/config.schema.json"


@dataclass(frozen=True)
class ArtifactSpec:
    """One entry of `artifacts:`: a git diff or a set of files, with its budget."""

    name: str
    budget: int
    source: str  # "git" or "files"
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


@dataclass(frozen=True)
class Config:
    """The whole budget config."""

    artifacts: tuple[ArtifactSpec, ...]
    version: int = 1
    encoding: str = DEFAULT_ENCODING
    total_budget: int | None = None
    output: str | None = None
    margin: float = 1.0
    fail_on: tuple[str, ...] = ("truncated",)
    tier2_ratio: float = TIER2_RATIO
    tier3: Tier3Mode = "salient"
    min_retention: float | None = None
    redact: bool = True
    path: str | None = None

    def spec(self, name: str) -> ArtifactSpec | None:
        """The entry called name."""
        return next((s for s in self.artifacts if s.name == name), None)


# What runs when a repository has no .ctxguard.yaml: one diff of the change under review (what
# is staged at a commit; the command line, the hook and the Action choose the pushed range at a
# push and the pull request's range in CI), reports only. `ctxguard init` writes the same out.
DEFAULTS = """\
version: 1
encoding: o200k_base
total_budget: 30000       # bounds the whole written bundle (fields, digest and contents)
fail_on: never            # reports only; `truncated` makes `check` and the hook fail on a cut
artifacts:
  - name: diff
    diff: staged          # at a push, the pushed range; in GitHub Actions, the pull request's
    budget: 30000
"""
DEFAULTS_SAID = (
    "no .ctxguard.yaml: using the defaults (one diff of the change under review, "
    "30,000 tokens, reports only); `ctxguard init` writes them out to edit"
)


def default_config() -> Config:
    """The config a repository without .ctxguard.yaml runs with (DEFAULTS)."""
    return parse_config(DEFAULTS, "the built-in defaults")


_TOP = {
    "version",
    "encoding",
    "total_budget",
    "output",
    "margin",
    "fail_on",
    "tier2_ratio",
    "tier3",
    "min_retention",
    "redact",
    "artifacts",
}
_ENTRY = {
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
}


def load_config(path: str | Path) -> Config:
    """Read and validate a config file; ConfigError lists every problem with its line."""
    p = Path(path)
    from ctxguard.read import not_regular

    problem = not_regular(p) if p.exists() else None
    if problem is not None:
        raise ConfigError(f"cannot read config: {problem}")
    if p.exists() and p.stat().st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: the config is {p.stat().st_size:,} bytes; a config is at most {MAX_CONFIG_BYTES:,}")
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"no config at {path}; create one with `ctxguard init`") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from None
    return parse_config(text, str(path))


def parse_config(text: str, source: str = CONFIG_NAME) -> Config:
    """Validate config text; ConfigError lists every problem with its key path and line."""
    data, lines, errors = parse_yaml(text, source)
    if not isinstance(data, dict):
        raise ConfigError(f"{source}:1: the config must be a mapping with an `artifacts:` list")
    v = _Validator(errors, lines)
    v.unknown_keys(data, _TOP, "")
    version = v.choice(data, "version", "version", (1,), 1)
    encoding = v.choice(data, "encoding", "encoding", ENCODINGS, DEFAULT_ENCODING)
    total = v.integer(data, "total_budget", "total_budget", None, minimum=MIN_BUDGET)
    output = v.string(data, "output", "output", None)
    margin = v.number(data, "margin", "margin", 1.0, low=0.05, high=1.0)
    fail_on = v.fail_on(data.get("fail_on", "truncated"), "fail_on")
    ratio = v.number(data, "tier2_ratio", "tier2_ratio", TIER2_RATIO, low=1.0, high=10.0)
    tier3 = v.choice(data, "tier3", "tier3", TIER3_MODES, "salient")
    min_retention = v.optional_number(data, "min_retention", "min_retention")
    redact = v.boolean(data, "redact", "redact", default=True)
    entries = data.get("artifacts")
    specs: list[ArtifactSpec] = []
    if not isinstance(entries, list) or not entries:
        errors.add(lines.get("artifacts", 1), "artifacts", "must be a non-empty list of artifact entries")
    else:
        names: set[str] = set()
        for i, entry in enumerate(entries):
            spec = v.entry(entry, f"artifacts[{i}]")
            if spec is not None:
                if spec.name in names:
                    errors.add(
                        lines.get(f"artifacts[{i}].name", 1),
                        f"artifacts[{i}].name",
                        f"duplicate artifact name {spec.name!r}",
                    )
                names.add(spec.name)
                specs.append(spec)
    errors.raise_if_any()
    return Config(
        artifacts=tuple(specs),
        version=version,
        encoding=encoding,
        total_budget=total,
        output=output,
        margin=margin,
        fail_on=fail_on,
        tier2_ratio=ratio,
        tier3=tier3,
        min_retention=min_retention,
        redact=redact,
        path=source,
    )


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


class _Validator:
    def __init__(self, errors: Errors, lines: dict[str, int]) -> None:
        self.errors = errors
        self.lines = lines

    def _err(self, path: str, message: str) -> None:
        self.errors.add(self.lines.get(path, 1), path, message)

    def unknown_keys(self, data: dict[str, Any], allowed: set[str], prefix: str) -> None:
        for key in data:
            if key not in allowed:
                path = f"{prefix}.{key}" if prefix else key
                close = difflib.get_close_matches(key, sorted(allowed), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; known keys: {', '.join(sorted(allowed))}"
                self._err(path, f"unknown key{hint}")

    def choice(self, data: dict[str, Any], key: str, path: str, options: tuple[Any, ...], default: Any) -> Any:
        value = data.get(key, default)
        if value not in options:
            self._err(path, f"must be one of {', '.join(map(str, options))} (got {value!r})")
            return default
        return value

    def integer(self, data: dict[str, Any], key: str, path: str, default: int | None, *, minimum: int) -> int | None:
        value = data.get(key, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self._err(path, f"must be a whole number (got {value!r})")
            return default
        if value < minimum:
            self._err(path, f"must be at least {minimum} (got {value})")
            return default
        return value

    def number(self, data: dict[str, Any], key: str, path: str, default: float, *, low: float, high: float) -> float:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            self._err(path, f"must be a number from {low} to {high} (got {value!r})")
            return default
        return float(value)

    def optional_number(self, data: dict[str, Any], key: str, path: str) -> float | None:
        """A share from 0 to 1, or None when absent."""
        if key not in data:
            return None
        return self.number(data, key, path, 0.0, low=0.0, high=1.0)

    def string(self, data: dict[str, Any], key: str, path: str, default: str | None) -> str | None:
        value = data.get(key, default)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            self._err(path, f"must be a non-empty string (got {value!r})")
            return default
        return value

    def boolean(self, data: dict[str, Any], key: str, path: str, default: bool = False) -> bool:
        """true or false."""
        value = data.get(key, default)
        if not isinstance(value, bool):
            self._err(path, f"must be true or false (got {value!r})")
            return default
        return value

    def fail_on(self, value: Any, path: str) -> tuple[str, ...]:
        """One policy or a list of them; `never` stands alone."""
        try:
            return parse_fail_on(value)
        except ValueError as exc:
            self._err(path, str(exc))
            return ("truncated",)

    def strings(self, data: dict[str, Any], key: str, path: str) -> tuple[str, ...]:
        value = data.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self._err(path, "must be a list of strings")
            return ()
        return tuple(value)

    def entry(self, entry: Any, path: str) -> ArtifactSpec | None:
        if not isinstance(entry, dict):
            self._err(path, "each artifact must be a mapping with name, budget and paths or source")
            return None
        self.unknown_keys(entry, _ENTRY, path)
        name = self.string(entry, "name", f"{path}.name", None)
        if name is None:
            self._err(path, "missing `name`")
        budget = self.integer(entry, "budget", f"{path}.budget", None, minimum=MIN_BUDGET)
        if budget is None and "budget" not in entry:
            self._err(path, "missing `budget` (tokens for this artifact)")
        source = self.choice(
            entry, "source", f"{path}.source", ("git", "files"), "files" if "paths" in entry else "git"
        )
        diff = self.string(entry, "diff", f"{path}.diff", "staged" if source == "git" else None)
        paths = self.strings(entry, "paths", f"{path}.paths")
        if source == "files" and not paths:
            self._err(path, "a files artifact needs `paths` (a list of paths or globs)")
        kind = entry.get("type")
        if kind is not None and kind not in TYPES:
            self._err(f"{path}.type", f"must be one of {', '.join(TYPES)} (got {kind!r})")
            kind = None
        include = self.boolean(entry, "include_generated", f"{path}.include_generated")
        shares = self.boolean(entry, "share_surplus", f"{path}.share_surplus")
        reference = self.boolean(entry, "reference", f"{path}.reference")
        required = self.boolean(entry, "required", f"{path}.required")
        if reference and source != "files":
            self._err(f"{path}.reference", "applies to files artifacts (`paths:`); a git diff is always read")
        max_raw = self.integer(entry, "max_raw_tokens", f"{path}.max_raw_tokens", None, minimum=1)
        spec = ArtifactSpec(
            name=name or "?",
            budget=budget or MIN_BUDGET,
            source=source,
            diff=diff,
            paths=paths,
            type=kind,
            task=self.string(entry, "task", f"{path}.task", None),
            exclude=self.strings(entry, "exclude", f"{path}.exclude"),
            include_generated=include,
            split=self.choice(entry, "split", f"{path}.split", SPLITS, "none"),
            priority=self.choice(entry, "priority", f"{path}.priority", PRIORITIES, "normal"),
            max_raw_tokens=max_raw,
            tier3=self.choice(entry, "tier3", f"{path}.tier3", (*TIER3_MODES, None), None),
            min_retention=self.optional_number(entry, "min_retention", f"{path}.min_retention"),
            share_surplus=shares,
            reference=reference,
            required=required,
        )
        return spec
