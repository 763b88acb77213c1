"""One way through the config: a file's text (UTF-8, at most MAX_CONFIG_BYTES) -> its YAML
(ctxguard.config.parse) -> each value checked (ctxguard.config.check) -> a frozen Config
(ctxguard.config.model); every problem reported at once, each with its line."""

from __future__ import annotations

from pathlib import Path

from ctxguard.config.check import Validator
from ctxguard.config.model import CONFIG_NAME, CONTEXT_WINDOW, TOP_KEYS, ArtifactSpec, Config
from ctxguard.config.parse import MAX_CONFIG_BYTES, parse_yaml
from ctxguard.errors import ConfigError
from ctxguard.options import MIN_BUDGET, TIER2_RATIO, TIER3_MODES
from ctxguard.read import not_regular
from ctxguard.tokens.base import DEFAULT_ENCODING, ENCODINGS

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


def load_config(path: str | Path) -> Config:
    """Read and validate a config file; ConfigError lists every problem with its line."""
    p = Path(path)

    problem = not_regular(p) if p.exists() else None
    if problem is not None:
        raise ConfigError(f"cannot read config: {problem}")
    if p.exists() and p.stat().st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: the config is {p.stat().st_size:,} bytes; a config is at most {MAX_CONFIG_BYTES:,}")
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"no config at {path}; create one with `ctxguard init`") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror or exc}") from None
    return parse_config(_utf8(data, str(path)), str(path))


def _utf8(data: bytes, source: str) -> str:
    """The config's text; a file in another encoding is refused at its first bad line."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in data[:200]:
        raise ConfigError(f"{source}: the config is UTF-16 (or holds NUL bytes); save it as UTF-8")
    try:
        return data.decode("utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"{source}:{line}: the config is not UTF-8 (byte 0x{data[exc.start]:02x} on line {line}); save it as UTF-8"
        ) from None


def parse_config(text: str, source: str = CONFIG_NAME) -> Config:
    """Validate config text; ConfigError lists every problem with its key path and line."""
    data, lines, errors = parse_yaml(text, source)
    if not isinstance(data, dict):
        raise ConfigError(f"{source}:1: the config must be a mapping with an `artifacts:` list")
    v = Validator(errors, lines)
    v.unknown_keys(data, TOP_KEYS, "")
    version = v.choice(data, "version", "version", (1,), 1)
    encoding = v.choice(data, "encoding", "encoding", ENCODINGS, DEFAULT_ENCODING)
    total = v.integer(data, "total_budget", "total_budget", None, minimum=MIN_BUDGET)
    window = v.integer(data, "context_window", "context_window", CONTEXT_WINDOW, minimum=1000) or CONTEXT_WINDOW
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
    chunked = [i for i, spec in enumerate(specs) if spec.split == "chunks"]
    for i in chunked[1:]:
        where = f"artifacts[{i}].split"
        errors.add(lines.get(where, 1), where, "only one entry may have split: chunks")
    if chunked and total is None:
        where = f"artifacts[{chunked[0]}].split"
        errors.add(lines.get(where, 1), where, "split: chunks needs a total_budget (each chunk's bundle keeps to it)")
    errors.raise_if_any()
    return Config(
        artifacts=tuple(specs),
        version=version,
        encoding=encoding,
        total_budget=total,
        context_window=window,
        output=output,
        margin=margin,
        fail_on=fail_on,
        tier2_ratio=ratio,
        tier3=tier3,
        min_retention=min_retention,
        redact=redact,
        path=source,
    )
