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
    repo.merge("-q", "--no-ff", "-m", "merge", "feature")
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
    prompt_path = Path(outputs["prompt-path"])
    prompt = prompt_path.read_text()
    assert prompt.startswith("# Material to review") and "## Coverage" in prompt and "## Digest" in prompt
    # Every full text the prompt names opens from where the prompt is ($RUNNER_TEMP/ctxguard/).
    named = re.findall(r"offload/[0-9a-f]{16}\.\w+", prompt)
    assert named and prompt_path.parent != Path(outputs["bundle-path"]).parent
    assert all((prompt_path.parent / relative).is_file() for relative in named)
    summary = (tmp_path / "summary").read_text()
    assert "| artifact | type | tier |" in summary and "`diff`" in summary and "`reports/test.log`" in summary
    warnings = [line for line in done.stdout.splitlines() if line.startswith("::warning")]
    assert len(warnings) == 2 and "diff was truncated" in warnings[0]


def test_action_inputs_override_and_fail_on_fails_the_step(
    pull_request: tuple[Repo, dict[str, Any]], tmp_path: Path
) -> None:
    repo, event = pull_request
    base = event["pull_request"]["base"]["sha"]
    (repo.path / ".git/info/exclude").write_text("/out/\n")  # (an output in the work tree must be ignored)
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


def test_a_new_push_to_a_pull_request_is_reviewed_incrementally(
    pull_request: tuple[Repo, dict[str, Any]], tmp_path: Path
) -> None:
    """On `synchronize`, what changed since the event's `before` comes first; the rest of the pull
    request follows as context; a `before` a force-push removed falls back to the whole range."""
    repo, event = pull_request
    seen = event["pull_request"]["head"]["sha"]
    repo.git.git.checkout("-q", "feature")
    repo.write("fix.py", "def fix():\n    return 'new'\n")
    head = repo.commit("fix after review")
    pull = {"base": event["pull_request"]["base"], "head": {"sha": head}}
    done = _run_bundle_step(
        repo, tmp_path, {"action": "synchronize", "before": seen, "after": head, "pull_request": pull}
    )
    assert done.returncode == 0, done.stderr
    bundle = json.loads(Path(_outputs(tmp_path / "output")["bundle-path"]).read_text())
    new, context = bundle["artifacts"][0], bundle["artifacts"][1]
    assert new["artifact_name"] == "diff" and "+def fix():" in new["content"] and "handler_0" not in new["content"]
    assert any(f"new since {seen[:12]} (1 commit: {head[:7]} fix after review)" in n for n in new["notes"])
    assert context["artifact_name"] == "diff (context)" and "fix.py" not in context["content"]
    assert "app.py" in context["content"]
    gone = {"action": "synchronize", "before": "f" * 40, "after": head, "pull_request": pull}
    done = _run_bundle_step(repo, tmp_path, gone)
    assert done.returncode == 0, done.stderr
    bundle = json.loads(Path(_outputs(tmp_path / "output")["bundle-path"]).read_text())
    assert [a["artifact_name"] for a in bundle["artifacts"]] == ["diff", "reports/test.log"]
    assert any("not in this repository" in n and "whole range" in n for n in bundle["artifacts"][0]["notes"])


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


def _comment_step(tmp_path: Path, body: Path, state: dict[str, Any]) -> tuple[subprocess.CompletedProcess[str], Any]:
    """Run the Action's comment step as written, with tests/fakes/gh (which answers as gh does)
    over `state`; the state after the run."""
    step = next(s for s in ACTION["runs"]["steps"] if s.get("id") == "comment")
    assert set(step["env"]) == {"GH_TOKEN", "REPOSITORY", "PULL", "COMMENT_FILE"}
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    shutil.copy(ROOT / "tests/fakes/gh", bin_dir / "gh")
    (tmp_path / "gh.json").write_text(json.dumps(state))
    env = {
        "GH_TOKEN": "ghs_installation",
        "REPOSITORY": "o/r",
        "PULL": "7",
        "COMMENT_FILE": str(body),
        "FAKE_GH_STATE": str(tmp_path / "gh.json"),
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
    )
    return done, json.loads((tmp_path / "gh.json").read_text())


def _comments(state: Any, login: str) -> list[Any]:
    return [c for c in state["comments"] if c["user"]["login"] == login and c["body"].startswith("<!-- ctxguard -->")]


