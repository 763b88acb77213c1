"""SARIF read as SARIF: told by name and content, results first by level and rarity, each with its
rule, place and message; the rules' metadata only for rules with results."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctxguard.api import compress_text
from ctxguard.kinds.classify import classify
from ctxguard.kinds.sarif.model import read


def _result(rule: str, message: str, uri: str, line: int, level: str | None = "error", **more: Any) -> dict[str, Any]:
    found: dict[str, Any] = {
        "ruleId": rule,
        "message": {"text": message},
        "locations": [
            {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": line, "startColumn": 5}}}
        ],
        "fixes": [{"description": {"text": "a fix"}, "artifactChanges": [{"artifactLocation": {"uri": uri}}]}],
        **more,
    }
    if level is not None:
        found["level"] = level
    return found


def _log(noise: int = 300, faults: tuple[tuple[str, str, str, int], ...] = ()) -> str:
    """A linter's SARIF log: `noise` results of one standing rule, the `faults` among them."""
    results = [
        _result("E501", f"Line too long ({120 + i % 30} > 120)", f"src/mod{i % 17}.py", 10 + i) for i in range(noise)
    ]
    for k, (rule, message, uri, line) in enumerate(faults):
        results.insert(37 * (k + 1), _result(rule, message, uri, line))
    rules = [
        {
            "id": rule,
            "name": rule.lower(),
            "shortDescription": {"text": f"short description of {rule}"},
            "fullDescription": {"text": "a long help text " * 40},
            "help": {"text": "more help " * 40},
            "properties": {"tags": ["style"]},
        }
        for rule in ("E501", "F821", "B006", "UP035", *(f"X{i}" for i in range(60)))
    ]
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "ruff", "version": "0.17.6", "rules": rules}}, "results": results}],
    }
    return json.dumps(log, indent=2)


FAULTS = (
    ("F821", "Undefined name `factroy`", "src/factory.py", 212),
    ("B006", "Do not use mutable data structures for argument defaults", "src/cache.py", 40),
    ("UP035", "Import from `collections.abc` instead: `Mapping`", "src/types.py", 3),
)


@pytest.mark.parametrize("share", [0.2, 0.1, 0.05, 0.02])
def test_three_new_results_among_300_survive_small_budgets(share: float) -> None:
    """The issue's case: a linter's SARIF with three injected faults among hundreds of standing
    results; none of the three survived as generic JSON at 20 %."""
    text = _log(faults=FAULTS)
    raw = compress_text(text, 10**6, name="ruff.sarif")["raw_tokens"]
    record = compress_text(text, int(raw * share), name="ruff.sarif")
    assert record["type"] == "sarif" and record["compacted_tokens"] <= int(raw * share)
    for rule, message, uri, line in FAULTS:
        assert f"error {rule} {uri}:{line}:5: {message}" in record["content"], (share, rule)
    assert "SARIF log: ruff 0.17.6: 303 results (303 error)\n" in record["content"]


def test_levels_order_the_results_and_the_rules_shown_are_those_with_results() -> None:
    log = {
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "semgrep",
                        "semanticVersion": "1.90.0",
                        "rules": [
                            {"id": "r.note", "shortDescription": {"text": "a note rule"}},
                            {
                                "id": "r.warn",
                                "defaultConfiguration": {"level": "warning"},
                                "shortDescription": {"text": "warns"},
                            },
                            {
                                "id": "r.err",
                                "shortDescription": {"text": "an error rule"},
                                "messageStrings": {"default": {"text": "Tainted {0} reaches {1}"}},
                            },
                            {"id": "r.unused", "shortDescription": {"text": "never fires"}},
                        ],
                    }
                },
                "results": [
                    _result("r.note", "a note", "a.py", 1, level="note"),
                    _result("r.warn", "a warning by default", "b.py", 2, level=None),
                    {"ruleIndex": 2, "message": {"id": "default", "arguments": ["input", "eval"]}, "level": "error"},
                ],
            }
        ],
    }
    text = json.dumps(log)
    doc = read(text)
    assert doc.runs is not None and [r.level for r in doc.runs[0].results] == ["note", "warning", "error"]
    rendered = compress_text(text * 1, 60, name="scan.sarif", artifact_type="sarif")
    content = compress_text(text, max(32, rendered["raw_tokens"] // 2 + 40), name="scan.sarif")["content"]
    lines = content.splitlines()
    assert lines[0] == "error r.err: Tainted input reaches eval"  # (rules as rare: error first)
    assert lines[1] == "warning r.warn b.py:2:5: a warning by default" and lines[2].startswith("note r.note a.py:1:5")
    assert lines[3] == "SARIF log: semgrep 1.90.0: 3 results (1 error, 1 warning, 1 note)"
    assert "never fires" not in content and "a fix" not in content


@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        ("scan.sarif", _log(3), "sarif"),
        ("results.sarif.json", _log(3), "sarif"),  # (a .json file holding a SARIF log)
        ("package.json", '{"name": "x", "version": "2.1.0"}', "json"),
        ("codeql", _log(3), "sarif"),  # (no suffix: the content)
    ],
)
def test_told_by_suffix_and_content(name: str, text: str, kind: str) -> None:
    assert classify(name, text) == kind


