"""`ctxguard check --format`: the same verdict as text, JSON, SARIF 2.1.0 and GitHub annotations."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from ctxguard.main import main
from tests.commands.test_bundle import CONFIG
from tests.generate import log_of
from tests.gitrepo import Repo

LIMITED = CONFIG.replace("total_budget: 6000", "total_budget: 1200")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """A change with a log far over its budget (tests/commands/test_bundle.py's)."""
    r = Repo(tmp_path / "repo")
    r.write(".ctxguard.yaml", CONFIG)
    r.write("app.py", "def main():\n    return 1\n")
    r.commit("initial")
    r.write("reports/unit/run.log", log_of(3000))
    r.write("app.py", "def main():\n    raise SystemExit('boom')\n")
    r.add("app.py")
    return r


# What SARIF 2.1.0 requires of a log (sarif-schema-2.1.0.json's required properties and enums),
# written down for the tests: a log with a version and runs; a run with its tool's driver named;
# a result with a message that has text, a level of the four, locations with physical ones.
SARIF_REQUIRED = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "$schema": {"type": "string", "format": "uri"},
        "runs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["tool"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "version": {"type": "string"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": ["id"],
                                            "properties": {
                                                "id": {"type": "string"},
                                                "shortDescription": {
                                                    "type": "object",
                                                    "required": ["text"],
                                                },
                                                "defaultConfiguration": {
                                                    "type": "object",
                                                    "properties": {
                                                        "level": {"enum": ["none", "note", "warning", "error"]}
                                                    },
                                                },
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["message"],
                            "properties": {
                                "ruleId": {"type": "string"},
                                "ruleIndex": {"type": "integer", "minimum": -1},
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": {
                                    "type": "object",
                                    "anyOf": [{"required": ["text"]}, {"required": ["id"]}],
                                },
                                "locations": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "anyOf": [
                                                    {"required": ["address"]},
                                                    {"required": ["artifactLocation"]},
                                                ],
                                                "properties": {
                                                    "artifactLocation": {
                                                        "type": "object",
                                                        "properties": {
                                                            "uri": {"type": "string", "format": "uri-reference"}
                                                        },
                                                    }
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}


def _failing(repo: Repo) -> None:
    repo.write(".ctxguard.yaml", LIMITED)


def test_sarif_is_a_2_1_0_log_with_a_result_per_failed_policy(
    repo: Repo,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _failing(repo)
    assert main(["check", "--repo", str(repo.path), "--format", "sarif"]) == 1
    log = json.loads(capsys.readouterr().out)
    jsonschema.validate(log, SARIF_REQUIRED, format_checker=jsonschema.FormatChecker())
    run = log["runs"][0]
    assert run["tool"]["driver"]["name"] == "ctxguard"
    results = run["results"]
    assert results and {r["ruleId"] for r in results} == {"ctxguard/truncated"}
    truncated = results[0]
    assert truncated["level"] == "error" and "was truncated" in truncated["message"]["text"]
    assert truncated["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "reports/unit/run.log"
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == ["ctxguard/truncated"] and truncated["ruleIndex"] == 0


def test_sarif_of_a_passing_check_has_no_results_and_exits_0(
    repo: Repo,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", "--repo", str(repo.path), "--format", "sarif"]) == 0
    log = json.loads(capsys.readouterr().out)
    jsonschema.validate(log, SARIF_REQUIRED)
    assert log["runs"][0]["results"] == []


def test_json_and_github_say_the_same_failures(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    _failing(repo)
    repo.write(
        ".ctxguard.yaml",
        CONFIG.replace("total_budget: 6000", "total_budget: 1200").replace(
            "max_raw_tokens: 100000", "max_raw_tokens: 100"
        ),
    )
    assert main(["check", "--repo", str(repo.path), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is False
    rules = {(f["rule"], f["artifact"]) for f in data["failures"]}
    assert ("ctxguard/truncated", "reports/unit/run.log") in rules
    assert any(rule == "ctxguard/max-raw-tokens" for rule, _ in rules)
    assert {r["artifact_name"] for r in data["records"]} >= {"reports/unit/run.log"}
    assert isinstance(data["written_tokens"], int)
    assert main(["check", "--repo", str(repo.path), "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(data["failures"])
    assert all(line.startswith("::error title=ctxguard/") for line in lines)
    assert any(
        "ctxguard/truncated (reports/unit/run.log)::reports/unit/run.log was truncated" in line for line in lines
    )


def test_github_annotations_escape_what_the_runner_reads() -> None:
    from ctxguard.report.findings import as_github
    from ctxguard.report.policy import Finding

    said = as_github([Finding("missing", "a:b,c.log", "line one\nline two 100%")])
    assert said == "::error title=ctxguard/missing (a%3Ab%2Cc.log)::line one%0Aline two 100%25\n"


def test_the_text_form_is_as_before(repo: Repo, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _failing(repo)
    assert main(["check", "--repo", str(repo.path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "ctxguard: check failed: reports/unit/run.log was truncated" in captured.err


def test_the_remedy_names_the_config_file_given(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.write("ci/ctxguard.yaml", LIMITED)
    config = str(repo.path / "ci" / "ctxguard.yaml")
    assert main(["check", "--repo", str(repo.path), "--config", config]) == 1
    err = capsys.readouterr().err
    assert f"raise the artifact's budget (or total_budget) in {config}," in err