@pytest.mark.skipif(shutil.which("jq") is None, reason="the gh fake filters --jq through jq")
def test_the_comment_is_created_then_updated_with_the_default_token(
    pull_request: tuple[Repo, dict[str, Any]], tmp_path: Path
) -> None:
    repo, event = pull_request
    assert _run_bundle_step(repo, tmp_path, event).returncode == 0
    body = tmp_path / "runner-temp" / "ctxguard-comment.md"
    assert body.read_text().startswith("<!-- ctxguard -->\n### ctxguard bundle\n\n**Check passed.**")
    others = [
        {"id": 1, "issue": 7, "body": "LGTM", "user": {"login": "alice"}},
        {"id": 2, "issue": 7, "body": "<!-- ctxguard -->\nalice quoting an old summary", "user": {"login": "alice"}},
        {
            "id": 3,
            "issue": 8,
            "body": "<!-- ctxguard -->\nanother pull request",
            "user": {"login": "github-actions[bot]"},
        },
        {"id": 4, "issue": 7, "body": "a question", "user": {"login": "bob"}},
    ]
    # The job's GITHUB_TOKEN: no user, so `gh api user` is 403 with the error JSON on stdout.
    done, state = _comment_step(tmp_path, body, {"comments": others, "next_id": 100})
    assert done.returncode == 0 and "::warning" not in done.stdout, done.stdout + done.stderr
    (created,) = _comments(state, "github-actions[bot]")[1:]  # (id 3 is another pull request's)
    assert created["issue"] == 7 and created["body"] == body.read_text()
    # The next push: the same comment, updated in place (found on the listing's second page).
    body.write_text("<!-- ctxguard -->\nthe second run")
    done, state = _comment_step(tmp_path, body, state)
    assert done.returncode == 0 and "::warning" not in done.stdout, done.stdout + done.stderr
    ours = [c for c in _comments(state, "github-actions[bot]") if c["issue"] == 7]
    assert [(c["id"], c["body"]) for c in ours] == [(100, "<!-- ctxguard -->\nthe second run")]
    assert state["comments"][:4] == others  # nobody else's comment touched
    assert ["api", "--method", "PATCH", "repos/o/r/issues/comments/100", "-F", f"body=@{body}"] in state["calls"]


@pytest.mark.skipif(shutil.which("jq") is None, reason="the gh fake filters --jq through jq")
def test_the_comment_with_a_personal_token_is_that_users(tmp_path: Path) -> None:
    body = tmp_path / "comment.md"
    body.write_text("<!-- ctxguard -->\nsummary")
    bots = [{"id": 5, "issue": 7, "body": "<!-- ctxguard -->\nthe bot's", "user": {"login": "github-actions[bot]"}}]
    done, state = _comment_step(tmp_path, body, {"user": "octocat", "comments": bots, "next_id": 100})
    assert done.returncode == 0, done.stdout + done.stderr
    assert [c["id"] for c in _comments(state, "octocat")] == [100] and state["comments"][0] == bots[0]
    done, state = _comment_step(tmp_path, body, state)
    assert [c["id"] for c in _comments(state, "octocat")] == [100]


@pytest.mark.skipif(shutil.which("jq") is None, reason="the gh fake filters --jq through jq")
def test_a_forks_read_only_token_warns_and_passes(tmp_path: Path) -> None:
    body = tmp_path / "comment.md"
    body.write_text("<!-- ctxguard -->\nsummary")
    done, state = _comment_step(tmp_path, body, {"comments": [], "next_id": 100, "read_only": True})
    assert done.returncode == 0 and "::warning title=ctxguard::could not comment (posting failed)" not in done.stdout
    assert "::warning title=ctxguard::could not comment on the pull request (posting failed)" in done.stdout
    assert state["comments"] == []


def test_a_huge_summary_is_cut_to_fit_a_comment() -> None:
    from ctxguard.report.github import COMMENT_LIMIT, comment_body

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


def test_the_docs_list_every_input_and_output() -> None:
    docs = (ROOT / "docs/integrations.md").read_text()  # (generated from action.yml: docs/tables.py)
    for name in [*ACTION["inputs"], *ACTION["outputs"]]:
        assert f"| `{name}` |" in docs, name


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
