"""action.yml: valid against GitHub's published schema, inputs wired through env, and its
bundle step run for real with a simulated runner environment against a temporary repository."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tests.generate import log_of
from tests.gitrepo import Repo

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def test_action_validates_against_the_github_actions_schema() -> None:
    tool = shutil.which("check-jsonschema")
    assert tool, "check-jsonschema is part of the test extra"
    done = subprocess.run(
        [tool, "--builtin-schema", "vendor.github-actions", str(ROOT / "action.yml")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_input_used_is_declared_and_every_declared_input_is_used() -> None:
    text = (ROOT / "action.yml").read_text()
    used = set(re.findall(r"inputs\.([A-Za-z0-9_-]+)", text))
    assert used == set(ACTION["inputs"])


def test_inputs_reach_scripts_only_through_env() -> None:
    # `${{ }}` pasted into a run line is a script-injection hole; env: is the safe way.
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            assert not EXPRESSION.search(step["run"]), step["name"]
            assert step["shell"] == "bash"


def test_python_setup_leaves_the_users_python_alone() -> None:
    setup = next(s for s in ACTION["runs"]["steps"] if s.get("uses", "").startswith("actions/setup-python"))
    assert setup["with"]["update-environment"] is False


def _outputs(path: Path) -> dict[str, str]:
    """Parse $GITHUB_OUTPUT (`key<<DELIM` blocks and `key=value` lines)."""
    lines, out, i = path.read_text().splitlines(), {}, 0
    while i < len(lines):
        if "<<" in lines[i]:
            key, delimiter = lines[i].split("<<", 1)
            end = lines.index(delimiter, i + 1)
            out[key] = "\n".join(lines[i + 1 : end])
            i = end + 1
        else:
            key, value = lines[i].split("=", 1)
            out[key] = value
            i += 1
    return out


def _run_bundle_step(
    repo: Repo, tmp_path: Path, event: dict[str, Any], event_name: str = "pull_request", **with_: str
) -> subprocess.CompletedProcess[str]:
    """Run the action's bundle step exactly as written, with the runner's files simulated."""
    step = next(s for s in ACTION["runs"]["steps"] if s.get("id") == "bundle")
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    inputs.update(with_)
    ctxguard = shutil.which("ctxguard")
    assert ctxguard, "ctxguard must be installed (the README's test command installs it)"
    context = {f"inputs.{k}": v for k, v in inputs.items()}
    context["steps.install.outputs.ctxguard"] = ctxguard
    context["runner.temp"] = str(tmp_path / "runner-temp")

    def evaluate(match: re.Match[str]) -> str:
        return context[match.group(1)]  # an unknown expression fails the test with KeyError

    env = {name: EXPRESSION.sub(evaluate, str(value)) for name, value in step["env"].items()}
    (tmp_path / "event.json").write_text(json.dumps(event))
    for name in ("output", "summary"):
        (tmp_path / name).write_text("")
    script = tmp_path / "step.sh"
    script.write_text(step["run"])
    # No TIKTOKEN_CACHE_DIR: the encoding files come with the package.
    runner = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"}
    full_env = {
        **runner,
        **env,
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_ACTIONS": "true",
        "GITHUB_SHA": "HEAD",
    }
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=repo.path,
        env=full_env,
        capture_output=True,
        text=True,
    )


CONFIG = """\
version: 1
fail_on: never
artifacts:
  - name: diff
    diff: staged
    budget: 400
  - name: logs
    paths: ["reports/*.log"]
    type: log
    budget: 300
