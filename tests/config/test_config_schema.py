"""One truth for the config: the loader (ctxguard.config) and the JSON Schema editors read
(ctxguard/schemas/config.schema.json) give the same verdict on a corpus of configs.

Each config is read by ctxguard's own YAML reader (YAML 1.2 booleans, as editors read it), then
checked by both. The one rule JSON Schema cannot say (names unique across the entries) is its own
test below."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from ctxguard.config.load import parse_config
from ctxguard.config.parse import parse_yaml
from ctxguard.errors import ConfigError
from tests.conftest import ROOT

SCHEMA = json.loads((ROOT / "ctxguard/schemas/config.schema.json").read_text())
GIT = "  - name: diff\n    diff: staged\n    budget: 100\n"
LOGS = "  - name: logs\n    paths: ['logs/*.log']\n    budget: 100\n"


def _config(top: str = "", entries: str = GIT) -> str:
    return f"version: 1\n{top}artifacts:\n{entries}"


VALID = {
    "the smallest": _config(),
    "files": _config(entries=LOGS),
    "paths as one string": _config(entries="  - name: a\n    paths: src/*.py\n    budget: 100\n"),
    "exclude as one string": _config(entries=LOGS + "    exclude: '*.lock'\n"),
    "exclude as a list": _config(entries=LOGS + "    exclude: ['*.lock', 'vendor/**']\n"),
    "a whole float budget": _config(entries="  - name: a\n    diff: staged\n    budget: 100.0\n"),
    "diff: on stays a string": _config(entries="  - name: a\n    diff: on\n    budget: 100\n"),
    "fail_on as a list": _config("fail_on: [truncated, missing]\n"),
    "fail_on joined by commas": _config("fail_on: truncated, over_budget\n"),
    "fail_on never": _config("fail_on: never\n"),
    "git paths filter": _config(entries=GIT + "    paths: ['src/**']\n"),
    "chunks on git": _config("total_budget: 1000\n", GIT + "    split: chunks\n"),
    "reference on files": _config(entries=LOGS + "    reference: true\n"),
    "reference false on git": _config(entries=GIT + "    reference: false\n"),
    "every top-level key": _config(
        "encoding: cl100k_base\ntotal_budget: 5000\ncontext_window: 200000\noutput: .ctxguard/b.json\n"
        "margin: 0.9\ntier2_ratio: 1.5\ntier3: head\nmin_retention: 0.5\nredact: false\n"
    ),
    "every entry key": _config(
        entries=LOGS + "    type: log\n    task: find the failure\n    include_generated: true\n    split: file\n"
        "    priority: high\n    max_raw_tokens: 100000\n    tier3: salient\n    min_retention: 0.2\n"
        "    share_surplus: true\n    required: true\n    line_numbers: false\n    source: files\n"
    ),
}

INVALID = {
    "no artifacts": "version: 1\n",
    "empty artifacts": "version: 1\nartifacts: []\n",
    "version 2": _config().replace("version: 1", "version: 2"),
    "version true": _config().replace("version: 1", "version: true"),
    "a fractional budget": _config(entries="  - name: a\n    diff: staged\n    budget: 100.5\n"),
    "a budget below the least": _config(entries="  - name: a\n    diff: staged\n    budget: 10\n"),
    "a budget as text": _config(entries="  - name: a\n    diff: staged\n    budget: lots\n"),
    "no budget": _config(entries="  - name: a\n    diff: staged\n"),
    "no name": _config(entries="  - diff: staged\n    budget: 100\n"),
    "a blank name": _config(entries="  - name: ' '\n    diff: staged\n    budget: 100\n"),
    "reference on a git entry": _config(entries=GIT + "    reference: true\n"),
    "chunks on files": _config(entries=LOGS + "    split: chunks\n"),
    "files without paths": _config(entries="  - name: a\n    source: files\n    budget: 100\n"),
    "files with no paths listed": _config(entries="  - name: a\n    paths: []\n    budget: 100\n"),
    "never with another policy": _config("fail_on: [never, truncated]\n"),
    "never joined with another": _config("fail_on: never,missing\n"),
    "an unknown policy": _config("fail_on: [truncated, late]\n"),
    "an unknown top-level key": _config("encodng: o200k_base\n"),
    "an unknown entry key": _config(entries=GIT + "    prority: high\n"),
    "an unknown type": _config(entries=LOGS + "    type: yaml\n"),
    "an unknown encoding": _config("encoding: p50k_base\n"),
    "margin over 1": _config("margin: 1.5\n"),
    "a blank output": _config("output: ''\n"),
    "a blank diff": _config(entries="  - name: a\n    diff: ''\n    budget: 100\n"),
    "an empty path": _config(entries="  - name: a\n    paths: ['']\n    budget: 100\n"),
    "a boolean where a list goes": _config(entries="  - name: a\n    paths: true\n    budget: 100\n"),
    "redact as a word": _config("redact: yes\n"),
    "the config a list": "- name: a\n",
}


def _loader(text: str) -> bool:
    try:
        parse_config(text)
    except ConfigError:
        return False
    return True


def _schema(text: str) -> bool:
    data: Any = parse_yaml(text, ".ctxguard.yaml")[0]
    return not list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(data))


@pytest.mark.parametrize("name", VALID)
def test_a_valid_config_passes_the_loader_and_the_schema(name: str) -> None:
    assert (_loader(VALID[name]), _schema(VALID[name])) == (True, True)


@pytest.mark.parametrize("name", INVALID)
def test_an_invalid_config_fails_the_loader_and_the_schema(name: str) -> None:
    assert (_loader(INVALID[name]), _schema(INVALID[name])) == (False, False)


def test_duplicate_names_are_refused_by_the_loader_and_said_in_the_schema() -> None:
    text = _config(entries=GIT + GIT)
    with pytest.raises(ConfigError, match="duplicate"):
        parse_config(text)
    # JSON Schema has no "unique by one field": the schema says it, so an editor shows it.
    assert "unique" in SCHEMA["properties"]["artifacts"]["items"]["properties"]["name"]["description"]
    assert _schema(text)  # (the known gap, and the only one: the corpus above has no other)


def test_the_schema_is_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_the_schemas_name_the_kinds_the_registry_has() -> None:
    """Adding a kind: its package, a registry line, its name in options.KindName; the schemas'
    lists of kinds follow (this test says when they do not)."""
    from ctxguard.kinds.registry import KINDS
    from ctxguard.options import TYPES

    bundle = json.loads((ROOT / "ctxguard/schemas/bundle.schema.json").read_text())
    entry = SCHEMA["properties"]["artifacts"]["items"]["properties"]["type"]["enum"]
    record = bundle["$defs"]["record"]["properties"]["type"]["enum"]
    assert list(KINDS) == list(TYPES) == entry == record
