"""The checks of a config's values: each with its key path and line, every problem reported
at once (ctxguard.config_yaml.Errors), and entries read into ArtifactSpec."""

from __future__ import annotations

import difflib
from typing import Any

from ctxguard.config.model import ENTRY_KEYS, PRIORITIES, RUN_JOBS, SOURCES, SPLITS, ArtifactSpec, parse_fail_on
from ctxguard.config.parse import Errors
from ctxguard.options import MIN_BUDGET, TIER3_MODES, TYPES


class Validator:
    """Reads values out of a config's data, recording each problem where it stands."""

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
        if isinstance(value, bool) or value not in options:  # (True == 1 in Python, not in a config)
            self._err(path, f"must be one of {', '.join(map(str, options))} (got {value!r})")
            return default
        return value

    def integer(self, data: dict[str, Any], key: str, path: str, default: int | None, *, minimum: int) -> int | None:
        value = data.get(key, default)
        if value is None:
            return None
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # (100.0 is a whole number, as JSON Schema's integer says)
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
        self.unknown_keys(entry, ENTRY_KEYS, path)
        name = self.string(entry, "name", f"{path}.name", None)
        if name is None:
            self._err(path, "missing `name`")
        budget = self.integer(entry, "budget", f"{path}.budget", None, minimum=MIN_BUDGET)
        if budget is None and "budget" not in entry:
            self._err(path, "missing `budget` (tokens for this artifact)")
        source = self.choice(entry, "source", f"{path}.source", SOURCES, "files" if "paths" in entry else "git")
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
        numbers = self.boolean(entry, "line_numbers", f"{path}.line_numbers")
        if source == "github-run" and paths:
            self._err(f"{path}.paths", "a github-run artifact reads a workflow run's jobs, not paths")
        if entry.get("split") == "chunks" and source != "git":
            self._err(f"{path}.split", "chunks applies to a git diff: its files are grouped into bundles")
        if reference and source != "files":
            self._err(f"{path}.reference", "applies to files artifacts (`paths:`); a git diff is always read")
        for key in ("run", "jobs"):
            if key in entry and source != "github-run":
                self._err(f"{path}.{key}", "applies to a github-run artifact (`source: github-run`)")
        run = entry.get("run")
        if run is not None and not (isinstance(run, int) and not isinstance(run, bool) and run > 0) and run != "auto":
            if not (isinstance(run, str) and run.isdigit()):
                self._err(f"{path}.run", f"must be auto or a run id (digits) (got {run!r})")
                run = None
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
            line_numbers=numbers,
            run=str(run) if run is not None else None,
            jobs=self.choice(entry, "jobs", f"{path}.jobs", RUN_JOBS, "failed"),
        )
        return spec
