"""Every file in examples/ is run or checked here, so none can rot."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from ctxguard.config.load import load_config
from ctxguard.main import main
from ctxguard.tokens.load import tiktoken_encoding
from tests.conftest import ROOT
from tests.gitrepo import Repo

EXAMPLES = ROOT / "examples"
SCHEMA = json.loads((ROOT / "ctxguard/schemas/bundle.schema.json").read_text())
COVERED = {
    "demo.py",
    "pre-commit-config.yaml",
    "workflows/review.yml",
    "workflows/monorepo.yml",
    "workflows/ci-failure.yml",
    "configs/reviewer.yaml",
    "configs/ci-failure.yaml",
    "configs/judge.yaml",
    "configs/monorepo.yaml",
    "artifacts/failing-tests.log",
    "artifacts/plan.md",
    "artifacts/judge-result.json",
}


def test_every_example_is_covered_by_a_test() -> None:
    files = {str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert files == COVERED


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    repo = tmp_path_factory.mktemp("demo") / "shop"
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "demo.py"), "--keep", str(repo)], capture_output=True, text=True, timeout=120
    )
    return done, repo


def test_demo_shows_all_three_tiers(demo: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    done, repo = demo
    assert done.returncode == 0, done.stderr
    bundle = json.loads((repo / ".git/ctxguard/bundle.json").read_text())
    jsonschema.validate(bundle, SCHEMA)
    assert {a["tier"] for a in bundle["artifacts"]} == {1, 2, 3}
    assert '+    return Decimal(raw.replace(",", ""))' in done.stdout
    assert "[TRUNCATED: content exceeds budget, remaining" in done.stdout
    assert "context: " in done.stderr and "written bundle: " in done.stderr
    assert bundle["totals"]["bundle_tokens"] >= 0.95 * 2400  # the small total is used, while artifacts are cut
    # The size said is the size written (a count that moves the size it counts is padded to settle).
    written = (repo / ".git/ctxguard/bundle.json").read_text()
    assert bundle["totals"]["bundle_tokens"] == len(tiktoken_encoding("o200k_base").encode(written))


def test_the_demo_writes_a_prompt_an_agent_can_take(demo: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    _, repo = demo
    done = subprocess.run(
        [sys.executable, "-m", "ctxguard", "show", str(repo / ".git/ctxguard/bundle.json"), "--format", "prompt"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    bundle = json.loads((repo / ".git/ctxguard/bundle.json").read_text())
    cut = next(a for a in bundle["artifacts"] if a["truncated"])
    assert done.stdout.startswith("# Material to review") and "## Task" in done.stdout
    said = next(line for line in done.stdout.splitlines() if line.startswith("  - cut: "))
    assert f"`{cut['artifact_name']}`" in said
    assert f"> full text: `{cut['offload']['path']}`" in done.stdout
    assert done.stdout.count("```") % 2 == 0  # every fence closed


def _layout(repo: Repo) -> None:
    """A repository with every path the example configs name."""
    repo.write("services/api/handler.py", "def handle():\n    return 1\n")
    repo.write("services/web/page.ts", "export const page = 1;\n")
    repo.write("infra/main.tf", 'resource "x" "y" {}\n')
    repo.commit("initial")
    repo.write("services/api/handler.py", "def handle():\n    raise ValueError('bad request')\n")
    repo.write("services/web/page.ts", "export const page = 2;\n")
    repo.write("services/web/public/app.js", "x()\n")
    repo.write("reports/unit/tests.log", (EXAMPLES / "artifacts/failing-tests.log").read_text())
    repo.write("docs/plan.md", (EXAMPLES / "artifacts/plan.md").read_text())
    repo.write("build/judge-result.json", (EXAMPLES / "artifacts/judge-result.json").read_text())
    repo.add("services")


@pytest.mark.parametrize("name", ["reviewer", "judge", "monorepo"])
def test_example_configs_load_and_bundle(name: str, tmp_path: Path) -> None:
    config = EXAMPLES / "configs" / f"{name}.yaml"
    load_config(config)  # valid, with every key known
    repo = Repo(tmp_path / "repo")
    _layout(repo)
    output = tmp_path / "bundle.json"
    assert main(["bundle", "--repo", str(repo.path), "--config", str(config), "--output", str(output)]) == 0
    bundle = json.loads(output.read_text())
    jsonschema.validate(bundle, SCHEMA)
    names = [a["artifact_name"] for a in bundle["artifacts"]]
    assert not any(a.get("error") for a in bundle["artifacts"])
    if name == "monorepo":
        api, web, infra = bundle["artifacts"][:3]
        assert "ValueError('bad request')" in api["content"] and "page.ts" not in api["content"]
        assert "page.ts" in web["content"] and "public/app.js" not in web["content"]
        assert infra["content"] == "[NO CHANGES UNDER infra/**, **/*.tf: 3 changed files elsewhere]"
    else:
        assert "docs/plan.md" in names and "reports/unit/tests.log" in names


def test_pre_commit_snippet_is_valid_and_names_our_hooks() -> None:
    from pre_commit.clientlib import load_config as load_pre_commit_config

    config = load_pre_commit_config(str(EXAMPLES / "pre-commit-config.yaml"))
    ours = {hook["id"] for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    used = {hook["id"] for repo in config["repos"] for hook in repo["hooks"]}
    assert used and used <= ours


def _assert_valid_workflow(path: Path) -> None:
    """The workflow passes check-jsonschema's GitHub workflow schema."""
    tool = shutil.which("check-jsonschema")
    assert tool
    done = subprocess.run(
        [tool, "--builtin-schema", "vendor.github-workflows", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_workflow_is_valid_and_uses_the_action_as_declared() -> None:
    workflow_path = EXAMPLES / "workflows/review.yml"
    _assert_valid_workflow(workflow_path)
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    workflow = yaml.safe_load(workflow_path.read_text())
    steps = workflow["jobs"]["review"]["steps"]
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0
    ours = next(s for s in steps if s.get("uses", "").startswith("ctxguard/ctxguard"))
    assert set(ours["with"]) <= set(action["inputs"])
    text = workflow_path.read_text()
    for output in ("bundle-path", "truncated", "prompt-path"):
        assert f"steps.ctxguard.outputs.{output}" in text and output in action["outputs"]
    agent = next(s for s in steps if s.get("uses", "").startswith("openai/codex-action@"))
    assert agent["with"]["prompt-file"] == "${{ steps.ctxguard.outputs.prompt-path }}"


def test_the_workflow_is_safe_on_forks() -> None:
    """The pull request's own code (its tests) runs with a read-only token and no secrets; the
    job that may write never runs it, and its agent step runs only where the key exists."""
    workflow = yaml.safe_load((EXAMPLES / "workflows/review.yml").read_text())
    assert workflow["permissions"] == {"contents": "read"}
    test = workflow["jobs"]["test"]
    assert "permissions" not in test and "secrets." not in yaml.safe_dump(test)
    assert any("pytest" in step.get("run", "") for step in test["steps"])
    review = workflow["jobs"]["review"]
    assert review["needs"] == "test" and review["permissions"]["pull-requests"] == "write"
    assert not any("pytest" in step.get("run", "") for step in review["steps"])  # never runs the PR's code
    agent = next(s for s in review["steps"] if s.get("uses", "").startswith("openai/codex-action@"))
    assert review["env"]["HAS_OPENAI_KEY"] == "${{ secrets.OPENAI_API_KEY != '' }}"
    assert agent["if"] == "env.HAS_OPENAI_KEY == 'true'"


def test_the_repository_gates_its_own_style_before_the_suite() -> None:
    from pre_commit.clientlib import load_config as load_pre_commit_config

    hooks = [
        hook
        for repo in load_pre_commit_config(str(ROOT / ".pre-commit-config.yaml"))["repos"]
        for hook in repo["hooks"]
    ]
    assert [hook["id"] for hook in hooks] == ["ruff-format", "ruff-check", "mypy", "ctxguard"]
    steps = [line for line in (ROOT / ".ci/run").read_text().splitlines() if line.startswith("python -m")]
    gate = ["python -m ruff format --check .", "python -m ruff check .", "python -m mypy"]
    assert [s for s in steps if s in gate] == gate
    assert steps[-1] == "python -m pytest" and steps.index(gate[-1]) < steps.index("python -m pytest")
    readme = (ROOT / "README.md").read_text()
    assert "pip install '.[test]' && python -m pytest" in readme  # (the README's second command)
    extras = (ROOT / "pyproject.toml").read_text()
    assert 'lint = ["ruff==' in extras and '"mypy==' in extras  # exact versions: a new release cannot turn CI red


def test_a_release_is_one_tag_push_away() -> None:

    import ctxguard

    workflow = yaml.safe_load((ROOT / ".github/workflows/release.yml").read_text())
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    uses = [step["uses"] for step in steps if "uses" in step]
    assert all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in uses), uses
    assert any(u.startswith("pypa/gh-action-pypi-publish@") for u in uses)
    assert workflow["jobs"]["publish"]["permissions"] == {"id-token": "write"}  # trusted publishing, no token
    runs = "\n".join(step.get("run", "") for step in steps)
    assert "twine check --strict" in runs and "git tag --force v0" in runs and "bash .ci/run" in runs
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"\n## {ctxguard.__version__} " in changelog  # the section the workflow requires
    assert (ROOT / "docs/releasing.md").exists()
    tool = shutil.which("check-jsonschema")
    if tool:
        done = subprocess.run(
            [tool, "--builtin-schema", "vendor.github-workflows", str(ROOT / ".github/workflows/release.yml")],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_monorepo_workflow_runs_one_entry_per_job(tmp_path: Path) -> None:
    workflow_path = EXAMPLES / "workflows/monorepo.yml"
    _assert_valid_workflow(workflow_path)
    job = yaml.safe_load(workflow_path.read_text())["jobs"]["package"]
    entries = job["strategy"]["matrix"]["entry"]
    config = load_config(EXAMPLES / "configs/monorepo.yaml")
    assert set(entries) <= {spec.name for spec in config.artifacts}
    ours = next(s for s in job["steps"] if s.get("uses", "").startswith("ctxguard/ctxguard"))
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert set(ours["with"]) <= set(action["inputs"]) and ours["with"]["args"] == "--only ${{ matrix.entry }}"
    # What one job runs, on the example layout: only its entry, the others untouched.
    repo = Repo(tmp_path / "repo")
    _layout(repo)
    output = tmp_path / "api.json"
    config_path = str(EXAMPLES / "configs/monorepo.yaml")
    argv = ["bundle", "--repo", str(repo.path), "--config", config_path, "--only", "api-diff", "--output", str(output)]
    assert main(argv) == 0
    assert [a["artifact_name"] for a in json.loads(output.read_text())["artifacts"]] == ["api-diff"]
    assert main(["bundle", "--repo", str(repo.path), "--config", config_path, "--only", "nope", "--stdout"]) == 2


def test_the_ci_failure_workflow_reads_the_run_and_never_runs_the_pull_request() -> None:
    """On `workflow_run`, with the least permissions it needs, third-party actions pinned by
    sha, no credentials left in the checkout, and no step that runs the pull request's code."""
    path = EXAMPLES / "workflows/ci-failure.yml"
    _assert_valid_workflow(path)
    workflow = yaml.safe_load(path.read_text())
    assert workflow[True]["workflow_run"]["types"] == ["completed"]  # (YAML 1.1 reads `on` as true)
    assert workflow["permissions"] == {}
    job = workflow["jobs"]["explain"]
    assert job["permissions"] == {"actions": "read", "contents": "read", "pull-requests": "write"}
    assert "conclusion == 'failure'" in job["if"]
    uses = [step["uses"] for step in job["steps"] if "uses" in step]
    assert all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in uses), uses
    checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"] == {"fetch-depth": 0, "persist-credentials": False}  # (the default branch)
    runs = "\n".join(step.get("run", "") for step in job["steps"])
    assert "checkout" not in runs and "pytest" not in runs and "pip install" not in runs
    ours = next(s for s in job["steps"] if s.get("uses", "").startswith("ctxguard/ctxguard"))
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert set(ours["with"]) <= set(action["inputs"])
    assert ours["with"]["run"] == "${{ github.event.workflow_run.id }}"
    config = load_config(EXAMPLES / "configs/ci-failure.yaml")
    assert [s.source for s in config.artifacts] == ["github-run", "files", "git"]


def _workflows() -> list[tuple[str, object]]:
    """Every workflow the repository shows a user: the examples, action.yml and the README's and
    docs' yaml snippets that have steps."""
    found: list[tuple[str, object]] = [
        (str(p.relative_to(ROOT)), yaml.safe_load(p.read_text()))
        for p in sorted((EXAMPLES / "workflows").glob("*.yml"))
    ]
    found.append(("action.yml", yaml.safe_load((ROOT / "action.yml").read_text())))
    for doc in (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))):
        for k, block in enumerate(re.findall(r"```yaml\n(.*?)```", doc.read_text(), re.S)):
            if "uses:" in block and "steps:" in block:
                found.append((f"{doc.name} snippet {k}", yaml.safe_load(block)))
    return found


