from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from ctxguard.commands.init import STARTER
from ctxguard.config.load import default_config, load_config, parse_config
from ctxguard.errors import ConfigError
from tests.conftest import ROOT

SCHEMA = json.loads((ROOT / "ctxguard/schemas/config.schema.json").read_text())


def test_starter_config_is_the_defaults_and_valid_for_loader_and_schema() -> None:
    config = parse_config(STARTER)
    assert [a.name for a in config.artifacts] == ["diff"]
    assert config.artifacts[0].source == "git" and config.artifacts[0].diff == "staged"
    assert config.artifacts == default_config().artifacts and config.fail_on == default_config().fail_on
    assert config.total_budget == default_config().total_budget == 30000
    jsonschema.validate(yaml.safe_load(STARTER), SCHEMA)
    examples = "\n".join(line.replace("# ", "", 1) for line in STARTER.splitlines() if line.startswith("  # "))
    uncommented = parse_config(STARTER.split("  #   task")[0] + examples)
    assert [a.name for a in uncommented.artifacts] == ["diff", "test-logs", "plan"]  # the examples are valid too


def _errors(text: str) -> str:
    with pytest.raises(ConfigError) as exc:
        parse_config(text)
    return str(exc.value)


def test_every_error_reported_at_once_with_path_and_line() -> None:
    message = _errors(
        "version: 1\n"
        "encodng: o200k_base\n"
        "artifacts:\n"
        "  - name: diff\n"
        "    budget: 10\n"
        "    prority: high\n"
        "  - name: logs\n"
        "    paths: [a.log]\n"
        "    budget: lots\n"
    )
    assert "3 problem(s)" not in message  # there are four
    assert ".ctxguard.yaml:2: encodng: unknown key; did you mean 'encoding'?" in message
    assert ".ctxguard.yaml:5: artifacts[0].budget: must be at least 32 (got 10)" in message
    assert ".ctxguard.yaml:6: artifacts[0].prority: unknown key; did you mean 'priority'?" in message
    assert ".ctxguard.yaml:9: artifacts[1].budget: must be a whole number (got 'lots')" in message
    assert "4 problem(s)" in message


def test_duplicate_keys_are_errors() -> None:
    message = _errors("artifacts:\n  - name: a\n    budget: 100\n    budget: 200\n")
    assert ":4: artifacts[0].budget: duplicate key" in message


def test_no_and_on_stay_strings() -> None:
    config = parse_config("artifacts:\n  - name: no\n    source: git\n    diff: on\n    budget: 100\n")
    assert config.artifacts[0].name == "no" and config.artifacts[0].diff == "on"


def test_yaml_syntax_error_has_a_line() -> None:
    assert ".ctxguard.yaml:3: not valid YAML" in _errors("artifacts:\n  - name: [a\n")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[]", "must be a mapping"),
        ("version: 1\n", "artifacts: must be a non-empty list"),
        ("artifacts:\n  - name: x\n    source: files\n    budget: 100\n", "needs `paths`"),
        (
            "artifacts:\n  - name: x\n    paths: [a]\n    budget: 100\n    type: yaml\n",
            "artifacts[0].type: must be one of",
        ),
        (
            "margin: 2\nartifacts:\n  - {name: x, paths: [a], budget: 100}\n",
            "margin: must be a number from 0.05 to 1.0",
        ),
        (
            "fail_on: always\nartifacts:\n  - {name: x, paths: [a], budget: 100}\n",
            "fail_on: must be one of truncated, over_budget, missing, never, or a list of them (got 'always')",
        ),
        (
            "artifacts:\n  - {name: x, paths: [a], budget: 100}\n  - {name: x, paths: [b], budget: 100}\n",
            "duplicate artifact name 'x'",
        ),
        (
            "artifacts:\n  - {name: x, budget: 100, include_generated: yes}\n",
            "include_generated: must be true or false",
        ),
    ],
)
def test_config_errors(text: str, expected: str) -> None:
    assert expected in _errors(text)


def test_missing_config_says_how_to_create_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ctxguard init"):
        load_config(tmp_path / ".ctxguard.yaml")


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ("version: 1\nartifacts: []\n".encode("utf-16"), "the config is UTF-16 (or holds NUL bytes); save it as UTF-8"),
        (b"version: 1\n# caf\xe9\nartifacts: []\n", ":2: the config is not UTF-8 (byte 0xe9 on line 2)"),
    ],
)
def test_a_config_in_another_encoding_says_its_line_and_to_save_it_as_utf8(
    tmp_path: Path, data: bytes, said: str
) -> None:
    path = tmp_path / ".ctxguard.yaml"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as exc:
        load_config(path)
    assert said in str(exc.value) and "save it as UTF-8" in str(exc.value)
    assert "codec" not in str(exc.value) and "position" not in str(exc.value)


def test_a_utf8_config_with_a_byte_order_mark_loads(tmp_path: Path) -> None:
    path = tmp_path / ".ctxguard.yaml"
    path.write_bytes(b"\xef\xbb\xbfversion: 1\nartifacts:\n  - name: diff\n    budget: 100\n")
    assert load_config(path).artifacts[0].name == "diff"


def test_the_review_task_is_the_command_lines_else_the_one_every_entry_shares() -> None:
    from dataclasses import replace

    from ctxguard.config.model import ArtifactSpec, Config

    plan = ArtifactSpec(name="plan", budget=500, source="files", paths=("PLAN.md",), task="check the plan")
    change = ArtifactSpec(name="change", budget=500, source="git", diff="staged", task="check the plan")
    shared = Config(artifacts=(plan, change))
    assert shared.review_task() == "check the plan"
    mixed = Config(artifacts=(plan, replace(change, task="review the handlers")))
    assert mixed.review_task() is None  # (no one task: each record says its own)
    # A task given on the command line (--task, or --task-from-pr's pull request) is the bundle's,
    # whatever the entries say.
    assert replace(mixed, task="fix the retry loop").review_task() == "fix the retry loop"
