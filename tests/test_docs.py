"""The README and docs/: short, their links resolve, their tables are the code's, and every pin
names a commit that has what the snippet uses."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PINNED = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "examples").rglob("*.y*ml")),
]
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_PIN = re.compile(r"(?:ctxguard/ctxguard@|rev: |ctxguard@)([0-9a-f]{40})")


def test_the_readme_is_read_in_five_minutes() -> None:
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 250
    assert len(text.split()) <= 2000


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {_anchor(m) for m in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


BLOB = "https://github.com/ctxguard/ctxguard/blob/main/"


def test_the_readmes_links_work_on_the_package_index_too() -> None:
    """PyPI shows the README without the repository around it: no link of it is relative."""
    text = re.sub(r"```.*?```", "", (ROOT / "README.md").read_text(), flags=re.S)
    relative = [t for t in _LINK.findall(text) if not re.match(r"[a-z]+:", t) and not t.startswith("#")]
    assert not relative and sum(t.startswith(BLOB) for t in _LINK.findall(text)) >= 10


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc: Path) -> None:
    text = re.sub(r"```.*?```", "", doc.read_text(), flags=re.S)
    for target in _LINK.findall(text):
        ours = target.startswith(BLOB)  # (the README's links are absolute: it is the package index's page too)
        if re.match(r"[a-z]+:", target) and not ours:
            continue  # (https:, mailto:)
        path, _, fragment = target.removeprefix(BLOB).partition("#")
        resolved = ((ROOT if ours else doc.parent) / path).resolve() if path else doc
        assert resolved.exists(), f"{doc.name}: {target} does not exist"
        if fragment:
            assert resolved.suffix == ".md", f"{doc.name}: {target}"
            assert fragment in _anchors(resolved), f"{doc.name}: {target}: no such heading"


def test_the_generated_tables_are_current() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "docs/tables.py"), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def _uses(data: Any) -> list[dict[str, Any]]:
    """Every step (or mapping) of a parsed YAML that uses this repository's action."""
    found = []
    if isinstance(data, dict):
        if str(data.get("uses", "")).startswith("ctxguard/ctxguard@"):
            found.append(data)
        for value in data.values():
            found += _uses(value)
    elif isinstance(data, list):
        for value in data:
            found += _uses(value)
    return found


def _yaml_documents(path: Path) -> list[Any]:
    """The YAML a file holds: itself, or a markdown file's yaml blocks that name a pin."""
    if path.suffix in (".yml", ".yaml"):
        return [yaml.safe_load(path.read_text())]
    blocks = re.findall(r"```yaml\n(.*?)```", path.read_text(), flags=re.S)
    return [yaml.safe_load(block) for block in blocks if _PIN.search(block)]


def _git_show(ref: str, path: str) -> str:
    done = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:{path}"], capture_output=True, text=True)
    assert done.returncode == 0, f"{ref} has no {path}: {done.stderr.strip()}"
    return done.stdout


