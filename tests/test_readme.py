"""The README opens with the two commands; docs/usage.md documents every config key, subcommand,
option and type; the README and docs/integrations.md say where it runs."""

from __future__ import annotations

import pytest

from ctxguard.config.model import ENTRY_KEYS, TOP_KEYS
from ctxguard.options import TYPES
from tests.conftest import ROOT

ROOT = ROOT
README = (ROOT / "README.md").read_text()
USAGE = (ROOT / "docs/usage.md").read_text()
INTEGRATIONS = (ROOT / "docs/integrations.md").read_text()


@pytest.mark.parametrize("key", sorted(TOP_KEYS | ENTRY_KEYS))
def test_every_config_key_is_documented(key: str) -> None:
    assert f"`{key}`" in USAGE or f"{key}:" in USAGE


@pytest.mark.parametrize(
    "word", ["ctxguard compress", "ctxguard count", "ctxguard bundle", "ctxguard check", "ctxguard init", *TYPES]
)
def test_commands_and_types_are_documented(word: str) -> None:
    assert word in USAGE


def test_readme_opens_with_the_two_commands() -> None:
    block = README.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert block == [
        "pip install . && ctxguard compress examples/artifacts/failing-tests.log --budget 500",
        "pip install '.[test]' && python -m pytest",
    ]
    assert (ROOT / "examples/artifacts/failing-tests.log").is_file()


def _options() -> list[tuple[str, str]]:
    import argparse

    from ctxguard.main import build_parser

    found = []

    def walk(parser: argparse.ArgumentParser, prefix: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{prefix} {name}")
            for option in action.option_strings:
                if option.startswith("--") and option not in ("--help", "--version"):
                    found.append((prefix, option))

    walk(build_parser(), "ctxguard")
    return found


@pytest.mark.parametrize(("command", "option"), _options())
def test_every_command_line_option_is_documented(command: str, option: str) -> None:
    assert f"{option}" in USAGE, f"{command} {option} is not in docs/usage.md"


def test_where_it_runs_is_documented() -> None:
    for word in (
        ".pre-commit-hooks.yaml",
        "action.yml",
        "ctxguard install alias",
        "ctxguard install hook",
        "ctxguard uninstall",
        "examples/demo.py",
        "bench/hook_speed.py",
        "fetch-depth: 0",
    ):
        assert word in README + INTEGRATIONS
