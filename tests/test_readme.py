"""The README documents every config key, subcommand and type, and opens with the two commands."""
from __future__ import annotations

from pathlib import Path

import pytest

from ctxguard.classify import TYPES
from ctxguard.config import _ENTRY, _TOP

README = (Path(__file__).parent.parent / "README.md").read_text()


@pytest.mark.parametrize("key", sorted(_TOP | _ENTRY))
def test_every_config_key_is_documented(key: str) -> None:
    assert f"`{key}`" in README or f"{key}:" in README


@pytest.mark.parametrize("word", ["ctxguard compress", "ctxguard count", "ctxguard bundle", "ctxguard check", "ctxguard init", *TYPES])
def test_commands_and_types_are_documented(word: str) -> None:
    assert word in README


def test_readme_opens_with_the_two_commands() -> None:
    block = README.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert block == [
        "pip install . && ctxguard compress examples/artifacts/failing-tests.log --budget 500",
        "pip install '.[test]' && python -m pytest",
    ]
    assert (Path(__file__).parent.parent / "examples/artifacts/failing-tests.log").is_file()
