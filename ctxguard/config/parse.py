"""A config's YAML read safely: plain data with a line for every key path, duplicate keys and
YAML bombs refused (at most MAX_NODES values after aliases, MAX_DEPTH levels, MAX_CONFIG_BYTES)."""

from __future__ import annotations

import re
from typing import Any

import yaml

from ctxguard.errors import ConfigError


class _Loader(yaml.SafeLoader):
    """YAML 1.2-ish booleans: only true/false are booleans, so `no` and `on` stay strings."""


_Loader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


class Errors:
    """Every problem of a config, with its line, raised at once."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.items: list[tuple[int, str]] = []

    def add(self, line: int, path: str, message: str) -> None:
        self.items.append((line, f"{self.source}:{line}: {path}: {message}"))

    def raise_if_any(self) -> None:
        if self.items:
            lines = [text for _, text in sorted(self.items)]
            raise ConfigError(f"{len(lines)} problem(s) in the config:\n  " + "\n  ".join(lines))


MAX_NODES = 20_000  # a config has tens of values; aliases must not expand past this
MAX_DEPTH = 40
MAX_CONFIG_BYTES = 1 << 20


class _Budget:
    """How many values a config may expand to (aliases included): a YAML bomb stops here."""

    def __init__(self, source: str) -> None:
        self.source, self.left = source, MAX_NODES

    def take(self, node: yaml.Node, depth: int) -> None:
        self.left -= 1
        line = node.start_mark.line + 1
        if self.left < 0:
            raise ConfigError(
                f"{self.source}:{line}: the config expands to more than {MAX_NODES:,} values "
                "(aliases that repeat aliases?); write it out plainly"
            )
        if depth > MAX_DEPTH:
            raise ConfigError(f"{self.source}:{line}: the config is nested more than {MAX_DEPTH} levels deep")


def _to_python(
    node: yaml.Node, loader: _Loader, path: str, errors: Errors, lines: dict[str, int], budget: _Budget, depth: int = 0
) -> Any:
    """Convert a YAML node, recording each key path's line and refusing duplicate keys."""
    budget.take(node, depth)
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = str(loader.construct_object(key_node))
            child = f"{path}.{key}" if path else key
            if key in out:
                errors.add(key_node.start_mark.line + 1, child, "duplicate key; each key may appear once")
                continue
            out[key] = _to_python(value_node, loader, child, errors, lines, budget, depth + 1)
            lines[child] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        return [
            _to_python(v, loader, f"{path}[{i}]", errors, lines, budget, depth + 1) for i, v in enumerate(node.value)
        ]
    return loader.construct_object(node)


def parse_yaml(text: str, source: str) -> tuple[Any, dict[str, int], Errors]:
    """YAML text to plain data plus a line number for every key path."""
    errors = Errors(source)
    lines: dict[str, int] = {}
    if len(text) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{source}: the config is {len(text):,} characters; a config is at most {MAX_CONFIG_BYTES:,}")
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = _to_python(node, loader, "", errors, lines, _Budget(source)) if node is not None else None
    except RecursionError:  # the YAML parser itself recurses per level of nesting
        raise ConfigError(f"{source}: the config is nested too deeply to read") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        raise ConfigError(f"{source}:{line}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    finally:
        loader.dispose()
    return data, lines, errors