def _steps(node: object) -> list[dict]:  # type: ignore[type-arg]
    if isinstance(node, dict):
        own = [node] if "uses" in node else []
        return own + [s for value in node.values() for s in _steps(value)]
    if isinstance(node, list):
        return [s for value in node for s in _steps(value)]
    return []


def test_every_workflow_a_user_copies_passes_the_rules_a_security_linter_checks() -> None:
    """zizmor's `unpinned-uses` (every third-party action by full commit sha, its tag in a
    comment) and `artipacked` (a checkout that does not push leaves no credentials behind)."""
    workflows = _workflows()
    assert len(workflows) >= 5
    for name, workflow in workflows:
        for step in _steps(workflow):
            uses = step["uses"]
            if uses.startswith("./"):
                continue
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses), (name, uses)
            if uses.startswith("actions/checkout@"):
                assert (step.get("with") or {}).get("persist-credentials") is False, (name, step)
    texts = [p.read_text() for p in (EXAMPLES / "workflows").glob("*.yml")] + [(ROOT / "README.md").read_text()]
    for text in texts:  # (the tag beside each sha, for a reader and for update tools)
        for line in re.findall(r"uses: (?!ctxguard/)\S+@[0-9a-f]{40}.*", text):
            assert re.search(r"# v\d", line), line