def test_a_sarif_file_that_does_not_parse_is_read_as_json_or_text_with_a_note() -> None:
    record = compress_text('{"runs": [', 40, name="broken.sarif")
    assert record["type"] == "sarif" and any("not a SARIF log" in note for note in record["notes"])


def test_a_tier_2_cut_keeps_every_error_result() -> None:
    from ctxguard.engine.tiers import compress
    from ctxguard.tokens.load import get_tokenizer

    tokenizer = get_tokenizer()
    text = _log(noise=20, faults=FAULTS)
    raw = tokenizer.count(text)
    record = compress(text, int(raw / 1.4), tokenizer=tokenizer, name="x.sarif")
    assert record.tier == 2 and not record.truncated
    assert sum(line.startswith("error ") for line in record.content.splitlines()) == 23


def test_a_name_that_does_not_resolve_comes_before_rarer_rules_whatever_its_level() -> None:
    """flake8's SARIF calls pyflakes' `undefined name` a warning and pycodestyle's findings
    errors; a result whose message marks a fresh mistake (a name that does not resolve, a typo)
    is taken first all the same, before rules with fewer results; `unable to detect undefined
    names` (a star import) is not one."""
    rare = [_result(f"X{i}", f"style finding number {i}", f"src/s{i}.py", 3) for i in range(30)]
    star = [_result("F403", "'from .x import *' used; unable to detect undefined names", "src/__init__.py", 1)]
    undefined = [
        _result("F821", "undefined name 'factroy'", "src/factory.py", 67, level="warning"),
        _result("F821", "undefined name 'sequence'", "src/seq.py", 765, level="warning"),
    ]
    log = {
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "flake8"}}, "results": rare + star + undefined}],
    }
    text = json.dumps(log, indent=2)
    content = compress_text(text, 90, name="flake8.sarif")["content"]
    assert "warning F821 src/factory.py:67:5: undefined name 'factroy'\n" in content
    assert "warning F821 src/seq.py:765:5: undefined name 'sequence'\n" in content
    assert content.index("F821") < content.index("X0") if "X0" in content else True
    assert "F403" not in content


@pytest.mark.parametrize(
    ("message", "is_fresh"),
    [
        ("undefined name 'factroy'", True),  # flake8
        ("Undefined name `sequence`", True),  # ruff
        ('Name "factroy" is not defined; did you mean "factory"?', True),  # mypy
        ('"str" has no attribute "joins"; maybe "join"?', True),  # mypy, a typo
        ("‘delt’ undeclared (first use in this function); did you mean ‘delta’?", True),  # gcc
        ("cannot find value `x` in this scope", True),  # rustc
        ("Cannot find name 'foo'.", True),  # tsc
        ("undefined: parseAmount", True),  # go
        ("'from .x import *' used; unable to detect undefined names", False),  # a star import
        ("'compose' may be undefined, or defined from star imports", False),
        ("Line too long (131 > 120)", False),
        ("Function is missing a return type annotation", False),
        ("connection refused, maybe a network problem", False),
    ],
)
def test_what_marks_a_fresh_mistake(message: str, is_fresh: bool) -> None:
    from ctxguard.kinds.mistakes import fresh

    assert fresh(message) is is_fresh