"""


@pytest.fixture
def pull_request(tmp_path: Path) -> tuple[Repo, dict[str, Any]]:
    repo = Repo(tmp_path / "repo")
    repo.write(".ctxguard.yaml", CONFIG)
    repo.write("app.py", "def main():\n    return 1\n")
    base = repo.commit("base")
    repo.git.git.checkout("-q", "-b", "feature")
    repo.write("app.py", "".join(f"def handler_{i}(request):\n    return {i}\n\n" for i in range(200)))
    repo.write("reports/test.log", log_of(2000))
    head = repo.commit("feature")
    # What actions/checkout leaves on pull_request: the merge commit checked out, not the head.
    repo.git.git.checkout("-q", "main")
    repo.write("README", "main moved on\n")
    repo.commit("main moves")
    repo.git.git.merge("-q", "--no-ff", "-m", "merge", "feature")
    event = {"pull_request": {"base": {"sha": base}, "head": {"sha": head}}}
    return repo, event


def test_action_bundle_step_on_a_pull_request(pull_request: tuple[Repo, dict[str, Any]], tmp_path: Path) -> None:
    repo, event = pull_request
    before = repo.snapshot()
    done = _run_bundle_step(repo, tmp_path, event)
    assert done.returncode == 0, done.stderr
    assert repo.snapshot() == before
    outputs = _outputs(tmp_path / "output")
    bundle = json.loads(Path(outputs["bundle-path"]).read_text())
    base, head = event["pull_request"]["base"]["sha"], event["pull_request"]["head"]["sha"]
    assert bundle["encoding"] == "o200k_base"  # exact, from the files shipped in the package
    assert bundle["source"]["diff"] == f"{base}...{head}"  # the PR range, not the merge commit
    diff = bundle["artifacts"][0]
    assert diff["truncated"] and diff["compacted_tokens"] <= 400
    assert outputs["artifacts"] == "2"
    assert outputs["truncated"] == str(bundle["totals"]["truncated"]) == "2"
    assert outputs["total-tokens"] == str(bundle["totals"]["bundle_tokens"])
    assert outputs["level"] == bundle["usage"]["level"]
    prompt = Path(outputs["prompt-path"]).read_text()
    assert prompt.startswith("# Material to review") and "## Coverage" in prompt and "## Digest" in prompt
    summary = (tmp_path / "summary").read_text()
    assert "| artifact | type | tier |" in summary and "`diff`" in summary and "`reports/test.log`" in summary
    warnings = [line for line in done.stdout.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 2 and "diff was truncated" in warnings[0]


def test_action_inputs_override_and_fail_on_fails_the_step(
    pull_request: tuple[Repo, dict[str, Any]], tmp_path: Path
) -> None:
    repo, event = pull_request
    base = event["pull_request"]["base"]["sha"]
    done = _run_bundle_step(
        repo,
        tmp_path,
        event,
        **{
            "fail-on": "truncated",
            "format": "markdown",
            "output": "out/bundle.md",
            "base": base,
            "head": "HEAD",
            "encoding": "cl100k_base",
            "total-budget": "600",
        },
    )
    assert done.returncode == 1  # the policy failed; the outputs are still written
    assert "check failed: diff was truncated" in done.stderr
    outputs = _outputs(tmp_path / "output")
    assert outputs["bundle-path"] == "out/bundle.md"
    text = (repo.path / "out/bundle.md").read_text()
    assert text.startswith("# ctxguard bundle") and f"base `{base[:12]}`" in text and "(cl100k_base)" in text


def test_a_hostile_input_stays_data(pull_request: tuple[Repo, dict[str, Any]], tmp_path: Path) -> None:
    repo, event = pull_request
    done = _run_bundle_step(repo, tmp_path, event, config='x"; touch pwned; echo "')
    assert done.returncode == 2 and "no config at" in done.stderr
    assert not (repo.path / "pwned").exists()


@pytest.mark.parametrize("event_name", ["push", "workflow_dispatch", "schedule"])
def test_events_without_a_range_diff_the_branch_against_main(
    pull_request: tuple[Repo, dict[str, Any]], tmp_path: Path, event_name: str
) -> None:
    repo, _ = pull_request
    repo.git.git.checkout("-q", "feature")  # (merged into main already: one more commit)
    repo.write("newer.py", "def newer():\n    raise ValueError('not yet')\n")
    head = repo.commit("newer")
    event = {"before": "0" * 40, "after": head} if event_name == "push" else {}  # a new branch's push
    done = _run_bundle_step(repo, tmp_path, event, event_name)
    assert done.returncode == 0, done.stderr
    bundle = json.loads(Path(_outputs(tmp_path / "output")["bundle-path"]).read_text())
    diff = bundle["artifacts"][0]
    assert "+def newer():" in diff["content"] and "handler_0" not in diff["content"]
    assert any("against the merge base with main" in note for note in diff["notes"])


def test_a_push_with_a_range_diffs_it(pull_request: tuple[Repo, dict[str, Any]], tmp_path: Path) -> None:
    repo, event = pull_request
    before, after = event["pull_request"]["base"]["sha"], event["pull_request"]["head"]["sha"]
    done = _run_bundle_step(repo, tmp_path, {"before": before, "after": after}, "push")
    assert done.returncode == 0, done.stderr
    bundle = json.loads(Path(_outputs(tmp_path / "output")["bundle-path"]).read_text())
    assert bundle["source"]["diff"] == f"{before}...{after}"


def test_a_shallow_checkout_says_to_fetch_the_history(
    pull_request: tuple[Repo, dict[str, Any]], tmp_path: Path
) -> None:
    repo, event = pull_request
    clone = Repo.__new__(Repo)
    clone.path = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.path}", str(clone.path)], check=True)
    done = _run_bundle_step(clone, tmp_path, event)
    assert done.returncode == 2
    assert "shallow clone" in done.stderr and "fetch-depth: 0" in done.stderr


def test_the_comment_step_updates_its_own_comment_or_creates_one(
    pull_request: tuple[Repo, dict[str, Any]], tmp_path: Path
) -> None:
    repo, event = pull_request
    assert _run_bundle_step(repo, tmp_path, event).returncode == 0
    body = tmp_path / "runner-temp" / "ctxguard-comment.md"
    assert body.read_text().startswith("<!-- ctxguard -->\n### ctxguard bundle\n\n**Check passed.**")
    step = next(s for s in ACTION["runs"]["steps"] if s.get("id") == "comment")
    # A stand-in for the runner's gh: it logs its arguments and answers the search for our comment.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(
        '#!/bin/sh\necho "$@" >> "$GH_LOG"\n[ "$1 $2" = "api user" ] && exit 1\n'
        'case "$*" in *--method*) [ -n "$REFUSE" ] && exit 1;; esac\n'
        'case "$*" in *--jq*) echo "$FOUND";; esac\n'
    )
    (bin_dir / "gh").chmod(0o755)
    env = {
        "GH_TOKEN": "t",
        "REPOSITORY": "o/r",
        "PULL": "7",
        "COMMENT_FILE": str(body),
        "GH_LOG": str(tmp_path / "gh.log"),
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
    }
    assert set(step["env"]) == {"GH_TOKEN", "REPOSITORY", "PULL", "COMMENT_FILE"}
    for found, expected in (
        ("42", f"api --method PATCH repos/o/r/issues/comments/42 -F body=@{body}"),
        ("", f"api --method POST repos/o/r/issues/7/comments -F body=@{body}"),
    ):
        (tmp_path / "gh.log").write_text("")
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            env={**os.environ, **env, "FOUND": found},
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        calls = (tmp_path / "gh.log").read_text().splitlines()
        assert calls[0] == "api user --jq .login"  # (a GITHUB_TOKEN has no user: github-actions[bot])
        assert calls[1].startswith("api --paginate repos/o/r/issues/7/comments --jq")
        assert "github-actions[bot]" in calls[1] and "startswith" in calls[1]  # marker and author
        assert calls[2:] == [expected]
    # A fork's token may not write: the step warns and passes, the job's outcome is the check's.
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        env={**os.environ, **env, "FOUND": "", "REFUSE": "1"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "::warning title=ctxguard::could not comment" in done.stdout


def test_a_huge_summary_is_cut_to_fit_a_comment() -> None:
    from ctxguard.github import COMMENT_LIMIT, comment_body

    table = "| artifact | status |\n|---|---|\n" + "".join(f"| logs/run-{i}.log | OK |\n" for i in range(8000))
    body = comment_body(table)
    assert len(body) <= COMMENT_LIMIT < len(table) and body.startswith("<!-- ctxguard -->\n")
    assert "cut to fit a comment: see the job's step summary" in body
    assert comment_body("short") == "<!-- ctxguard -->\nshort"


def test_upload_takes_the_bundle_and_its_offloads_hidden_files_included() -> None:
    step = next(s for s in ACTION["runs"]["steps"] if s.get("uses", "").startswith("actions/upload-artifact"))
    assert step["with"]["include-hidden-files"] is True and "inputs.upload == 'true'" in step["if"]
    assert step["with"]["path"].split() == [
        "${{",
        "steps.bundle.outputs.bundle-paths",
        "}}",
        "${{",
        "steps.bundle.outputs.offload-path",
        "}}",
        "${{",
        "steps.bundle.outputs.prompt-path",
        "}}",
    ]


def test_readme_documents_every_input_and_output() -> None:
    readme = (ROOT / "README.md").read_text()
    for name in [*ACTION["inputs"], *ACTION["outputs"]]:
        assert f"`{name}`" in readme, name


def test_the_events_default_branch_is_the_base_when_nothing_else_says(
    pull_request: tuple[Repo, dict[str, Any]], tmp_path: Path
) -> None:
    """A repository whose default branch is develop: actions/checkout leaves no origin/HEAD,
    and main exists too, but the event names develop."""
    repo, _ = pull_request
    repo.git.git.checkout("-q", "main")
    repo.git.git.checkout("-q", "-b", "develop")
    repo.write("dev_only.py", "def dev_only():\n    return 1\n")
    repo.commit("develop moves on")
    repo.git.git.checkout("-q", "-b", "topic")
    repo.write("topic.py", "def topic():\n    return 2\n")
    head = repo.commit("topic")
    event = {"before": "0" * 40, "after": head, "repository": {"default_branch": "develop"}}
    done = _run_bundle_step(repo, tmp_path, event, "push")
    assert done.returncode == 0, done.stderr
    diff = json.loads(Path(_outputs(tmp_path / "output")["bundle-path"]).read_text())["artifacts"][0]
    assert "+def topic():" in diff["content"] and "dev_only" not in diff["content"]
    assert any("against the merge base with develop" in note for note in diff["notes"])


def test_a_broken_config_is_an_error_annotation_at_its_line_and_a_summary(
    pull_request: tuple[Repo, dict[str, Any]], tmp_path: Path
) -> None:
    repo, event = pull_request
    repo.write(".ctxguard.yaml", "version: 1\nartifacts:\n  - name: diff\n    budget: lots\n")
    done = _run_bundle_step(repo, tmp_path, event)
    assert done.returncode == 2
    assert "::error file=.ctxguard.yaml,line=4,title=ctxguard config::" in done.stdout
    summary = (tmp_path / "summary").read_text()
    assert "Not run: ctxguard stopped before writing a bundle" in summary and "budget" in summary


def test_the_task_comes_from_the_input_or_the_pull_request_and_args_stay_data(
    pull_request: tuple[Repo, dict[str, Any]], tmp_path: Path
) -> None:
    repo, event = pull_request
    event["pull_request"].update(title="Fix the handler for request 42", body="Handlers must return ints.\n")
    done = _run_bundle_step(repo, tmp_path, event, **{"task-from-pr": "true", "args": "--tier3 head --missed"})
    assert done.returncode == 0, done.stderr
    outputs = _outputs(tmp_path / "output")
    bundle = json.loads(Path(outputs["bundle-path"]).read_text())
    assert bundle["task"] == "Fix the handler for request 42\n\nHandlers must return ints."
    assert "missed" in bundle["artifacts"][0]["retention"]  # --missed reached the command
    assert json.loads(outputs["over-budget"]) == ["diff", "reports/test.log"]
    done = _run_bundle_step(repo, tmp_path, event, task="review the handlers", args="$(touch pwned) ;")
    assert done.returncode == 2 and not (repo.path / "pwned").exists()  # an unknown argument, not a command
    done = _run_bundle_step(repo, tmp_path, event, task="review the handlers", **{"task-from-pr": "true"})
    bundle = json.loads(Path(_outputs(tmp_path / "output")["bundle-path"]).read_text())
    assert bundle["task"] == "review the handlers"  # the input wins


def test_inner_actions_are_pinned_by_full_sha() -> None:
    uses = [step["uses"] for step in ACTION["runs"]["steps"] if "uses" in step]
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in uses), uses
    text = (ROOT / "action.yml").read_text()
    assert all(f"{u} # v" in text for u in uses)  # with the version in a comment
