"""The docs' tables that restate the code, generated from it so they cannot drift.

    python docs/tables.py          # rewrite every generated table in docs/
    python docs/tables.py --check  # exit 1 when one is stale (tests/test_docs.py runs this)

A generated table sits between `<!-- generated: NAME (python docs/tables.py) -->` and
`<!-- end: NAME -->`; the rest of the file is prose and left alone. Sources:
- `config-keys`: the config's JSON Schema (ctxguard/schemas/config.schema.json, which
  tests/config/test_config_schema.py holds to the loader) and the loader's defaults (ctxguard.config);
- `action-inputs`, `action-outputs`: action.yml;
- `kinds`: what each kind declares (ctxguard/kinds/*: its file names, what it keeps first and
  last).
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _value(spec: dict[str, Any]) -> str:
    """What a schema allows, in a few words."""
    if "enum" in spec:
        return " \\| ".join(f"`{v}`" if v is not None else "`null`" for v in spec["enum"])
    if "const" in spec:
        return f"`{spec['const']}`"
    if "oneOf" in spec:
        kinds = {s.get("type") for s in spec["oneOf"]}
        if kinds == {"string", "array"} and all("enum" not in s for s in spec["oneOf"]):
            return "a string or a list of strings"
        return "one or a list"
    kind = spec.get("type", "")
    bounds = []
    if "minimum" in spec:
        bounds.append(f"≥ {spec['minimum']}")
    if "maximum" in spec:
        bounds.append(f"≤ {spec['maximum']}")
    words = {"integer": "a whole number", "number": "a number", "boolean": "`true` \\| `false`"}
    word = words.get(kind, "a string" if kind == "string" else kind)
    return word + (f" ({', '.join(bounds)})" if bounds else "")


def _default(value: Any) -> str:
    if value is None or value == () or value == "":
        return "—"
    if isinstance(value, tuple):
        return ", ".join(f"`{v}`" for v in value)
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def config_keys() -> str:
    from ctxguard.config.model import ArtifactSpec, Config

    schema = json.loads((ROOT / "ctxguard/schemas/config.schema.json").read_text())
    top = schema["properties"]
    entry = top["artifacts"]["items"]["properties"]
    required = set(schema.get("required", ())) | {f"artifacts[].{k}" for k in top["artifacts"]["items"]["required"]}
    defaults = {f.name: f.default for f in dataclasses.fields(Config) if f.default is not dataclasses.MISSING}
    entry_defaults = {
        f.name: f.default for f in dataclasses.fields(ArtifactSpec) if f.default is not dataclasses.MISSING
    }
    said = {"source": "`files` with paths, else `git`", "diff": "`staged` (git)", "tier3": "the config's"}
    said["min_retention"] = "the config's"
    rows = ["| key | value | default | what it does |", "|---|---|---|---|"]
    for name, spec in top.items():
        if name == "artifacts":
            continue
        shown = "required" if name in required else _default(defaults.get(name))
        rows.append(f"| `{name}` | {_value(spec)} | {shown} | {_cell(spec.get('description', ''))} |")
    rows.append(f"| `artifacts` | a list of entries (below) | required | {_cell(top['artifacts']['description'])} |")
    for name, spec in entry.items():
        key = f"artifacts[].{name}"
        shown = "required" if key in required else said.get(name) or _default(entry_defaults.get(name))
        rows.append(f"| `{key}` | {_value(spec)} | {shown} | {_cell(spec.get('description', ''))} |")
    return "\n".join(rows)


def _action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text())
    return loaded


def action_inputs() -> str:
    rows = ["| input | default | what it does |", "|---|---|---|"]
    for name, spec in _action()["inputs"].items():
        default = str(spec.get("default", ""))
        rows.append(f"| `{name}` | {f'`{default}`' if default else '—'} | {_cell(spec['description'])} |")
    return "\n".join(rows)


def action_outputs() -> str:
    rows = ["| output | what it holds |", "|---|---|"]
    for name, spec in _action()["outputs"].items():
        rows.append(f"| `{name}` | {_cell(spec['description'])} |")
    return "\n".join(rows)


def kinds() -> str:
    from ctxguard.kinds.registry import KINDS

    rows = ["| kind | file names | first | last |", "|---|---|---|---|"]
    for name, kind in KINDS.items():
        names = ", ".join(f"`{suffix}`" for suffix in kind.suffixes)
        told = ", ".join(f"`{suffix}`" for suffix in kind.within)
        names = f"{names}{', ' if names and told else ''}{told + ' holding one' if told else ''}" or "(the rest)"
        rows.append(f"| {name} | {names} | {kind.first} | {kind.last} |")
    return "\n".join(rows)


TABLES: dict[str, tuple[str, Callable[[], str]]] = {
    "kinds": ("docs/kinds.md", kinds),
    "config-keys": ("docs/usage.md", config_keys),
    "action-inputs": ("docs/integrations.md", action_inputs),
    "action-outputs": ("docs/integrations.md", action_outputs),
}


def _block(name: str) -> re.Pattern[str]:
    start = re.escape(f"<!-- generated: {name} (python docs/tables.py) -->")
    return re.compile(f"({start}\n)(.*?)\n?(<!-- end: {re.escape(name)} -->)", re.S)


def stale() -> list[str]:
    """The tables whose text differs from what the code says (or that are missing)."""
    found = []
    for name, (path, make) in TABLES.items():
        match = _block(name).search((ROOT / path).read_text())
        if match is None or match.group(2) != make():
            found.append(f"{path}: {name}")
    return found


def _filled(table: str) -> Callable[[re.Match[str]], str]:
    """The replacement of a generated block: its markers around the table."""
    return lambda match: match.group(1) + table + "\n" + match.group(3)


def write() -> None:
    for name, (path, make) in TABLES.items():
        target = ROOT / path
        text = target.read_text()
        pattern = _block(name)
        if pattern.search(text) is None:
            raise SystemExit(f"{path} has no block for {name}; add its two marker lines")
        table = make()
        target.write_text(pattern.sub(_filled(table), text))


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        old = stale()
        for item in old:
            print(f"stale: {item} (run python docs/tables.py)")
        return 1 if old else 0
    write()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