@pytest.mark.parametrize("path", PINNED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_pin_names_a_commit_with_what_its_snippet_uses(path: Path) -> None:
    """A `rev:` or `uses: ctxguard/ctxguard@` names a commit of this repository whose action.yml
    has every input and output the file uses, and whose .pre-commit-hooks.yaml has every hook."""
    text = path.read_text()
    pins = set(_PIN.findall(text))
    if not pins:
        return
    if not (ROOT / ".git").exists():
        pytest.fail("the pins can only be checked in a git checkout")
    outputs = set(re.findall(r"steps\.ctxguard\.outputs\.([\w-]+)", text))
    documents = _yaml_documents(path)
    inputs = {name for doc in documents for step in _uses(doc) for name in step.get("with", {})}
    hooks = {
        hook["id"]
        for doc in documents
        if isinstance(doc, dict)
        for repo in doc.get("repos", [])
        if "ctxguard" in repo.get("repo", "")
        for hook in repo.get("hooks", [])
    }
    hooks |= set(re.findall(r"#\s*- id: (ctxguard[\w-]*)", text))  # (a commented alternative)
    for sha in pins:
        action = yaml.safe_load(_git_show(sha, "action.yml"))
        assert inputs <= set(action["inputs"]), (sha, inputs - set(action["inputs"]))
        assert outputs <= set(action["outputs"]), (sha, outputs - set(action["outputs"]))
        declared = {hook["id"] for hook in yaml.safe_load(_git_show(sha, ".pre-commit-hooks.yaml"))}
        assert hooks <= declared, (sha, hooks - declared)


def test_the_pins_are_the_same_commit_everywhere() -> None:
    pins = {pin for path in PINNED for pin in _PIN.findall(path.read_text())}
    assert len(pins) == 1, pins


def test_the_readme_says_how_to_install_the_push_hook_and_pin_the_newest() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "pre-commit install --hook-type pre-commit --hook-type pre-push" in readme
    assert "pre-commit autoupdate --freeze" in readme


def test_the_readme_quotes_what_its_first_command_prints() -> None:
    from ctxguard.api import compress_file

    record = compress_file(ROOT / "examples/artifacts/failing-tests.log", 500)
    readme = (ROOT / "README.md").read_text()
    assert f"compresses a real pytest log ({record['raw_tokens']} tokens) to a 500-token" in readme
    assert f"in {record['compacted_tokens']} of its {record['raw_tokens']} tokens" in readme
    shown = readme.split("```text\n", 1)[1].split("```", 1)[0]
    for line in shown.splitlines():
        line = line.split("  <- ")[0].rstrip()
        if line and line != "...":
            assert line in record["content"], line


def test_the_examples_table_lists_every_example() -> None:
    readme = (ROOT / "README.md").read_text()
    for path in sorted((ROOT / "examples").rglob("*")):
        if path.is_file() and "artifacts" not in path.parts:
            assert f"`{path.relative_to(ROOT)}`" in readme, path
    assert "`examples/artifacts/`" in readme


def test_there_is_a_license_and_the_metadata_names_it() -> None:
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'license = "MIT"' in pyproject and 'license-files = ["LICENSE"]' in pyproject


_COMMAND_LINE = re.compile(r"(?<![\w/.-])ctxguard ([a-z][a-z-]*)((?: +[^\s`|#;&)\]]+)*)")


def _named_in_docs(subcommands: set[str]) -> dict[tuple[str, ...], set[str]]:
    """Each subcommand the README and docs/*.md show a user (with its own subcommand, as in
    `install alias`), with the flags they give it."""
    named: dict[tuple[str, ...], set[str]] = {}
    for doc in (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))):
        for sub, rest in _COMMAND_LINE.findall(doc.read_text()):
            if sub in subcommands:
                inner = re.match(r" +(alias|hook)\b", rest)  # (`install` and `uninstall` take what)
                key = (sub, inner.group(1)) if inner else (sub,)
                named.setdefault(key, set()).update(re.findall(r"(?<!\S)(--[a-z][a-z0-9-]*)", rest))
    return named


def test_every_subcommand_and_flag_the_docs_name_exists_at_the_pinned_commit(tmp_path: Path) -> None:
    """The README pins a commit; what its docs tell a user to run must be there (read from the
    git history: the pinned tree's own `--help`)."""
    from ctxguard.main import build_parser

    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]  # noqa: SLF001
    named = _named_in_docs(set(actions[0].choices))
    assert {("bundle",), ("check",), ("compress",), ("show",), ("mcp",), ("install", "alias")} <= set(named)
    if not (ROOT / ".git").exists():
        pytest.fail("the pins can only be checked in a git checkout")
    (pin,) = {pin for path in PINNED for pin in _PIN.findall(path.read_text())}
    tree = tmp_path / "pinned"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", pin, "ctxguard"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    for sub, flags in sorted(named.items()):
        done = subprocess.run(
            [sys.executable, "-m", "ctxguard", *sub, "--help"], capture_output=True, text=True, env=env, cwd=tmp_path
        )
        said = " ".join(sub)
        assert done.returncode == 0, f"{pin} has no `ctxguard {said}`: {done.stderr.strip()[-300:]}"
        missing = {flag for flag in flags if flag not in done.stdout}
        assert not missing, f"the docs give `ctxguard {said}` {sorted(missing)}, which {pin[:7]} does not have"
    extras = set(re.findall(r"ctxguard-review\[(\w+)\]", "".join(p.read_text() for p in (ROOT / "docs").glob("*.md"))))
    pinned = _git_show(pin, "pyproject.toml")
    assert all(re.search(rf"^{extra} = \[", pinned, re.M) for extra in extras), extras
